/**
 * `npx tsx bench/soak.ts [--minutes 10] [--rate N] [--no-kill]` (after `npm run build`): issue #23's soak on
 * PostgreSQL. Three `ruta serve --api-only` instances and two `ruta worker`s on this machine, files
 * in an S3 store (the tests' local S3 server), a merchant's webhook endpoint that verifies every
 * signature. The capacity of creates is measured first (closed loop, 15 s); then for --minutes the
 * clients send, open loop, half of it as creates, plus location pings, photo uploads, a 50-row
 * import every 30 s and a route plan every minute. In the middle a worker and an instance are killed
 * with SIGKILL (the clients fail over, as behind a load balancer). Afterwards it checks: no client
 * error, every order once, every event delivered (repeats counted: delivery is at least once),
 * every upload readable with its bytes, every job finished, and each survivor's RSS after warm-up.
 * Results: bench/results/soak-<time>.json and a table on stdout for BENCHMARKS.md.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { S3TestServer } from '../test/s3-server.js';
import { freePort, freshDb, machine, procStatus, ROOT, START_FLAGS, waitHealthy } from './env.js';
import { percentile } from './scenarios/context.js';
import { Clients, Receiver } from './soak-load.js';

const { values } = parseArgs({
  options: { minutes: { type: 'string', default: '10' }, rate: { type: 'string' }, 'no-kill': { type: 'boolean' } },
});
const MINUTES = Number(values.minutes);
const WARM_UP_MS = Math.min(120_000, (MINUTES * 60_000) / 5);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const rssMb = (pid: number) => procStatus(pid).rss ?? 0;

const db = await freshDb('postgres');
const s3 = await S3TestServer.start({ buckets: ['soak'] });
const receiver = await Receiver.start();
const env: Record<string, string> = {
  ...(process.env as Record<string, string>),
  DATABASE_URL: db.url,
  RUTA_FILES_URL: s3.filesUrl('soak', 'files'),
  AWS_ACCESS_KEY_ID: s3.accessKeyId,
  AWS_SECRET_ACCESS_KEY: s3.secretAccessKey,
  RUTA_WEBHOOK_ALLOW_INSECURE: '1',
  RUTA_LOG_LEVEL: 'warn',
  // The soak measures survival, not the limiter: the clients share one key from one address.
  RUTA_RATE_LIMIT_PER_MIN: '10000000',
};
const run = (args: string[]) => execFileSync(process.execPath, ['dist/cli.js', ...args], { cwd: ROOT, env }).toString();

interface Proc {
  name: string;
  child: ChildProcess;
  base?: string;
  killed: boolean;
  rss: { at: number; mb: number }[];
}
const procs: Proc[] = [];
async function start(name: string, args: string[], port?: number): Promise<Proc> {
  const child = spawn(process.execPath, [...START_FLAGS, 'dist/cli.js', ...args], {
    cwd: ROOT,
    env: { ...env, ...(port ? { PORT: String(port), HOST: '127.0.0.1' } : {}) },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const p: Proc = { name, child, killed: false, rss: [] };
  if (port) {
    p.base = `http://127.0.0.1:${port}`;
    await waitHealthy(p.base, child, 60_000);
  }
  procs.push(p);
  return p;
}

const report: Record<string, unknown> = { machine: machine(), minutes: MINUTES };
try {
  run(['migrate']);
  const account = JSON.parse(run(['accounts', 'create', '--name', 'Soak', '--json'])) as {
    keys: { test: string };
  };
  const merchant = account.keys.test;
  const operator = run(['keys', 'create', '--operator', '--mode', 'test']).trim().split('\n').pop() as string;
  const apis: Proc[] = [];
  for (let i = 1; i <= 3; i++) apis.push(await start(`api-${i}`, ['serve', '--api-only'], await freePort()));
  const workers = [await start('worker-1', ['worker']), await start('worker-2', ['worker'])];
  const clients = new Clients(
    apis.map((a) => a.base as string),
    (base) => !apis.find((a) => a.base === base)?.killed,
  );
  const post = (kind: string, path: string, key: string, body: unknown, idem?: string) =>
    clients.send(kind, path, {
      method: 'POST',
      key,
      idempotencyKey: idem,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }) as Promise<Record<string, unknown> | undefined>;

  const secret = (await post('setup', '/v1/webhook_endpoints', merchant, { url: receiver.url, events: ['*'] }))
    ?.secret as string;
  receiver.secret = secret;
  const depot = (await post('setup', '/v1/depots', operator, { name: 'Soak', lat: -12.1, lng: -77.03 }))?.id;
  const couriers: string[] = [];
  for (let i = 0; i < 4; i++) {
    couriers.push(
      (await post('setup', '/v1/couriers', operator, { name: `Courier ${i}`, vehicle: 'car' }))?.id as string,
    );
  }

  let n = 0;
  const created: string[] = [];
  const order = (i: number) => ({
    external_order_id: `soak-${i}`,
    customer: { name: 'Ana Torres', phone: '+51987654321' },
    delivery_address: {
      address: `Av. Larco ${i}`,
      city: 'Lima',
      lat: -12.12 + (i % 50) / 1000,
      lng: -77.03 - (i % 37) / 1000,
    },
    items: [{ description: 'Box', weight_kg: 1 }],
  });
  const create = async () => {
    const i = n++;
    const o = await post('create', '/v1/orders', merchant, order(i), `soak-create-${i}`);
    if (o) created.push(o.id as string);
  };

  // Capacity: 32 creates in flight for 15 s, round-robin over the three instances.
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (performance.now() - t0 < 15_000) await create();
    }),
  );
  const capacity = (clients.stats.get('create')?.ok ?? 0) / 15;
  const rate = values.rate ? Number(values.rate) : Math.max(1, Math.round(capacity / 2));
  report.capacity_creates_per_s = Math.round(capacity);
  report.rate_creates_per_s = rate;
  console.log(`capacity ${capacity.toFixed(0)} creates/s; soak at ${rate}/s for ${MINUTES} min`);

  const uploads: { id: string; sha: string }[] = [];
  const imports: string[] = [];
  const plans: string[] = [];
  const png = readFileSync(join(ROOT, 'docs/examples/signature.png'));
  const soakStart = Date.now();
  const end = soakStart + MINUTES * 60_000;
  let tick = 0;
  let killedAt = 0;
  while (Date.now() < end) {
    const second = Date.now();
    for (let k = 0; k < rate; k++) void create();
    for (const c of couriers) {
      void post('location', `/v1/couriers/${c}/location`, operator, { lat: -12.1 + Math.random() / 100, lng: -77.03 });
    }
    if (tick % 2 === 0) {
      const body = Buffer.concat([png, randomBytes(2048)]);
      const sha = createHash('sha256').update(body).digest('hex');
      void clients
        .send('upload', '/v1/files?purpose=photo', {
          method: 'POST',
          key: operator,
          idempotencyKey: `soak-file-${tick}`,
          headers: { 'content-type': 'image/png' },
          body,
        })
        .then((f) => f && uploads.push({ id: (f as { id: string }).id, sha }));
    }
    if (tick % 30 === 15) {
      const rows = Array.from(
        { length: 50 },
        (_, r) =>
          `soak-imp-${tick}-${r},Luis Diaz,+51987000${String(r).padStart(3, '0')},Jr. Ica ${r},Lima,-12.05,-77.04,Caja,1`,
      );
      const csv = `external_order_id,customer_name,customer_phone,address,city,lat,lng,item_description,item_weight_kg\n${rows.join('\n')}\n`;
      void clients
        .send('import', '/v1/order_imports', {
          method: 'POST',
          key: merchant,
          idempotencyKey: `soak-import-${tick}`,
          headers: { 'content-type': 'text/csv' },
          body: csv,
        })
        .then((imp) => imp && imports.push((imp as { id: string }).id));
    }
    if (tick % 60 === 45 && created.length >= 20) {
      const date = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
      void post('plan', '/v1/route_plans', operator, {
        date,
        depot,
        couriers: couriers.slice(0, 2).map((courier_id) => ({ courier_id })),
        order_ids: created.slice(-20),
        time_limit_ms: 2000,
      }).then((p) => p && plans.push(p.id as string));
    }
    if (!values['no-kill'] && !killedAt && Date.now() - soakStart >= (MINUTES * 60_000) / 2) {
      // The middle: a worker and an instance die without warning.
      for (const p of [workers[0], apis[1]] as Proc[]) {
        p.killed = true;
        p.child.kill('SIGKILL');
      }
      killedAt = Date.now() - soakStart;
      console.log(`killed worker-1 and api-2 at ${(killedAt / 1000).toFixed(0)} s`);
    }
    if (tick % 10 === 0)
      for (const p of procs)
        if (!p.killed) p.rss.push({ at: Date.now() - soakStart, mb: rssMb(p.child.pid as number) });
    tick++;
    await sleep(Math.max(0, 1000 - (Date.now() - second)));
  }
  await clients.drain();
  report.killed_at_s = Math.round(killedAt / 1000);

  // Everything settles: deliveries sent, imports and plans finished, no job left.
  const pgc = new pg.Client({ connectionString: db.url });
  await pgc.connect();
  const one = async (sql: string) => (await pgc.query(sql)).rows[0] as Record<string, string>;
  const settleStart = Date.now();
  for (;;) {
    const left = await one(`select
      (select count(*) from webhook_deliveries where status = 'pending') as deliveries,
      (select count(*) from order_imports where status in ('queued', 'processing')) as imports,
      (select count(*) from route_plans where status in ('queued', 'running')) as plans,
      (select count(*) from jobs where status <> 'failed') as jobs`);
    if (Object.values(left).every((v) => Number(v) === 0) || Date.now() - settleStart > 180_000) {
      report.left_after_settling = left;
      break;
    }
    await sleep(1000);
  }
  report.settle_s = Math.round((Date.now() - settleStart) / 1000);

  const orders = await one(`select count(*) as n, count(distinct external_order_id) as refs,
    count(*) filter (where external_order_id like 'soak-imp-%') as imported from orders`);
  const events = await one(`select count(*) as n from events`);
  const deliveries = await one(`select count(*) filter (where status = 'succeeded') as ok,
    count(*) filter (where status = 'failed') as failed from webhook_deliveries where kind = 'event'`);
  const importsDone = await one(
    `select count(*) filter (where status = 'succeeded') as ok, count(*) as n from order_imports`,
  );
  const plansDone = await one(
    `select count(*) filter (where status = 'succeeded') as ok, count(*) as n from route_plans`,
  );
  const failedJobs = await one(`select count(*) as n from jobs where status = 'failed'`);
  await pgc.end();

  let filesOk = 0;
  const live = apis.find((a) => !a.killed)?.base as string;
  for (const u of uploads) {
    const meta = (await (
      await fetch(`${live}/v1/files/${u.id}`, { headers: { authorization: `Bearer ${operator}` } })
    ).json()) as { url: string };
    const bytes = Buffer.from(await (await fetch(meta.url.replace(/^https?:\/\/[^/]+/, live))).arrayBuffer());
    if (createHash('sha256').update(bytes).digest('hex') === u.sha) filesOk++;
  }
  const received = new Set(receiver.seen.keys());

  report.clients = Object.fromEntries(
    [...clients.stats].map(([k, s]) => [
      k,
      {
        ok: s.ok,
        errors: s.errors,
        failovers: s.failovers,
        p99_ms: Math.round(percentile(s.latencies, 99)),
        samples: s.samples,
      },
    ]),
  );
  report.orders = {
    rows: Number(orders.n),
    distinct_references: Number(orders.refs),
    created_by_clients: clients.stats.get('create')?.ok ?? 0,
    imported: Number(orders.imported),
  };
  report.webhooks = {
    events: Number(events.n),
    deliveries_succeeded: Number(deliveries.ok),
    deliveries_failed: Number(deliveries.failed),
    distinct_events_received: received.size,
    repeats: receiver.repeats(),
    bad_signatures: receiver.badSignatures,
  };
  report.imports = { succeeded: Number(importsDone.ok), of: Number(importsDone.n), sent: imports.length };
  report.plans = { succeeded: Number(plansDone.ok), of: Number(plansDone.n), sent: plans.length };
  report.jobs_failed = Number(failedJobs.n);
  report.files = { readable_with_their_bytes: filesOk, of: uploads.length };
  report.rss_mb = Object.fromEntries(
    procs.map((p) => {
      const after = p.rss.filter((r) => r.at >= WARM_UP_MS);
      const first = after[0]?.mb ?? 0;
      const last = after.at(-1)?.mb ?? 0;
      return [
        p.name,
        {
          after_warm_up: Math.round(first),
          end: Math.round(last),
          growth_pct: first ? Math.round(((last - first) / first) * 1000) / 10 : null,
          killed: p.killed,
        },
      ];
    }),
  );
  report.load_avg_at_end = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).map(Number);
} finally {
  for (const p of procs) if (!p.killed) p.child.kill('SIGTERM');
  await Promise.all(procs.filter((p) => !p.killed).map((p) => new Promise((r) => p.child.once('exit', r))));
  await receiver.close();
  await s3.close();
  await db.drop();
}

mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
const file = join(ROOT, `bench/results/soak-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
console.log(JSON.stringify(report, null, 2));
console.log(`written to ${file}`);
