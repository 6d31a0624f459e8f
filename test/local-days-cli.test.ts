import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/shared/config.js';
import { createContext } from '../src/shared/context.js';
import { type Database, type Engine, openDatabase } from '../src/shared/db/index.js';
import { RUTA_CLI } from './cli-run.js';
import { client, describeEach, freshDatabaseUrl, type TestDb, validOrder } from './helpers.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Runs the CLI as `ruta …` would (Node starts: a second or more on a busy machine). */
function ruta(url: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...RUTA_CLI, ...args],
      { cwd: ROOT, env: { ...process.env, DATABASE_URL: url, RUTA_LOG_LEVEL: 'silent' }, timeout: 120_000 },
      (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
    );
  });
}

/** `ruta accounts create --timezone` (docs/api.md "Dates and time zones"): the account's days are in its zone. */
describeEach('accounts create --timezone', (engine: Engine) => {
  let tdb: TestDb;
  let database: Database | undefined;

  beforeAll(async () => {
    tdb = await freshDatabaseUrl(engine);
  });
  afterAll(async () => {
    await database?.close();
    await tdb?.drop();
  });

  it('creates an account whose plain days are Tokyo days', async () => {
    const run = await ruta(tdb.url, 'accounts', 'create', '--name', 'Tokyo Shop', '--timezone', 'Asia/Tokyo', '--json');
    expect([run.code, run.stderr]).toEqual([0, '']);
    const { keys } = JSON.parse(run.stdout);
    database = openDatabase(tdb.url, { poolSize: 2 });
    const app = await buildApp(
      createContext(database, loadConfig({ DATABASE_URL: tdb.url, RUTA_LOG_LEVEL: 'silent' })),
    );
    await app.ready();
    try {
      const made = await client(app, keys.test)('POST', '/v1/orders', validOrder({ requested_date: '2026-11-25' }));
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      expect(made.body).toMatchObject({
        requested_date: '2026-11-25T00:00:00+09:00',
        requested_day: '2026-11-25',
        timezone: 'Asia/Tokyo',
      });
    } finally {
      await app.close();
    }
  }, 240_000);
});
