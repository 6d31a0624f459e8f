import { createWriteStream } from 'node:fs';
import { access, constants, mkdir, open, readdir, rename, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { formatFilesUrl } from '../../shared/files-url.js';
import { randomToken } from '../../shared/ids.js';
import type { FileStore, StoredFile } from './file-store.js';

const isMissing = (err: unknown) => (err as NodeJS.ErrnoException).code === 'ENOENT';

/** Files in one directory (`file:`): each object is a file named by its key. */
export class LocalStore implements FileStore {
  readonly url: string;
  private made: Promise<unknown> | undefined;

  constructor(private readonly dir: string) {
    this.url = formatFilesUrl({ kind: 'file', dir });
  }

  /** Keys are file ids; anything that could leave the directory is refused outright. */
  private path(key: string): string {
    if (!/^[A-Za-z0-9_-][A-Za-z0-9_.-]*$/.test(key)) throw new Error('invalid file key');
    return join(this.dir, key);
  }

  private ensureDir(): Promise<unknown> {
    this.made ??= mkdir(this.dir, { recursive: true }).catch((err) => {
      this.made = undefined;
      throw err;
    });
    return this.made;
  }

  async put(key: string, body: Readable, _meta: { size?: number }): Promise<void> {
    const target = this.path(key);
    await this.ensureDir();
    // Written under a temporary name and renamed, so a reader never sees half a file. The dot keeps
    // it out of list() while it is being written.
    const tmp = join(this.dir, `.${key}.${randomToken(8)}.part`);
    try {
      await pipeline(body, createWriteStream(tmp, { flags: 'wx' }));
      await rename(tmp, target);
    } catch (err) {
      await unlink(tmp).catch(() => {});
      throw err;
    }
  }

  async get(key: string): Promise<{ body: Readable; size: number } | null> {
    let handle: Awaited<ReturnType<typeof open>>;
    try {
      handle = await open(this.path(key), 'r');
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
    try {
      const { size } = await handle.stat();
      // The stream owns the handle from here: it closes it at its end or when destroyed.
      return { body: handle.createReadStream(), size };
    } catch (err) {
      await handle.close();
      throw err;
    }
  }

  async head(key: string): Promise<StoredFile | null> {
    try {
      return { size: (await stat(this.path(key))).size };
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await unlink(this.path(key)).catch((err) => {
      if (!isMissing(err)) throw err;
    });
  }

  async *list(): AsyncIterable<{ key: string; size: number }> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (err) {
      if (isMissing(err)) return;
      throw err;
    }
    // Dot files are writes in progress; *.part the temporary names of earlier versions.
    for (const key of names.filter((n) => !n.startsWith('.') && !n.endsWith('.part')).sort()) {
      const found = await this.head(key);
      if (found) yield { key, size: found.size };
    }
  }

  async check(): Promise<void> {
    await this.ensureDir();
    await access(this.dir, constants.W_OK | constants.R_OK);
  }

  async close(): Promise<void> {}
}
