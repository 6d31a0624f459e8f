import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { importCsv } from '../bench/scenarios/import-files.js';
import { loadConfig } from '../src/shared/config.js';
import { createContext } from '../src/shared/context.js';
import { type Database, type Engine, openDatabase } from '../src/shared/db/index.js';
import { RUTA_CLI } from './cli-run.js';
import { describeEach, freshDatabaseUrl, type TestDb } from './helpers.js';
import { csv, drain, good, HEADER } from './imports-helpers.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SLOW = 240_000;

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

describeEach('ruta orders import', (engine: Engine) => {
  let tdb: TestDb;
  let dir: string;
  let database: Database | undefined;
  beforeAll(async () => {
    tdb = await freshDatabaseUrl(engine);
    dir = mkdtempSync(join(tmpdir(), 'ruta-import-cli-'));
  });
  afterAll(async () => {
    await database?.close();
    await tdb?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    'imports a file, prints the rejected rows, and exits 0 (all imported), 3 (some rejected), 1 (refused) or 2 (usage)',
    async () => {
      const acct = await ruta(tdb.url, 'accounts', 'create', '--name', 'Cli', '--json');
      const account = JSON.parse(acct.stdout).account.id as string;
      const mixed = join(dir, 'mixed.csv');
      writeFileSync(mixed, csv([HEADER, good(1), [...good(2).slice(0, 2), '123', ...good(2).slice(3)]]));
      const r = await ruta(tdb.url, 'orders', 'import', mixed, '--account', account, '--mode', 'test');
      expect(r.code, r.stderr).toBe(3);
      expect(r.stdout).toMatch(/^Import imp_\w+: succeeded\. 1 order created, 1 row rejected \(of 2\)\./);
      expect(r.stdout).toContain('row 3 [customer_phone]: Invalid customer.phone');
      // Not a terminal: one plain progress line per batch on stderr.
      expect(r.stderr).toContain('100% 2/2 rows · 1 created · 1 failed');

      const clean = join(dir, 'clean.csv');
      writeFileSync(clean, csv([HEADER, good(3), good(4)]));
      const j = await ruta(tdb.url, 'orders', 'import', clean, '--account', account, '--mode', 'live', '--json');
      expect(j.code, j.stderr).toBe(0);
      expect(JSON.parse(j.stdout)).toMatchObject({ object: 'order_import', livemode: true, created: 2, failed: 0 });
      // The same file again with --skip-duplicates: nothing new, nothing wrong (exit 0), no order made twice.
      const again = await ruta(
        tdb.url,
        'orders',
        'import',
        clean,
        '--account',
        account,
        '--mode',
        'live',
        '--skip-duplicates',
      );
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).toMatch(
        /^Import imp_\w+: succeeded\. 0 orders created, 0 rows rejected, 2 orders skipped \(external_order_id already taken\) \(of 2\)\.\nWarnings:\n {2}row 2 \[external_order_id\]: Skipped: external_order_id "EXT-3" already belongs to order ord_\w+; no order was created from this row\. \(duplicate_external_order_id\)\n/,
      );
      expect(again.stderr).toContain('100% 2/2 rows · 0 created · 0 failed · 2 skipped');

      const latin1 = join(dir, 'latin1.csv');
      writeFileSync(latin1, Buffer.from('customer_name,address\nJos\xe9,Av 1\n', 'latin1'));
      const refused = await ruta(tdb.url, 'orders', 'import', latin1, '--account', account, '--mode', 'test');
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('UTF-8');

      const usage = await ruta(tdb.url, 'orders', 'import', clean, '--account', account, '--mode', 'prod');
      expect(usage.code).toBe(2);
      expect(usage.stderr).toContain('--mode must be test or live');

      database = openDatabase(tdb.url, { poolSize: 2 });
      // This account's orders only: the file's other test imports thousands into the same database.
      const orders = await database.db
        .selectFrom('orders')
        .select(['mode', 'source'])
        .where('account_id', '=', account)
        .execute();
      expect(orders.map((o) => `${o.mode}:${o.source}`).sort()).toEqual(['live:excel', 'live:excel', 'test:excel']);
    },
    SLOW,
  );

  /** `ruta serve` on the test database, on a free port; resolves once it listens. */
  async function serve(): Promise<{ child: ChildProcess; port: number }> {
    const child = spawn(process.execPath, [...RUTA_CLI, 'serve'], {
      cwd: ROOT,
      env: {
        ...process.env,
        DATABASE_URL: tdb.url,
        PORT: '0',
        HOST: '127.0.0.1',
        RUTA_FILES_DIR: dir,
        RUTA_LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const port = await new Promise<number>((resolve, reject) => {
      child.stdout?.on('data', (d) => {
        out += d;
        const m = /"port":(\d+).*"msg":"ruta listening"/.exec(out);
        if (m) resolve(Number(m[1]));
      });
      child.on('exit', () => reject(new Error(`server exited early:\n${out}`)));
    });
    return { child, port };
  }

  it(
    'ruta serve runs uploads in the background; killed with -9 mid-import, the import finishes later without a duplicate',
    async () => {
      const acct = await ruta(tdb.url, 'accounts', 'create', '--name', 'Served', '--json');
      const { account, keys } = JSON.parse(acct.stdout) as { account: { id: string }; keys: { test: string } };
      const { child, port } = await serve();
      const base = `http://127.0.0.1:${port}/v1/order_imports`;
      const auth = { authorization: `Bearer ${keys.test}` };
      try {
        const res = await fetch(base, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'text/csv' },
          body: importCsv(),
        });
        expect(res.status).toBe(202);
        const { id } = (await res.json()) as { id: string };
        // Killed as soon as some batches have committed and others have not.
        let seen = { status: 'queued', processed_rows: 0, total_rows: 0 };
        while (seen.status !== 'succeeded' && seen.processed_rows < 400) {
          await new Promise((r) => setTimeout(r, 10));
          seen = (await (await fetch(`${base}/${id}`, { headers: auth })).json()) as typeof seen;
        }
        child.kill('SIGKILL');
        await new Promise((r) => child.once('exit', r));
        expect(seen.status, 'killed mid-import').toBe('processing');

        database ??= openDatabase(tdb.url, { poolSize: 2 });
        const db = database.db;
        const mid = await db.selectFrom('order_imports').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
        expect(mid.status).toBe('processing');
        expect(mid.processed_rows).toBeLessThan(mid.total_rows);
        // What committed is whole: every processed row is an order, no more.
        const countOrders = async () =>
          Number(
            (
              await db
                .selectFrom('order_import_orders')
                .select((eb) => eb.fn.countAll().as('n'))
                .where('import_id', '=', id)
                .executeTakeFirstOrThrow()
            ).n,
          );
        expect(await countOrders()).toBe(mid.processed_rows);

        // A worker that starts after the dead one's lease has lapsed finishes the import.
        const config = loadConfig({ DATABASE_URL: tdb.url, RUTA_LOG_LEVEL: 'silent' });
        const later = createContext(database, config, { clock: () => Date.now() + 120_000 });
        await drain({ ctx: later });
        const done = await db.selectFrom('order_imports').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
        expect(done).toMatchObject({
          status: 'succeeded',
          processed_rows: 10_000,
          created_orders: 10_000,
          failed_rows: 0,
        });
        expect(await countOrders()).toBe(10_000);
        const orders = await db
          .selectFrom('orders')
          .select((eb) => [eb.fn.countAll().as('n'), eb.fn.count('external_order_id').distinct().as('distinct')])
          .where('account_id', '=', account.id)
          .where('external_order_id', 'like', 'BULK-%')
          .executeTakeFirstOrThrow();
        expect([Number(orders.n), Number(orders.distinct)]).toEqual([10_000, 10_000]);
      } finally {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      }
    },
    SLOW,
  );
});
