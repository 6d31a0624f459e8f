import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { AppContext } from '../../shared/context.js';
import type { FilesTable } from '../../shared/db/schema.js';
import * as repo from './repo.js';
import type { FileStore } from './store.js';

export interface MigrateProgress {
  /** File rows looked at so far, of `total`. */
  done: number;
  total: number;
  copied: number;
  /** Already in the target with the recorded size and SHA-256 (a rerun, or written there directly). */
  present: number;
  /** Rows whose object is in neither store. */
  missing: string[];
  /** Rows whose source bytes do not match the recorded size or SHA-256, or whose copy failed. */
  failed: { id: string; reason: string }[];
}

const PAGE = 500;

async function sha256Of(store: FileStore, id: string): Promise<string | undefined> {
  const found = await store.get(id);
  if (!found) return undefined;
  const hash = createHash('sha256');
  for await (const chunk of found.body) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

class Mismatch extends Error {}

/**
 * The source's bytes, checked against the row while they stream to the target. The last chunk is
 * held back until the digest is known, so bytes that do not match never complete the write: the
 * target's PUT (or temp file) is abandoned, and whatever the target holds under the id was checked.
 */
async function* verified(source: Readable, row: FilesTable): AsyncGenerator<Buffer> {
  const hash = createHash('sha256');
  let size = 0;
  let held: Buffer | undefined;
  for await (const chunk of source as AsyncIterable<Buffer>) {
    hash.update(chunk);
    size += chunk.length;
    if (size > row.size) throw new Mismatch(`the source holds more than the recorded ${row.size} bytes`);
    if (held) yield held;
    held = chunk;
  }
  if (size !== row.size) throw new Mismatch(`the source holds ${size} bytes, not the recorded ${row.size}`);
  if (hash.digest('hex') !== row.sha256) throw new Mismatch('the source bytes do not match the recorded sha256');
  if (held) yield held;
}

async function migrateOne(source: FileStore, target: FileStore, row: FilesTable, p: MigrateProgress): Promise<void> {
  const there = await target.head(row.id);
  if (there && there.size === row.size && (there.sha256 ?? (await sha256Of(target, row.id))) === row.sha256) {
    p.present++;
    return;
  }
  const found = await source.get(row.id);
  if (!found) {
    p.missing.push(row.id);
    return;
  }
  try {
    const body = Readable.from(verified(found.body, row), { objectMode: false });
    await target.put(row.id, body, { size: row.size, mime: row.mime, sha256: row.sha256 });
    p.copied++;
  } catch (err) {
    found.body.destroy();
    p.failed.push({
      id: row.id,
      reason: err instanceof Mismatch ? err.message : `copy failed: ${(err as Error).message}`,
    });
  }
}

/**
 * Copies the object of every file row from `source` to `target`, checking each against the row's
 * size and SHA-256. Idempotent and resumable: what the target already holds, verified, is skipped;
 * nothing is ever deleted from the source. Rows are taken in id order, `concurrency` at a time.
 */
export async function migrateFiles(
  ctx: AppContext,
  source: FileStore,
  target: FileStore,
  opts: { concurrency: number; onProgress?: (p: MigrateProgress) => void },
): Promise<MigrateProgress> {
  const p: MigrateProgress = {
    done: 0,
    total: await repo.countFiles(ctx.db),
    copied: 0,
    present: 0,
    missing: [],
    failed: [],
  };
  let after = '';
  for (;;) {
    const rows = await repo.listFilesAfter(ctx.db, after, PAGE);
    if (rows.length === 0) break;
    let next = 0;
    const lane = async () => {
      for (let row = rows[next++]; row !== undefined; row = rows[next++]) {
        await migrateOne(source, target, row, p);
        p.done++;
        opts.onProgress?.(p);
      }
    };
    await Promise.all(Array.from({ length: Math.min(opts.concurrency, rows.length) }, lane));
    after = rows[rows.length - 1]?.id ?? after;
  }
  return p;
}
