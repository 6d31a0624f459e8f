// `npm run bench:plans`: route plans under load (issue #18, defect 9). Starts the built server
// (`dist/cli.js serve`, as `npm start` does) on a fresh database, creates 2000 orders spread over a
// city and 20 couriers, then asks for N plans of all 2000 orders at once and, until every plan has
// ended, samples the server's resident set and the latency of /healthz (one request at a time).
//
//   npm run bench:plans -- [--db sqlite|postgres] [--plans 6] [--orders 2000] [--couriers 20] [--time-limit-ms 10000]
//                          [--concurrency N (RUTA_PLAN_CONCURRENCY)] [--worker (serve --api-only + worker)]
//                          [--dist DIR (another build, e.g. of the commit before, to compare)]
//                          [--osrm (travel from a local OSRM table service, bench/osrm-server.ts, instead of haversine)]
//
// Prints one JSON object: peak RSS of each process, the latency (p50/p99/max) while plans ran of
// /healthz and of an API request that authenticates and reads (`GET /v1/orders?limit=20`), probed
// one at a time in turn, and when each plan started running and ended (seconds after the requests).

import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { BENCH_NODE_FLAGS, type DbKind, freePort, freshDb, machine, ROOT, START_FLAGS, startProcess } from './env.js';

const { values } = parseArgs({
  options: {
    db: { type: 'string', default: 'sqlite' },
    plans: { type: 'string', default: '6' },
    orders: { type: 'string', default: '2000' },
    couriers: { type: 'string', default: '20' },
    'time-limit-ms': { type: 'string', default: '10000' },
    concurrency: { type: 'string' },
    worker: { type: 'boolean', default: false },
    dist: { type: 'string', default: 'dist' },
    osrm: { type: 'boolean', default: false },
  },
});
const kind = values.db as DbKind;
const PLANS = Number(values.plans);
const ORDERS = Number(values.orders);
const COURIERS = Number(values.couriers);
const LIMIT = Number(values['time-limit-ms']);

const rssMb = (pid: number) => {
  try {
    const kb = /VmRSS:\s*(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) / 1024 : 0;
  } catch {
    return 0;
  }
};
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0) : 0;
};
const round = (n: number) => Math.round(n * 10) / 10;
const CLI = `${values.dist}/cli.js`;

/** The CLI of the build under test, --json (cli() in env.ts always runs dist/). */
function cli<T>(databaseUrl: string, args: string[]): T {
  const out = execFileSync(process.execPath, [CLI, ...args, '--json'], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl, RUTA_LOG_LEVEL: 'warn' },
  });
  return JSON.parse(out.toString()) as T;
}

async function main() {
  const db = await freshDb(kind);
  const env: Record<string, string> = { DATABASE_URL: db.url, RUTA_LOG_LEVEL: 'warn' };
  if (values.concurrency) env.RUTA_PLAN_CONCURRENCY = values.concurrency;
  // A 2 000-stop plan's table is ~70 MB of JSON: what the server reads and parses with it is measured too.
  const osrm = values.osrm
    ? await startProcess({
        args: ['--import', 'tsx', 'bench/osrm-server.ts'],
        env: {},
        port: await freePort(),
        name: 'osrm',
      })
    : undefined;
  if (osrm) env.RUTA_OSRM_URL = osrm.base;
  const account = cli<{ account: { id: string }; keys: { test: string } }>(db.url, [
    'accounts',
    'create',
    '--name',
    'Bench',
  ]);
  const operator = cli<{ secret: string }>(db.url, ['keys', 'create', '--operator', '--mode', 'test']).secret;
  const server = await startProcess({
    // BENCH_NODE_FLAGS as in `npm run bench` (e.g. `--cpu-prof --cpu-prof-dir=DIR`: what a plan does on the API's thread).
    args: [...START_FLAGS, ...BENCH_NODE_FLAGS, CLI, 'serve', ...(values.worker ? ['--api-only'] : [])],
    env,
    port: await freePort(),
    name: 'ruta',
  });
  // A worker serves no HTTP: started plainly, stopped with SIGTERM like the server.
  const worker = values.worker
    ? spawn(process.execPath, [...START_FLAGS, CLI, 'worker'], {
        cwd: ROOT,
        env: { ...process.env, ...env },
        stdio: 'inherit',
      })
    : undefined;
  const call = async (key: string, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${server.base}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const json = (await res.json()) as any;
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  try {
    // Orders on a 20 × 100 grid over ~10 km of Lima, created 50 at a time through the API.
    for (let i = 0; i < ORDERS; i += 50) {
      await Promise.all(
        Array.from({ length: Math.min(50, ORDERS - i) }, (_, j) => {
          const n = i + j;
          return call(account.keys.test, 'POST', '/v1/orders', {
            external_order_id: `B-${n}`,
            customer: { name: 'Ana Torres', phone: '+51987654321' },
            delivery_address: {
              address: `Calle ${n}`,
              city: 'Lima',
              lat: -12.05 - (n % 20) * 0.005,
              lng: -77.08 + Math.floor(n / 20) * 0.0009,
            },
            items: [{ description: 'Box', weight_kg: 1 }],
          });
        }),
      );
    }
    const depot = await call(operator, 'POST', '/v1/depots', { name: 'Main', lat: -12.1, lng: -77.04 });
    const couriers: string[] = [];
    for (let i = 0; i < COURIERS; i++) {
      couriers.push((await call(operator, 'POST', '/v1/couriers', { name: `C${i}` })).id);
    }
    const pids = [server.pid, ...(worker?.pid ? [worker.pid] : [])];
    const before = pids.map(rssMb);
    const peak = [...before];
    const sampler = setInterval(() => {
      for (const [i, p] of pids.entries()) peak[i] = Math.max(peak[i] ?? 0, rssMb(p));
    }, 100);
    // Each probe once before the plans: its first answer compiles schemas (~150 ms, once per process),
    // which is not what a plan costs the API.
    await (await fetch(`${server.base}/healthz`)).arrayBuffer();
    await call(account.keys.test, 'GET', '/v1/orders?limit=20');
    const t0 = performance.now();
    const health: number[] = [];
    const list: number[] = [];
    // The slowest probes and when they started (s after the plan requests): which step of a plan stalled the API.
    const slowest: { at: number; ms: number; probe: string }[] = [];
    let probing = true;
    const probe = (async () => {
      for (let n = 0; probing; n++) {
        const t = performance.now();
        const onList = n % 2 === 1;
        const res = await fetch(
          `${server.base}${onList ? '/v1/orders?limit=20' : '/healthz'}`,
          onList ? { headers: { authorization: `Bearer ${account.keys.test}` } } : {},
        );
        await res.arrayBuffer();
        if (!res.ok) throw new Error(`probe: ${res.status}`);
        const ms = performance.now() - t;
        (onList ? list : health).push(ms);
        if (ms > 50) slowest.push({ at: round((t - t0) / 1000), ms: round(ms), probe: onList ? 'orders' : 'healthz' });
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    const ids: string[] = [];
    for (let i = 0; i < PLANS; i++) {
      const body = { date: '2030-01-01', depot: depot.id, couriers: couriers.map((c) => ({ courier_id: c })) };
      ids.push((await call(operator, 'POST', '/v1/route_plans', { ...body, time_limit_ms: LIMIT, seed: i + 1 })).id);
    }
    const seen = new Map<string, { running?: number; ended?: number; status?: string }>(ids.map((id) => [id, {}]));
    while ([...seen.values()].some((s) => s.ended === undefined)) {
      await new Promise((r) => setTimeout(r, 200));
      for (const id of ids) {
        const s = seen.get(id)!;
        if (s.ended !== undefined) continue;
        const p = await call(operator, 'GET', `/v1/route_plans/${id}`);
        const at = (performance.now() - t0) / 1000;
        if (p.status !== 'queued' && s.running === undefined) s.running = at;
        if (p.status === 'succeeded' || p.status === 'failed') Object.assign(s, { ended: at, status: p.status });
      }
    }
    probing = false;
    await probe;
    clearInterval(sampler);
    console.log(
      JSON.stringify(
        {
          machine: machine(),
          db: kind,
          plans: PLANS,
          orders: ORDERS,
          couriers: COURIERS,
          time_limit_ms: LIMIT,
          travel: osrm ? 'osrm (local table service)' : 'haversine',
          build: values.dist,
          concurrency: values.concurrency ?? 'default',
          processes: values.worker ? ['serve --api-only', 'worker'] : ['serve'],
          rss_before_mb: before.map(round),
          rss_peak_mb: peak.map(round),
          healthz_ms: {
            n: health.length,
            p50: round(pct(health, 50)),
            p99: round(pct(health, 99)),
            max: round(Math.max(...health)),
          },
          list_orders_ms: {
            n: list.length,
            p50: round(pct(list, 50)),
            p99: round(pct(list, 99)),
            max: round(Math.max(...list)),
          },
          probes_over_50ms: slowest.sort((a, b) => b.ms - a.ms).slice(0, 10),
          plans_s: [...seen.values()].map((s) => ({
            running: round(s.running ?? -1),
            ended: round(s.ended ?? -1),
            status: s.status,
          })),
        },
        null,
        2,
      ),
    );
  } finally {
    if (worker && worker.exitCode === null) {
      const exited = new Promise((r) => worker.once('exit', r));
      worker.kill('SIGTERM');
      await exited;
    }
    await server.stop();
    await osrm?.stop();
    await db.drop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
