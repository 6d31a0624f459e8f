import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/shared/config.js';
import { type Database, type Engine, openDatabase } from '../src/shared/db/index.js';
import { client, describeEach, freshDatabaseUrl, type TestDb } from './helpers.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI from source, exactly as `ruta …` would, against one database. */
function ruta(url: string, ...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'src/cli.ts', ...args],
      { cwd: ROOT, env: { ...process.env, DATABASE_URL: url, RUTA_LOG_LEVEL: 'silent' }, timeout: 120_000 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

const ID = '[0-9A-Z]{26}';
const SECRET = '[0-9A-Za-z]{32}';
/** Each run starts Node and tsx (seconds on a busy machine), so these tests get a long budget. */
const SLOW = 240_000;

describeEach('cli', (engine: Engine) => {
  let tdb: TestDb;
  let database: Database;

  beforeAll(async () => {
    tdb = await freshDatabaseUrl(engine);
  });
  afterAll(async () => {
    await database?.close();
    await tdb?.drop();
  });

  /** An API server over the CLI's database, to prove what the CLI printed actually works. */
  async function api() {
    database ??= openDatabase(tdb.url, { poolSize: 2 });
    const config = loadConfig({ DATABASE_URL: tdb.url, RUTA_LOG_LEVEL: 'silent' });
    const app = await buildApp({ config, database, db: database.db });
    await app.ready();
    return app;
  }

  it(
    'migrate applies the migrations, then finds nothing to do',
    async () => {
      const first = await ruta(tdb.url, 'migrate');
      expect(first.stderr).toBe('');
      expect(first.code).toBe(0);
      expect(first.stdout).toMatch(/^applied: 001_core/);
      const second = await ruta(tdb.url, 'migrate');
      expect(second.code).toBe(0);
      expect(second.stdout).toBe('database is up to date\n');
    },
    SLOW,
  );

  it(
    'accounts create --json prints exactly the account and its two keys, which work',
    async () => {
      const run = await ruta(tdb.url, 'accounts', 'create', '--name', 'Acme Perú', '--json');
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(
        new RegExp(
          `^\\{"account":\\{"id":"acct_${ID}","name":"Acme Perú"\\},"keys":\\{"test":"sk_test_${SECRET}","live":"sk_live_${SECRET}"\\}\\}\\n$`,
        ),
      );
      const out = JSON.parse(run.stdout);
      const app = await api();
      try {
        const created = await client(app, out.keys.test)('POST', '/v1/orders', {
          customer: { name: 'Ana' },
          delivery_address: { address: 'Av. Larco 123' },
        });
        expect(created.status).toBe(201);
        expect(created.body.livemode).toBe(false);
        expect((await client(app, out.keys.live)('GET', `/v1/orders/${created.body.id}`)).status).toBe(404);
      } finally {
        await app.close();
      }
    },
    SLOW,
  );

  it(
    'keys create prints {id, secret, mode, role}; keys revoke makes the key fail with 401',
    async () => {
      const acct = JSON.parse((await ruta(tdb.url, 'accounts', 'create', '--name', 'K', '--json')).stdout).account.id;
      const live = await ruta(tdb.url, 'keys', 'create', '--account', acct, '--mode', 'live', '--json');
      expect(live.code).toBe(0);
      expect(live.stdout).toMatch(
        new RegExp(`^\\{"id":"key_${ID}","secret":"sk_live_${SECRET}","mode":"live","role":"merchant"\\}\\n$`),
      );
      const op = await ruta(tdb.url, 'keys', 'create', '--operator', '--mode', 'test', '--json');
      expect(op.code).toBe(0);
      expect(op.stdout).toMatch(
        new RegExp(`^\\{"id":"key_${ID}","secret":"ok_test_${SECRET}","mode":"test","role":"operator"\\}\\n$`),
      );
      const human = await ruta(tdb.url, 'keys', 'create', '--account', acct, '--mode', 'test');
      expect(human.code).toBe(0);
      expect(human.stdout).toMatch(new RegExp(`sk_test_${SECRET}`));
      expect(human.stdout).toMatch(/shown once/i);

      const key = JSON.parse(live.stdout);
      const operator = JSON.parse(op.stdout);
      const app = await api();
      try {
        expect((await client(app, key.secret)('GET', '/v1/orders')).status).toBe(200);
        expect((await client(app, operator.secret)('GET', '/v1/orders')).status).toBe(200);
        expect((await client(app, operator.secret)('POST', '/v1/orders', {})).status).toBe(403);
        const revoked = await ruta(tdb.url, 'keys', 'revoke', key.id);
        expect(revoked.code).toBe(0);
        expect(revoked.stdout).toContain(key.id);
        const res = await client(app, key.secret)('GET', '/v1/orders');
        expect(res.status).toBe(401);
        expect(res.body.error.type).toBe('authentication_error');
        expect((await client(app, operator.secret)('GET', '/v1/orders')).status).toBe(200);
        const again = await ruta(tdb.url, 'keys', 'revoke', key.id);
        expect(again.code).toBe(0);
        expect(again.stdout).toMatch(/already revoked/);
      } finally {
        await app.close();
      }
    },
    SLOW,
  );

  it(
    'bad usage exits 2 with a message and prints nothing on stdout',
    async () => {
      const usage: [string[], RegExp][] = [
        [['accounts', 'create'], /--name is required/],
        [['accounts', 'create', '--name', '   '], /name/],
        [['accounts', 'create', '--name', 'X', '--currency', 'EURO'], /currency/],
        [['accounts', 'create', '--name', 'X', '--origin-lat', '100', '--origin-lng', '0'], /origin-lat/],
        [['accounts', 'create', '--name', 'X', '--origin-lat', '10'], /origin-lng/],
        [['accounts', 'create', '--name', 'X', '--origin-lat', 'abc', '--origin-lng', '1'], /origin-lat/],
        [['accounts', 'create', '--name', 'X', '--bogus'], /bogus/],
        [['keys', 'create', '--mode', 'test'], /--account ID or --operator/],
        [['keys', 'create', '--operator', '--account', 'acct_x', '--mode', 'test'], /--account ID or --operator/],
        [['keys', 'create', '--operator', '--mode', 'prod'], /--mode must be test or live/],
        [['keys', 'create', '--operator'], /--mode must be test or live/],
        [['keys', 'revoke'], /KEY_ID/],
        [['frobnicate'], /unknown command/],
        [['keys', 'delete', 'x'], /unknown command/],
        [['keys', 'revoke', 'a', 'b'], /unexpected argument/],
      ];
      // Argument checks do not depend on the engine; lookups do, so they run on both.
      const lookups: [string[], RegExp][] = [
        [['keys', 'create', '--account', 'acct_nope', '--mode', 'test'], /no such account/],
        [['keys', 'revoke', 'key_nope'], /no such key/],
      ];
      const cases = engine === 'sqlite' ? [...usage, ...lookups] : lookups;
      // None of these should open the database; they run four at a time to keep the suite quick.
      const runs: Run[] = [];
      for (let i = 0; i < cases.length; i += 4) {
        runs.push(...(await Promise.all(cases.slice(i, i + 4).map(([args]) => ruta(tdb.url, ...args)))));
      }
      for (const [i, [args, message]] of cases.entries()) {
        const run = runs[i];
        expect(run.code, args.join(' ')).toBe(2);
        expect(run.stderr, args.join(' ')).toMatch(message);
        expect(run.stderr, args.join(' ')).toContain('Usage: ruta');
        expect(run.stdout, args.join(' ')).toBe('');
      }
      const help = await ruta(tdb.url, '--help');
      expect(help.code).toBe(0);
      expect(help.stdout).toContain('keys revoke KEY_ID');
    },
    SLOW,
  );
});
