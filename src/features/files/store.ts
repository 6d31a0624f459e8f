import type { AppContext } from '../../shared/context.js';
import { ApiError } from '../../shared/errors.js';
import { type FilesLocation, parseFilesUrl } from '../../shared/files-url.js';
import { instanceKey } from '../../shared/instance.js';
import type { FileStore } from './file-store.js';
import { LocalStore } from './local-store.js';
import { S3Store } from './s3-store.js';

export type { FileStore, StoredFile } from './file-store.js';

export function openFileStore(location: FilesLocation | string): FileStore {
  const loc = typeof location === 'string' ? parseFilesUrl(location) : location;
  return loc.kind === 'file' ? new LocalStore(loc.dir) : new S3Store(loc);
}

/** This instance's store, made on first use and closed with the app (its S3 client's sockets). */
export const FILE_STORE = instanceKey('files:store', (ctx: AppContext) => openFileStore(ctx.config.filesUrl));

export const fileStore = (ctx: AppContext): FileStore => ctx.instance.get(FILE_STORE);

/** The store failed: the client may retry; what went wrong is in the log, not in the answer. */
export const storeUnavailable = (): ApiError =>
  new ApiError('service_unavailable', 'The file store is not answering; try again shortly.');
