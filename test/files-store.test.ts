import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, statSync, watch, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FileStore, openFileStore } from '../src/features/files/store.js';
import { localS3, TEST_BUCKET } from './files-env.js';
import { attachApp, client, describeEach, newOperator, startApp, type TestApp } from './helpers.js';
import { tinyPng, upload } from './lifecycle-helpers.js';
import type { S3TestServer } from './s3-server.js';

const MiB = 1024 * 1024;
const KINDS = ['file', 's3'] as const;
type Kind = (typeof KINDS)[number];
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const local = (url: string) => url.replace(/^https?:\/\/[^/]+/, '');
/** A body that sniffs as PNG (the signature first), then `bytes` of random filler. */
const bigPng = (bytes: number) => Buffer.concat([tinyPng(), randomBytes(bytes - tinyPng().length)]);

/** A place in one kind of store, fresh for each caller. */
async function freshLocation(kind: Kind): Promise<{ url: string; dir?: string; s3?: S3TestServer }> {
  if (kind === 'file') {
    const dir = mkdtempSync(join(tmpdir(), 'ruta-store-'));
    return { url: `file:${dir}`, dir };
  }
  const s3 = await localS3();
  return { url: s3.filesUrl(TEST_BUCKET, `store-${Math.random().toString(36).slice(2, 10)}`), s3 };
}

/**
 * Resolves once `check` holds, re-checking on every event `subscribe` reports (objects arriving at
 * the S3 server, the files directory changing): no polling, no sleeping. A check that never holds
 * is the test's failure (its timeout).
 */
function until(check: () => boolean, subscribe: (wake: () => void) => () => void): Promise<void> {
  return new Promise((resolve) => {
    let stop = () => {};
    const wake = () => {
      if (check()) {
        stop();
        resolve();
      }
    };
    stop = subscribe(wake);
    wake();
  });
}

/** Bytes the store has received of writes still in progress, and a way to wait on them. */
function watchWrites(loc: { dir?: string; s3?: S3TestServer; url: string }) {
  if (loc.s3) {
    const s3 = loc.s3;
    const prefix = new URL(loc.url).pathname.slice(1);
    let received = 0;
    const onReceive = (e: { key: string; received: number }) => {
      if (e.key.startsWith(prefix)) received = Math.max(received, e.received);
    };
    s3.on('receive', onReceive);
    return {
      received: () => received,
      subscribe: (wake: () => void) => {
        s3.on('receive', wake);
        s3.on('answered', wake);
        return () => {
          s3.off('receive', wake);
          s3.off('answered', wake);
        };
      },
      stop: () => s3.off('receive', onReceive),
    };
  }
  const dir = loc.dir as string;
  const partial = () =>
    readdirSync(dir)
      .filter((n) => n.endsWith('.part'))
      .reduce((n, f) => n + (statSync(join(dir, f), { throwIfNoEntry: false })?.size ?? 0), 0);
  return {
    received: partial,
    subscribe: (wake: () => void) => {
      const w = watch(dir, wake);
      return () => w.close();
    },
    stop: () => {},
  };
}

async function keysOf(store: FileStore): Promise<string[]> {
  const keys: string[] = [];
  for await (const o of store.list()) keys.push(o.key);
  return keys;
}

describe('FileStore', () => {
  for (const kind of KINDS) {
    it(`${kind}: put, get, head, list, delete; a failed body leaves nothing behind`, async () => {
      const loc = await freshLocation(kind);
      const store = openFileStore(loc.url);
      try {
        await store.check();
        const bytes = randomBytes(200_000);
        await store.put('file_a', Readable.from([bytes.subarray(0, 1000), bytes.subarray(1000)]), {
          size: bytes.length,
          mime: 'image/png',
        });
        expect(await store.head('file_a')).toMatchObject({ size: bytes.length });
        const got = await store.get('file_a');
        const chunks: Buffer[] = [];
        for await (const c of got!.body) chunks.push(c as Buffer);
        expect(Buffer.concat(chunks).equals(bytes)).toBe(true);
        expect(await store.get('file_none')).toBeNull();
        expect(await store.head('file_none')).toBeNull();

        async function* failing() {
          yield Buffer.alloc(50_000, 1);
          throw new Error('client went away');
        }
        await expect(
          store.put('file_b', Readable.from(failing()), { size: 100_000, mime: 'image/png' }),
        ).rejects.toThrow('client went away');
        expect(await store.head('file_b')).toBeNull();
        expect(await keysOf(store)).toEqual(['file_a']);
        if (loc.dir) expect(readdirSync(loc.dir)).toEqual(['file_a']); // no temporary file left either

        await store.delete('file_a');
        await store.delete('file_a'); // deleting what is gone is not an error
        expect(await keysOf(store)).toEqual([]);
      } finally {
        await store.close();
        if (loc.dir) rmSync(loc.dir, { recursive: true, force: true });
      }
    });
  }

  it('file: refuses keys that could leave the directory', async () => {
    const loc = await freshLocation('file');
    const store = openFileStore(loc.url);
    for (const key of ['../x', 'a/b', '.hidden', '']) {
      await expect(store.head(key)).rejects.toThrow('invalid file key');
    }
    rmSync(loc.dir as string, { recursive: true, force: true });
  });
});

describeEach('files in object storage', (engine) => {
  for (const kind of KINDS) {
    describe(kind, () => {
      let t: TestApp;
      let loc: Awaited<ReturnType<typeof freshLocation>>;
      let store: FileStore;
      let op: string;
      let base: string;

      beforeAll(async () => {
        loc = await freshLocation(kind);
        t = await startApp(engine, { RUTA_FILES_URL: loc.url });
        store = openFileStore(loc.url);
        op = await newOperator(t, 'test');
        base = await t.app.listen({ port: 0, host: '127.0.0.1' });
      });
      afterAll(async () => {
        await store?.close();
        await t?.close();
        if (loc?.dir) rmSync(loc.dir, { recursive: true, force: true });
      });

      /** A real HTTP upload whose body the test writes piece by piece. */
      function startUpload(headers: Record<string, string | number>) {
        const req = request(`${base}/v1/files?purpose=photo`, {
          method: 'POST',
          headers: { authorization: `Bearer ${op}`, 'content-type': 'image/png', ...headers },
        });
        const response = new Promise<{ status: number; body: any }>((resolve, reject) => {
          req.on('response', (res) => {
            let text = '';
            res.on('data', (d) => {
              text += d;
            });
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text || '{}') }));
          });
          req.on('error', reject);
        });
        return { req, response };
      }

      it('streams a 10 MiB upload into the store while the client is still sending it', async () => {
        const body = bigPng(10 * MiB);
        const writes = watchWrites(loc);
        try {
          const { req, response } = startUpload({ 'content-length': body.length });
          req.write(body.subarray(0, MiB));
          // The store holds bytes of this upload while 9 MiB of it have not been sent: the handler
          // is not collecting the body first (if it were, this would wait forever).
          await until(() => writes.received() > 0, writes.subscribe);
          req.end(body.subarray(MiB));
          const res = await response;
          expect(res.status).toBe(201);
          expect(res.body).toMatchObject({ size: body.length, sha256: sha(body) });
          const got = await t.app.inject({ method: 'GET', url: local(res.body.url) });
          expect(got.statusCode).toBe(200);
          expect(got.headers['content-length']).toBe(String(body.length));
          expect(got.rawPayload.equals(body)).toBe(true);
          expect(await store.head(res.body.id)).toMatchObject({ size: body.length });
        } finally {
          writes.stop();
        }
      });

      it('takes a chunked upload (no Content-Length) whole, in parts on S3', async () => {
        const body = bigPng(7 * MiB);
        const before = loc.s3?.log.length ?? 0;
        const { req, response } = startUpload({ 'transfer-encoding': 'chunked' });
        for (let i = 0; i < body.length; i += MiB) req.write(body.subarray(i, i + MiB));
        req.end();
        const res = await response;
        expect(res.status).toBe(201);
        expect(res.body.sha256).toBe(sha(body));
        const got = await t.app.inject({ method: 'GET', url: local(res.body.url) });
        expect(got.rawPayload.equals(body)).toBe(true);
        if (loc.s3) {
          const ops = loc.s3.log.slice(before).map((l) => l.op);
          expect(ops).toContain('CreateMultipartUpload');
          expect(ops.filter((o) => o === 'UploadPart')).toHaveLength(2);
          expect(ops).toContain('CompleteMultipartUpload');
        }
      });

      it('leaves nothing in the store for a refused, oversized, replayed or abandoned upload', async () => {
        const keys = await keysOf(store);
        const call = client(t.app, op);
        // Refused after the body was stored: the purpose is checked by the schema, after parsing.
        expect((await upload(t, op, 'avatar', tinyPng())).status).toBe(422);
        // Over 10 MiB without a Content-Length: refused while streaming, after 10 MiB went to the store.
        const big = await t.app.inject({
          method: 'POST',
          url: '/v1/files?purpose=photo',
          headers: { authorization: `Bearer ${op}`, 'content-type': 'image/png' },
          payload: Readable.from([bigPng(6 * MiB), randomBytes(4 * MiB + 1)]),
        });
        expect(big.statusCode).toBe(413);
        // An idempotent replay answers the first upload; its own copy of the bytes is removed.
        const png = tinyPng(5);
        const headers = { 'content-type': 'image/png', 'idempotency-key': `up-${kind}-${engine}` };
        const first = await call('POST', '/v1/files?purpose=photo', png, headers);
        const again = await call('POST', '/v1/files?purpose=photo', png, headers);
        expect(first.status).toBe(201);
        expect(again.body.id).toBe(first.body.id);
        expect((await keysOf(store)).sort()).toEqual([...keys, first.body.id].sort());
      });

      it('a client that goes away mid-upload leaves no object and no row', async () => {
        const keys = await keysOf(store);
        const rows = async () => (await t.ctx.db.selectFrom('files').select('id').execute()).length;
        const rowsBefore = await rows();
        const writes = watchWrites(loc);
        const inFlight = () => (loc.s3 ? loc.s3.log.filter((l) => l.op === 'PutObject').length : writes.received());
        try {
          const before = loc.s3 ? inFlight() : 0;
          const { req, response } = startUpload({ 'content-length': 4 * MiB });
          response.catch(() => {});
          req.on('error', () => {});
          req.write(bigPng(2 * MiB));
          await until(() => writes.received() > 0, writes.subscribe);
          req.destroy();
          // The store's side of the write ends: S3 answers the cut PUT, the temporary file goes.
          if (loc.s3) await until(() => inFlight() > before, writes.subscribe);
          else
            await until(
              () => writes.received() === 0 && !readdirSync(loc.dir!).some((n) => n.endsWith('.part')),
              writes.subscribe,
            );
        } finally {
          writes.stop();
        }
        expect(await keysOf(store)).toEqual(keys);
        expect(await rows()).toBe(rowsBefore);
      });

      it('signed links work on every instance sharing the database and the store', async () => {
        const png = tinyPng(4);
        const f = (await upload(t, op, 'signature', png)).body;
        const other = await attachApp(t);
        try {
          const got = await other.app.inject({ method: 'GET', url: local(f.url) });
          expect(got.statusCode).toBe(200);
          expect(got.rawPayload.equals(png)).toBe(true);
          // And the other way round: a link the second instance signs opens on the first.
          const again = await client(other.app, op)('GET', `/v1/files/${f.id}`);
          expect((await t.app.inject({ method: 'GET', url: local(again.body.url) })).rawPayload.equals(png)).toBe(true);
        } finally {
          await other.close();
        }
      });

      it('a row without its object is 404; a store that fails is 503 for uploads, links and /readyz', async () => {
        const f = (await upload(t, op, 'photo', tinyPng())).body;
        await store.delete(f.id);
        const gone = await t.app.inject({ method: 'GET', url: local(f.url) });
        expect(gone.statusCode).toBe(404);
        expect(JSON.parse(gone.body).error.code).toBe('resource_missing');

        const kept = (await upload(t, op, 'photo', tinyPng(3))).body;
        // The same database, a store that cannot answer: a directory under a regular file, a bucket
        // that does not exist.
        let broken: string;
        let blocker: string | undefined;
        if (kind === 'file') {
          blocker = join(mkdtempSync(join(tmpdir(), 'ruta-broken-')), 'not-a-dir');
          writeFileSync(blocker, 'x');
          broken = `file:${join(blocker, 'files')}`;
        } else {
          broken = (loc.s3 as S3TestServer).filesUrl('no-such-bucket', 'x');
        }
        const down = await attachApp(t, { RUTA_FILES_URL: broken });
        try {
          const ready = await client(down.app)('GET', '/readyz');
          expect(ready.status).toBe(503);
          expect(ready.body.error).toMatchObject({
            code: 'service_unavailable',
            message: 'The file store is not answering.',
          });
          const up = await upload(down, op, 'photo', tinyPng(6));
          expect(up.status).toBe(503);
          expect(up.body.error.code).toBe('service_unavailable');
          expect(JSON.stringify(up.body)).not.toMatch(/bucket|ENOTDIR|stack/i);
          const read = await down.app.inject({ method: 'GET', url: local(kept.url) });
          expect(read.statusCode).toBe(503);
          const rows = await t.ctx.db.selectFrom('files').select('sha256').execute();
          expect(rows.map((r) => r.sha256)).not.toContain(sha(tinyPng(6)));
          expect((await client(t.app)('GET', '/readyz')).status).toBe(200);
        } finally {
          await down.close();
          if (blocker) rmSync(join(blocker, '..'), { recursive: true, force: true });
        }
      });
    });
  }
});
