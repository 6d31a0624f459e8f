/**
 * `npx tsx bench/webhook-drain.ts`: one `ruta worker` (the built `dist/`, or `BENCH_ROOT`'s) drains
 * N queued deliveries (N=10000) on a fresh PostgreSQL database into a loopback receiver. Besides
 * the rate it reports what a loaded machine disturbs much less: the worker's CPU per delivery (from
 * /proc) and PostgreSQL transactions per delivery (`pg_stat_database.xact_commit`; every statement
 * of the worker runs in autocommit, so this counts its round trips that write or read). The backlog
 * is written with SQL (events with a realistic order.created payload, one delivery each), so a run
 * takes seconds. `BENCH_WORKER_PROF=DIR` CPU-profiles the worker. The backlog is ANALYZEd before the
 * worker starts; `NO_ANALYZE=1` leaves the statistics stale, as a burst leaves them in production.
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import pg from 'pg';
import { cpuMs, ROOT as HERE, PG_ADMIN_URL, START_FLAGS } from './env.js';

const ROOT = process.env.BENCH_ROOT ?? HERE;
const N = Number(process.env.N ?? 10_000);
const name = `ruta_drain_${Date.now()}_${process.pid}`;
const url = new URL(PG_ADMIN_URL);
url.pathname = `/${name}`;
const loadavg = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
await admin.connect();
await admin.query(`create database ${name}`);
const env = { ...process.env, DATABASE_URL: url.toString(), RUTA_LOG_LEVEL: 'warn', RUTA_WEBHOOK_ALLOW_INSECURE: '1' };
try {
  const created = execFileSync(process.execPath, ['dist/cli.js', 'accounts', 'create', '--name', 'Drain', '--json'], {
    cwd: ROOT,
    env,
  });
  const accountId = JSON.parse(created.toString()).account.id as string;

  const seen = new Map<string, number>();
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const id = JSON.parse(Buffer.concat(chunks).toString('utf8')).id as string;
      if (!seen.has(id)) seen.set(id, Date.now());
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': 2 });
      res.end('{}');
    });
  });
  receiver.keepAliveTimeout = 30_000;
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const port = (receiver.address() as { port: number }).port;

  const now = Date.now();
  const payload = (id: string, i: number) =>
    JSON.stringify({
      id,
      object: 'event',
      event: 'order.created',
      api_version: '2025-07-01',
      created_at: new Date(now).toISOString(),
      livemode: false,
      data: {
        id: `ord_${i}`,
        object: 'order',
        status: 'pending',
        sequence: 1,
        customer: { name: 'Ana Perez', phone: '+15555550100', email: 'ana@example.com' },
        delivery: { address: { line1: 'Calle Mayor 1', city: 'Madrid', country: 'ES' }, lat: 40.41, lng: -3.7 },
        items: [
          { name: 'Box', quantity: 1, weight_kg: 1.2 },
          { name: 'Bag', quantity: 2, weight_kg: 0.4 },
        ],
        notes: 'x'.repeat(200),
      },
    });
  const db = new pg.Client({ connectionString: url.toString() });
  await db.connect();
  await db.query(
    `insert into webhook_endpoints (id, account_id, mode, url, events, secret, status, created_at, updated_at)
     values ('we_drain', $1, 'test', $2, '["*"]', $3, 'enabled', $4, $4)`,
    [accountId, `http://127.0.0.1:${port}/hook`, `whsec_${randomBytes(32).toString('base64')}`, now],
  );
  for (let k = 0; k < N; k += 1000) {
    const n = Array.from({ length: Math.min(1000, N - k) }, (_, j) => k + j);
    const ids = n.map((i) => `evt_drain_${String(i).padStart(6, '0')}`);
    await db.query(
      `insert into events (id, account_id, mode, type, order_id, payload, created_at)
       select id, $2, 'test', 'order.created', 'ord_' || n, p, $3 from unnest($1::text[], $4::text[], $5::int[]) t(id, p, n)`,
      [ids, accountId, now, ids.map((id, j) => payload(id, n[j]!)), n],
    );
    await db.query(
      `insert into webhook_deliveries (id, event_id, endpoint_id, account_id, mode, order_id, sequence, kind, status,
         attempts, next_attempt_at, created_at)
       select 'whd_' || id, id, 'we_drain', $2, 'test', 'ord_' || n, 1, 'event', 'pending', 0, $3, $3
       from unnest($1::text[], $4::int[]) t(id, n)`,
      [ids, accountId, now, n],
    );
  }
  if (!process.env.NO_ANALYZE) await db.query('analyze');
  await db.end();

  const xacts = async () =>
    Number(
      (await admin.query('select xact_commit from pg_stat_database where datname = $1', [name])).rows[0].xact_commit,
    );
  const prof = process.env.BENCH_WORKER_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_WORKER_PROF}`] : [];
  const loadAtStart = loadavg();
  const worker = spawn(process.execPath, [...START_FLAGS, ...prof, 'dist/cli.js', 'worker'], {
    cwd: ROOT,
    env,
    stdio: 'inherit',
  });
  // Counted from the first arrival, so the worker's start-up is left out.
  while (seen.size === 0) await new Promise((r) => setTimeout(r, 2));
  const [cpu0, x0, s0] = [cpuMs(worker.pid!), await xacts(), seen.size];
  const deadline = Date.now() + 180_000;
  while (seen.size < N && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  const [cpu1, x1, s1] = [cpuMs(worker.pid!), await xacts(), seen.size];
  worker.kill('SIGTERM');
  await new Promise((r) => worker.once('exit', r));
  receiver.closeAllConnections();
  receiver.close();
  const at = [...seen.values()];
  const perS = (at.length - 1) / ((Math.max(...at) - Math.min(...at)) / 1000);
  console.log(
    JSON.stringify({
      delivered: s1,
      deliveries_per_s: Math.round(perS),
      worker_cpu_ms_per_delivery: +((cpu1 - cpu0) / (s1 - s0)).toFixed(3),
      pg_xacts_per_delivery: +((x1 - x0) / (s1 - s0)).toFixed(3),
      load_at_start: loadAtStart,
      load_at_end: loadavg(),
    }),
  );
} finally {
  await admin.query(`drop database if exists ${name} with (force)`);
  await admin.end();
}
