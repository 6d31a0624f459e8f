import { readFileSync } from 'node:fs';
import { freePort, type ProbeWindow, ROOT, type Server, startProcess } from '../env.js';
import { type Loader, type LoadResult, runLoad } from '../load.js';
import { type Ctx, checked, round } from './context.js';

/** A realistic merchant order: customer, geocoded address, two items, cash on delivery. */
export const ORDER_BODY = {
  external_order_id: 'SHOP-100234',
  source: 'ecommerce',
  customer: { name: 'María Fernanda Quispe', phone: '+51987654321', email: 'maria.quispe@example.com' },
  delivery_address: {
    address: 'Av. José Larco 1232, Dpto 502',
    district: 'Miraflores',
    city: 'Lima',
    department: 'Lima',
    lat: -12.1254,
    lng: -77.0296,
    reference: 'Frente al parque, edificio azul',
  },
  items: [
    { sku: 'TSHIRT-M-BLK', description: 'T-shirt, black, M', quantity: 2, weight_kg: 0.25, declared_value: 39.9 },
    { sku: 'SNEAKER-42', description: 'Running sneakers, size 42', quantity: 1, weight_kg: 1.1, declared_value: 249 },
  ],
  cash_on_delivery: 328.8,
  customer_notes: 'Call on arrival',
  metadata: { channel: 'web', cart: 'c_88231' },
};

const BODY = JSON.stringify(ORDER_BODY);
export const CONNECTIONS = 32;

export function createLoad(loader: Loader, base: string, key: string, seconds: number): Promise<LoadResult> {
  return runLoad(loader, {
    base,
    headers: { Authorization: `Bearer ${key}` },
    requests: [{ method: 'POST', path: '/v1/orders', body: BODY }],
    connections: CONNECTIONS,
    seconds,
  });
}

/** One load round as the client saw it and as the server's event loop and GC saw it meanwhile. */
export interface CreateRound {
  rps: number;
  p50_ms: number;
  p99_ms: number;
  /** Event-loop delay inside the server over the round (1 ms resolution), ms. */
  loop_p99_ms: number | null;
  loop_max_ms: number | null;
  /**
   * POST /v1/orders as the server timed it (Fastify, from the parsed request to the response), from
   * the /metrics histogram over the round: the bucket bounds its p50 and p99 fall in, ms. Null for
   * the reference (no /metrics). Client p99 far above this is time spent before Fastify saw the request.
   */
  server_p50_le_ms?: number | null;
  server_p99_le_ms?: number | null;
  /**
   * The server's main thread over the round (/proc/<pid>/task/<pid>/schedstat): ms it ran on a CPU,
   * and ms it was ready to run but waiting for one (the machine's other load), per second of round.
   */
  cpu_ms_per_s?: number | null;
  runqueue_wait_ms_per_s?: number | null;
  /** GC pauses over the round: how many, their sum and the longest, ms. */
  gc_count: number | null;
  gc_total_ms: number | null;
  gc_max_ms: number | null;
}

export interface CreateResult {
  rps: number;
  p50_ms: number;
  p99_ms: number;
  reference_rps: number;
  /** Absent in results written before the reference's latency was kept. */
  reference_p50_ms?: number;
  reference_p99_ms?: number;
  ratio: number;
  /** Each measured round, Ruta's and the reference's (absent in older results). */
  rounds?: { ruta: CreateRound; reference: CreateRound }[];
}

type Buckets = Map<number, number>;

/** [ns on CPU, ns runnable but waiting] of a process's main thread, or null off Linux. */
export function schedstat(pid: number): [number, number] | null {
  try {
    const [run, wait] = readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ').map(Number);
    return run === undefined || wait === undefined ? null : [run, wait];
  } catch {
    return null;
  }
}

/** Cumulative bucket counts (upper bound in ms → count) of the server's create-route histogram. */
async function createBuckets(base: string): Promise<Buckets | null> {
  const res = await fetch(`${base}/metrics`).catch(() => null);
  if (!res?.ok) return null;
  const out: Buckets = new Map();
  const re = /^ruta_http_request_duration_seconds_bucket\{([^}]*)\} (\d+)/gm;
  for (const [, labels = '', n] of (await res.text()).matchAll(re)) {
    if (!labels.includes('method="POST"') || !labels.includes('route="/v1/orders"') || !labels.includes('status="201"'))
      continue;
    const le = /le="([^"]+)"/.exec(labels)?.[1];
    if (le) out.set(le === '+Inf' ? Number.POSITIVE_INFINITY : Number(le) * 1000, Number(n));
  }
  return out;
}

/** The bucket bound at percentile p of the requests counted between two scrapes. */
function bucketPercentile(a: Buckets | null, b: Buckets | null, p: number): number | null {
  if (!a || !b) return null;
  const les = [...b.keys()].sort((x, y) => x - y);
  const total = (b.get(Number.POSITIVE_INFINITY) ?? 0) - (a.get(Number.POSITIVE_INFINITY) ?? 0);
  if (total <= 0) return null;
  const le = les.find((le) => (b.get(le) ?? 0) - (a.get(le) ?? 0) >= (p / 100) * total);
  return le === undefined || !Number.isFinite(le) ? null : le;
}

/** A load run against `server`, with the probe's window over exactly that run. */
async function probedLoad(ctx: Ctx, what: string, server: Server, key: string, seconds: number): Promise<CreateRound> {
  const before = key === 'none' ? null : await createBuckets(server.base);
  await server.probe();
  const s0 = schedstat(server.pid);
  const t0 = performance.now();
  const r = checked(what, await createLoad(ctx.loader, server.base, key, seconds));
  const s1 = schedstat(server.pid);
  const wall = (performance.now() - t0) / 1000;
  const w: ProbeWindow | null = await server.probe();
  const after = before ? await createBuckets(server.base) : null;
  const perS = (i: 0 | 1) => (s0 && s1 ? round((s1[i] - s0[i]) / 1e6 / wall, 0) : null);
  return {
    cpu_ms_per_s: perS(0),
    runqueue_wait_ms_per_s: perS(1),
    server_p50_le_ms: bucketPercentile(before, after, 50),
    server_p99_le_ms: bucketPercentile(before, after, 99),
    rps: round(r.rps, 0),
    p50_ms: round(r.p50_ms),
    p99_ms: round(r.p99_ms),
    loop_p99_ms: w?.loop.p99_ms ?? null,
    loop_max_ms: w?.loop.max_ms ?? null,
    gc_count: w?.gc.count ?? null,
    gc_total_ms: w?.gc.total_ms ?? null,
    gc_max_ms: w?.gc.max_ms ?? null,
  };
}

/**
 * Ruta and the reference take turns on the same database (never at once), after a warm-up each, in
 * short alternating rounds so that a burst of outside load on a shared machine hits both sides.
 */
export async function createScenario(ctx: Ctx): Promise<CreateResult> {
  const ref = await startProcess({
    name: 'reference',
    args: ['--import', 'tsx', `${ROOT}/bench/reference.ts`],
    env: { DATABASE_URL: ctx.dbUrl, BENCH_ACCOUNT_ID: ctx.accountId },
    port: await freePort(),
    // The same instrument in both, so that their event loops and GC can be compared round by round.
    probe: true,
  });
  try {
    const seconds = ctx.quick ? 3 : 5;
    const n = ctx.quick ? 3 : 5;
    const warm = ctx.quick ? 2 : 5;
    checked('reference warm-up', await createLoad(ctx.loader, ref.base, 'none', warm));
    checked('create warm-up', await createLoad(ctx.loader, ctx.server.base, ctx.merchantKey, warm));
    const rounds: { ruta: CreateRound; reference: CreateRound }[] = [];
    for (let i = 0; i < n; i++) {
      const reference = await probedLoad(ctx, 'reference', ref, 'none', seconds);
      const ruta = await probedLoad(ctx, 'create', ctx.server, ctx.merchantKey, seconds);
      rounds.push({ ruta, reference });
      ctx.log(
        `  round ${i + 1}: reference ${reference.rps} rps (p99 ${reference.p99_ms} ms, loop max ${reference.loop_max_ms} ms, run-queue wait ${reference.runqueue_wait_ms_per_s} ms/s), ` +
          `ruta ${ruta.rps} rps (p50 ${ruta.p50_ms}, p99 ${ruta.p99_ms} ms; server p99 ≤ ${ruta.server_p99_le_ms} ms; CPU ${ruta.cpu_ms_per_s} ms/s, run-queue wait ${ruta.runqueue_wait_ms_per_s} ms/s; loop p99 ${ruta.loop_p99_ms}, max ${ruta.loop_max_ms} ms; ` +
          `GC ${ruta.gc_count} pauses, ${ruta.gc_total_ms} ms, max ${ruta.gc_max_ms} ms)`,
      );
    }
    // Requests over time across rounds (every round is `seconds` long); latency as the median round,
    // so one burst of outside load does not decide it.
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
    const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
    const rps = mean(rounds.map((r) => r.ruta.rps));
    const reference = mean(rounds.map((r) => r.reference.rps));
    return {
      rps: round(rps, 0),
      p50_ms: round(median(rounds.map((r) => r.ruta.p50_ms))),
      p99_ms: round(median(rounds.map((r) => r.ruta.p99_ms))),
      reference_rps: round(reference, 0),
      reference_p50_ms: round(median(rounds.map((r) => r.reference.p50_ms))),
      reference_p99_ms: round(median(rounds.map((r) => r.reference.p99_ms))),
      ratio: round(rps / reference, 3),
      rounds,
    };
  } finally {
    await ref.stop();
  }
}
