import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openFileStore } from '../src/features/files/store.js';
import { S3TestServer } from './s3-server.js';

/**
 * Which file store test apps get, from TEST_FILES_URL:
 * - unset: a fresh temporary directory per app (`file:`);
 * - `s3`: the local S3 server (test/s3-server.ts), started once per test file, a fresh prefix per
 *   app; its keys go into AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, which the SDK's standard chain
 *   reads (as it would in production), and child processes inherit;
 * - `s3://bucket/prefix?…`: that store (e.g. a MinIO), credentials from the environment, a fresh
 *   prefix per app.
 */
export const FILES_MODE = process.env.TEST_FILES_URL?.trim() || 'file';

export const TEST_BUCKET = 'ruta-test';

let local: Promise<S3TestServer> | undefined;

/** The local S3 server of this test file (one per file, closed when the worker exits). */
export function localS3(): Promise<S3TestServer> {
  local ??= S3TestServer.start({ buckets: [TEST_BUCKET] }).then((s) => {
    process.env.AWS_ACCESS_KEY_ID = s.accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY = s.secretAccessKey;
    return s;
  });
  return local;
}

const fresh = () => `t${process.pid}-${Math.random().toString(36).slice(2, 10)}`;

export interface TestFiles {
  url: string;
  cleanup(): Promise<void>;
}

export async function testFiles(): Promise<TestFiles> {
  if (FILES_MODE === 'file') {
    const dir = mkdtempSync(join(tmpdir(), 'ruta-files-'));
    return { url: `file:${dir}`, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  let url: string;
  if (FILES_MODE === 's3') {
    url = (await localS3()).filesUrl(TEST_BUCKET, fresh());
  } else if (FILES_MODE.startsWith('s3://')) {
    const u = new URL(FILES_MODE);
    u.pathname = `${u.pathname.replace(/\/+$/, '')}/${fresh()}`;
    url = u.toString();
  } else {
    throw new Error(`TEST_FILES_URL must be unset, s3, or an s3:// URL, got "${FILES_MODE}"`);
  }
  return {
    url,
    cleanup: async () => {
      const store = openFileStore(url);
      try {
        for await (const o of store.list()) await store.delete(o.key);
      } finally {
        await store.close();
      }
    },
  };
}
