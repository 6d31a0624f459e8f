import type { Readable } from 'node:stream';
import type { Scope } from '../../shared/auth.js';
import type { AppContext } from '../../shared/context.js';
import type { FilesTable } from '../../shared/db/schema.js';
import { ApiError, notFound } from '../../shared/errors.js';
import { iso } from '../../shared/time.js';
import * as repo from './repo.js';
import type { FileObject, FilePurpose } from './schemas.js';
import { signedUrl, verifyLink } from './signing.js';
import { fileStore, storeUnavailable } from './store.js';
import type { StoredUpload } from './upload-body.js';

export async function present(ctx: AppContext, f: FilesTable, ttlSeconds?: number): Promise<FileObject> {
  return {
    id: f.id,
    object: 'file',
    purpose: f.purpose,
    type: f.mime,
    size: f.size,
    sha256: f.sha256,
    livemode: f.mode === 'live',
    url: await fileUrl(ctx, f.id, ttlSeconds),
    created_at: iso(f.created_at),
  };
}

export function fileUrl(ctx: AppContext, id: string, ttlSeconds = ctx.config.fileUrlTtlSeconds): Promise<string> {
  return signedUrl(ctx, id, ttlSeconds);
}

/** Records an upload whose bytes the body parser has put in the store (upload-body.ts). */
export async function upload(
  ctx: AppContext,
  scope: Scope,
  purpose: FilePurpose,
  body: StoredUpload,
): Promise<FileObject> {
  const row: FilesTable = {
    id: body.id,
    account_id: scope.accountId,
    mode: scope.mode,
    purpose,
    mime: body.mime,
    size: body.size,
    sha256: body.sha256, // hashed while the body streamed to the store
    created_at: body.createdAt,
  };
  await repo.insertFile(ctx.db, row);
  body.committed = true;
  return present(ctx, row);
}

export async function getFile(ctx: AppContext, scope: Scope, id: string): Promise<FileObject> {
  const row = await repo.findFileInScope(ctx.db, scope, id);
  if (!row) throw notFound('file', id);
  return present(ctx, row);
}

/** The bytes behind a signed link; a tampered, expired or unknown link is one and the same 403. */
export async function content(
  ctx: AppContext,
  id: string,
  expires: string | undefined,
  signature: string | undefined,
): Promise<{ mime: string; size: number; body: Readable }> {
  const invalid = new ApiError('file_link_invalid', 'This file link is invalid or has expired.');
  if (!expires || !/^[0-9]{1,15}$/.test(expires) || !signature) throw invalid;
  if (!(await verifyLink(ctx, id, Number(expires), signature))) throw invalid;
  const row = await repo.findFile(ctx.db, id);
  if (!row) throw invalid;
  let found: Awaited<ReturnType<ReturnType<typeof fileStore>['get']>>;
  try {
    found = await fileStore(ctx).get(id);
  } catch (err) {
    ctx.logger.error({ err, file: id }, 'file store read failed');
    throw storeUnavailable();
  }
  // The row outlived its bytes (a wiped directory, a store not migrated): say so rather than 500.
  if (!found) throw notFound('file', id);
  return { mime: row.mime, size: found.size, body: found.body };
}

/** Readiness: the store answers (the directory is writable, the bucket reachable). */
export async function checkStore(ctx: AppContext): Promise<void> {
  await fileStore(ctx).check();
}

/**
 * A file a proof may cite: uploaded in the order's environment, by the order's account or by the
 * carrier, visible to the caller, and of the right purpose. Anything else is a 422 on `param`.
 */
export async function fileForProof(
  ctx: AppContext,
  scope: Scope,
  order: { account_id: string; mode: string },
  id: string,
  purpose: FilePurpose,
  param: string,
): Promise<FilesTable> {
  const row = await repo.findFile(ctx.db, id);
  const visible =
    row &&
    row.mode === order.mode &&
    (row.account_id === null || row.account_id === order.account_id) &&
    (scope.accountId === null || row.account_id === scope.accountId);
  if (!row || !visible) throw new ApiError('parameter_invalid', `Invalid ${param}: no such file '${id}'.`, param);
  if (row.purpose !== purpose) {
    throw new ApiError(
      'parameter_invalid',
      `Invalid ${param}: file '${id}' was uploaded with purpose ${row.purpose}, not ${purpose}.`,
      param,
    );
  }
  return row;
}
