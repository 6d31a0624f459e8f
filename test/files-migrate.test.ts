import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateFiles } from '../src/features/files/migrate.js';
import { type FileStore, openFileStore } from '../src/features/files/store.js';
import { RUTA_CLI } from './cli-run.js';
import { localS3, TEST_BUCKET } from './files-env.js';
import { attachApp, describeEach, newOperator, startApp, type TestApp } from './helpers.js';
import { tinyPng, upload } from './lifecycle-helpers.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SLOW = 240_000;
const local = (url: string) => url.replace(/^https?:\/\/[^/]+/, '');

function ruta(
  env: Record<string, string>,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...RUTA_CLI, ...args],
      { cwd: ROOT, env: { ...process.env, RUTA_LOG_LEVEL: 'silent', ...env }, timeout: 120_000 },
      (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
    );
  });
}

const dirs: string[] = [];
const freshDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'ruta-migrate-'));
  dirs.push(d);
  return `file:${d}`;
};
const freshS3 = async () => (await localS3()).filesUrl(TEST_BUCKET, `mig-${Math.random().toString(36).slice(2, 10)}`);

async function bytesOf(store: FileStore, id: string): Promise<Buffer | undefined> {
  const found = await store.get(id);
  if (!found) return undefined;
  const chunks: Buffer[] = [];
  for await (const c of found.body) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describeEach('ruta files migrate', (engine) => {
  for (const [from, to] of [
    ['file', 's3'],
    ['s3', 'file'],
  ] as const) {
    describe(`${from} → ${to}`, () => {
      let t: TestApp;
      let sourceUrl: string;
      let targetUrl: string;
      const files: { id: string; bytes: Buffer; url: string }[] = [];

      beforeAll(async () => {
        sourceUrl = from === 'file' ? freshDir() : await freshS3();
        targetUrl = to === 'file' ? freshDir() : await freshS3();
        t = await startApp(engine, { RUTA_FILES_URL: sourceUrl });
        const op = await newOperator(t, 'test');
        // Small ones, and one over S3's 5 MiB part size.
        for (const bytes of [tinyPng(2), tinyPng(7), Buffer.concat([tinyPng(), randomBytes(6 * 1024 * 1024)])]) {
          const f = (await upload(t, op, 'photo', bytes)).body;
          files.push({ id: f.id, bytes, url: f.url });
        }
      });
      afterAll(async () => t?.close());

      it(
        'copies every file, verified; a rerun copies nothing; the target then serves the same links',
        async () => {
          const env = { DATABASE_URL: t.config.databaseUrl, RUTA_FILES_URL: sourceUrl };
          const run = await ruta(env, 'files', 'migrate', '--to', targetUrl);
          expect(run.stderr).toContain(`3/3 files: 3 copied, 0 already there, 0 missing, 0 failed`);
          expect(run.stdout).toContain('Every file is in');
          expect(run.code).toBe(0);

          const target = openFileStore(targetUrl);
          const source = openFileStore(sourceUrl);
          try {
            for (const f of files) {
              expect((await bytesOf(target, f.id))?.equals(f.bytes), f.id).toBe(true);
              expect((await bytesOf(source, f.id))?.equals(f.bytes), 'the source is left as it was').toBe(true);
            }
          } finally {
            await target.close();
            await source.close();
          }

          const again = await ruta(env, 'files', 'migrate', '--to', targetUrl, '--json');
          expect(again.code).toBe(0);
          expect(JSON.parse(again.stdout)).toMatchObject({ total: 3, copied: 0, present: 3, missing: [], failed: [] });

          // An instance switched to the target answers the links signed before the move.
          const moved = await attachApp(t, { RUTA_FILES_URL: targetUrl });
          try {
            for (const f of files) {
              const got = await moved.app.inject({ method: 'GET', url: local(f.url) });
              expect(got.statusCode).toBe(200);
              expect(got.rawPayload.equals(f.bytes)).toBe(true);
            }
          } finally {
            await moved.close();
          }
        },
        SLOW,
      );
    });
  }

  describe('checks', () => {
    let t: TestApp;
    let op: string;
    beforeAll(async () => {
      t = await startApp(engine, { RUTA_FILES_URL: freshDir() });
      op = await newOperator(t, 'test');
    });
    afterAll(async () => t?.close());

    it('never writes bytes that differ from the row; reports missing ones; resumes where it stopped', async () => {
      const source = openFileStore(t.config.filesUrl);
      const target = openFileStore(await freshS3());
      try {
        const ids: string[] = [];
        for (let i = 2; i < 7; i++) ids.push((await upload(t, op, 'photo', tinyPng(i))).body.id);
        const [good, corrupt, gone, copied, stale] = ids as [string, string, string, string, string];
        // Same length, other bytes: only the SHA-256 can tell.
        const row = await t.ctx.db.selectFrom('files').selectAll().where('id', '=', corrupt).executeTakeFirstOrThrow();
        const other = Buffer.from((await bytesOf(source, corrupt)) as Buffer);
        other[other.length - 1] ^= 0xff;
        await source.put(corrupt, Readable.from([other]), { size: other.length, mime: row.mime });
        await source.delete(gone);
        // Already in the target (a run that stopped), and a stale object of the same size there.
        const copiedBytes = (await bytesOf(source, copied)) as Buffer;
        await target.put(copied, Readable.from([copiedBytes]), { size: copiedBytes.length, mime: 'image/png' });
        const staleBytes = Buffer.from((await bytesOf(source, stale)) as Buffer);
        staleBytes[staleBytes.length - 1] ^= 0xff;
        await target.put(stale, Readable.from([staleBytes]), { size: staleBytes.length, mime: 'image/png' });

        const seen: number[] = [];
        const result = await migrateFiles(t.ctx, source, target, {
          concurrency: 2,
          onProgress: (p) => seen.push(p.done),
        });
        const mine = (list: string[]) => list.filter((id) => ids.includes(id));
        expect(mine(result.missing)).toEqual([gone]);
        expect(result.failed.filter((f) => ids.includes(f.id))).toEqual([
          { id: corrupt, reason: 'the source bytes do not match the recorded sha256' },
        ]);
        expect(seen.at(-1)).toBe(result.total);
        expect(await target.head(corrupt)).toBeNull();
        expect(await target.head(gone)).toBeNull();
        for (const id of [good, copied, stale]) {
          const bytes = (await bytesOf(target, id)) as Buffer;
          const recorded = await t.ctx.db
            .selectFrom('files')
            .select('sha256')
            .where('id', '=', id)
            .executeTakeFirstOrThrow();
          expect(createHash('sha256').update(bytes).digest('hex'), id).toBe(recorded.sha256);
        }
        // Copied now carry their SHA-256, so a rerun checks them without reading them back.
        expect((await target.head(good))?.sha256).toBeDefined();
      } finally {
        await source.close();
        await target.close();
      }
    });

    it(
      'refuses a missing or unusable --to, and the store it would copy from',
      async () => {
        const env = { DATABASE_URL: t.config.databaseUrl, RUTA_FILES_URL: t.config.filesUrl };
        const none = await ruta(env, 'files', 'migrate');
        expect(none.code).toBe(2);
        expect(none.stderr).toContain('--to URL is required');
        const creds = await ruta(env, 'files', 'migrate', '--to', 's3://AKIA:secret@bucket/x');
        expect(creds.code).toBe(2);
        expect(creds.stderr).toContain('must not hold credentials');
        expect(creds.stderr).not.toContain('secret@');
        const same = await ruta(env, 'files', 'migrate', '--to', t.config.filesUrl);
        expect(same.code).toBe(2);
        expect(same.stderr).toContain('already names');
        const blocker = join(mkdtempSync(join(tmpdir(), 'ruta-migrate-')), 'file');
        dirs.push(join(blocker, '..'));
        writeFileSync(blocker, 'x');
        const down = await ruta(env, 'files', 'migrate', '--to', `file:${join(blocker, 'files')}`);
        expect(down.code).toBe(1);
        expect(down.stderr).toContain('the target store does not answer');
      },
      SLOW,
    );
  });
});
