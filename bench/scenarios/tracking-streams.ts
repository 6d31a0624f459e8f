import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { procStatus, ROOT } from '../env.js';
import { sql } from '../sql.js';
import { type Ctx, checked, percentile, require2xx, round, Skip } from './context.js';
import { createLoad, ORDER_BODY, schedstat } from './create.js';

export interface TrackingStreamsResult {
  streams: number;
  orders: number;
  couriers: number;
  /** Server RSS just before the streams first opened (orders and couriers made), MB. */
  rss_before_mb: number;
  /** Server RSS with every stream open, before the moves (first "beside" round), MB. */
  rss_mb: number;
  /** The kernel's high-water mark of the server's RSS over the whole scenario (VmHWM), MB. */
  rss_peak_mb: number;
  /**
   * The highest RSS sampled (VmRSS every 100 ms) in each phase: the "alone" rounds, the openings
   * of the streams, the "beside" rounds (moves and creates with the streams open), MB.
   */
  rss_peak_by_phase_mb?: { alone: number; opening: number; beside: number };
  /** Courier moves made, and (move, stream) arrivals expected from them. */
  moves: number;
  /** Per move: from the location POST to the last of its streams receiving the position, ms. */
  all_streams_p50_ms: number;
  all_streams_p99_ms: number;
  /** Per stream and move: from the POST to that stream's arrival, ms. */
  each_p50_ms: number;
  each_p99_ms: number;
  /** Arrivals that never came (within 3 s of the last move). */
  missed: number;
  /**
   * Order creation with no stream open, then beside the open streams and the moves: the means of
   * rounds that alternate (alone, beside, alone, beside, alone; quick: alone, beside, alone), so a
   * drift of the machine's other load or of the database over the scenario weighs on both sides.
   */
  create_alone_rps: number;
  create_rps: number;
  create_ratio: number;
  /**
   * Each round in order (absent in results written before the rounds alternated): rps, and the
   * server's main thread over it (/proc/<pid>/task/<pid>/schedstat), ms on a CPU and ms ready but
   * waiting for one (the machine's other load) per second.
   */
  rounds?: Round[];
  /**
   * Creates per second of the server's main-thread CPU, beside the streams ÷ alone: what the
   * streams take of the server's own time, which the machine's other load moves less than rps.
   */
  create_per_cpu_ratio?: number | null;
  /**
   * PostgreSQL only: seconds spent before each round on `VACUUM ANALYZE` and waiting for the
   * autovacuum workers to finish, so that no round inherits the previous rounds' clean-up (null on SQLite).
   */
  settle_s?: number | null;
}

interface Round {
  kind: 'alone' | 'beside';
  rps: number;
  cpu_ms_per_s: number | null;
  runqueue_wait_ms_per_s: number | null;
}

/** The hub's cap (STREAMS_PER_CODE in src/features/tracking/live-caps.ts): a code's phone, laptop, shared link… */
const PER_CODE = 5;
const ORDERS_PER_COURIER = 20;
/** Each courier moves once per period: above the 5 s a position may reach a page, so none waits for it. */
const PERIOD_MS = 6500;
const CLIENTS_MAX = 4;
const PER_CLIENT = 2500;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function ask<T>(child: ChildProcess, msg: object, has: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const on = (m: Record<string, unknown>) => {
      if (!(has in m)) return;
      child.off('message', on);
      resolve(m as T);
    };
    child.on('message', on);
    child.once('exit', (code) => reject(new Error(`tracking client exited with ${code}`)));
    child.send(msg);
  });
}

/**
 * Issue #20: BENCH_TRACK_STREAMS (default 10 000; 1000 quick) `/track/{code}/events` streams on the
 * main server, 5 per order (the per-code cap), 20 orders per courier, all out for delivery with
 * their courier and no stop before theirs, so every position is theirs to see. The streams are
 * opened by up to 4 load-generator processes (bench/track-clients.ts), each from its own loopback
 * address (127.0.0.2…); the run raises the per-address stream and public rate limits (run.ts).
 * Rounds of the create load alternate: alone (no stream open), then beside the streams while every
 * courier reports a new position once per 6.5 s, staggered; the streams close after each "beside"
 * round. Arrival − POST time per stream (same machine, same clock).
 * Set-up shortcut: orders are created by the API, then put in transit with their courier by SQL
 * (the dispatch flow that gets them there is measured elsewhere).
 */
export async function trackingStreamsScenario(ctx: Ctx): Promise<TrackingStreamsResult> {
  const n = Number(process.env.BENCH_TRACK_STREAMS ?? (ctx.quick ? 1000 : 10_000));
  const orders = Math.ceil(n / PER_CODE);
  const couriersN = Math.ceil(orders / ORDERS_PER_COURIER);
  const periods = 3;
  const besideRounds = ctx.quick ? 1 : 2;
  const seconds = Math.round((periods * PERIOD_MS) / 1000);
  const base = ctx.server.base;
  const files = openFilesLimit(ctx.server.pid);
  if (files !== null && files < n + 200) {
    throw new Skip(
      `the server may hold ${files} open files and ${n} streams need about ${n + 200}: raise the hard limit (ulimit -Hn; node raises its own soft limit to it) or set BENCH_TRACK_STREAMS`,
    );
  }
  const rss = new RssSampler(ctx.server.pid);
  ctx.server.resetPeak();
  const settle = new Settle(ctx);

  const rounds: Round[] = [];
  /** A create round (`during` runs beside it: the moves), with the server's CPU over it. */
  const measured = async (kind: Round['kind'], during?: Promise<void>): Promise<Round> => {
    const s0 = schedstat(ctx.server.pid);
    const t0 = performance.now();
    const load = createLoad(ctx.loader, base, ctx.merchantKey, seconds);
    await during;
    const r = checked(`create ${kind}`, await load);
    const s1 = schedstat(ctx.server.pid);
    const wall = (performance.now() - t0) / 1000;
    const per = (i: 0 | 1) => (s0 && s1 ? round((s1[i] - s0[i]) / 1e6 / wall, 0) : null);
    const x: Round = { kind, rps: r.rps, cpu_ms_per_s: per(0), runqueue_wait_ms_per_s: per(1) };
    rounds.push(x);
    return x;
  };
  const alone = async () => {
    await settle.run();
    rss.phase = 'alone';
    const r = await measured('alone');
    rss.phase = null;
    ctx.log(
      `  alone: ${round(r.rps, 0)} rps; server CPU ${r.cpu_ms_per_s} ms/s, waiting ${r.runqueue_wait_ms_per_s} ms/s`,
    );
  };

  try {
    checked('create warm-up', await createLoad(ctx.loader, base, ctx.merchantKey, 2));
    await alone();

    const couriers: string[] = [];
    for (let i = 0; i < couriersN; i++) {
      couriers.push((await require2xx(ctx, ctx.operatorKey, 'POST', '/v1/couriers', { name: `Track ${i + 1}` })).id);
    }
    const made: { id: string; code: string }[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < orders) {
          const i = next++;
          const o = await require2xx(ctx, ctx.merchantKey, 'POST', '/v1/orders', {
            ...ORDER_BODY,
            external_order_id: `TRACK-${i}`,
          });
          made[i] = { id: o.id, code: o.tracking_code };
        }
      }),
    );
    for (let c = 0; c < couriersN; c++) {
      const ids = made.slice(c * ORDERS_PER_COURIER, (c + 1) * ORDERS_PER_COURIER).map((o) => o.id);
      await sql(
        ctx.kind,
        ctx.dbUrl,
        `update orders set status = 'in_transit', courier_id = ? where id in (${ids.map(() => '?').join(',')})`,
        [couriers[c], ...ids],
      );
    }
    const codes = made.flatMap((o) => Array.from({ length: PER_CODE }, () => o.code)).slice(0, n);
    // Streams per courier: its orders × 5, less what the cut at n left out.
    const perCourier = new Map<number, number>();
    codes.forEach((_, j) => {
      const c = Math.floor(Math.floor(j / PER_CODE) / ORDERS_PER_COURIER);
      perCourier.set(c, (perCourier.get(c) ?? 0) + 1);
    });

    const each: number[] = [];
    const all: number[] = [];
    let missed = 0;
    let moves = 0;
    let rssBefore = 0;
    let rssOpen = 0;
    for (let b = 0; b < besideRounds; b++) {
      await settle.run();
      if (b === 0) rssBefore = ctx.server.memory().rss_mb;
      rss.phase = 'opening';
      const children = await openStreams(ctx, base, codes);
      try {
        await sleep(1000);
        if (b === 0) rssOpen = ctx.server.memory().rss_mb;
        rss.phase = 'beside';
        // Every courier once per period, spread over it; a position unique to (round, courier, period).
        const t0 = new Map<string, { at: number; courier: number }>();
        const start = performance.now();
        const moving = (async () => {
          for (let p = 0; p < periods; p++) {
            for (let c = 0; c < couriersN; c++) {
              const due = start + p * PERIOD_MS + (c * PERIOD_MS) / couriersN;
              const wait = due - performance.now();
              if (wait > 0) await sleep(wait);
              const lat = round(-12.05 - c * 0.001 - (b * periods + p) * 0.00001, 6);
              const lng = round(-77.03 + c * 0.0001, 6);
              t0.set(`${lat},${lng}`, { at: Date.now(), courier: c });
              await require2xx(ctx, ctx.operatorKey, 'POST', `/v1/couriers/${couriers[c]}/location`, { lat, lng });
            }
          }
        })();
        const load = await measured('beside', moving);
        await sleep(3000);
        const reports = await Promise.all(
          children.map((child) => ask<{ arrivals: Record<string, number[]> }>(child, { report: true }, 'arrivals')),
        );
        let got = 0;
        let lost = 0;
        for (const [key, { at, courier }] of t0) {
          const times = reports.flatMap((r) => r.arrivals[key] ?? []).map((x) => x - at);
          each.push(...times);
          got += times.length;
          const expected = perCourier.get(courier) ?? 0;
          lost += Math.max(0, expected - times.length);
          if (times.length >= expected && times.length > 0) all.push(Math.max(...times));
        }
        missed += lost;
        moves += t0.size;
        ctx.log(
          `  beside the streams: ${round(load.rps, 0)} rps; server CPU ${load.cpu_ms_per_s} ms/s, waiting ${load.runqueue_wait_ms_per_s} ms/s; ${t0.size} moves, ${got} arrivals, ${lost} missed`,
        );
      } finally {
        rss.phase = null;
        await closeAll(children);
      }
      await sleep(1000);
      await alone();
    }

    const mean = (kind: string, of: (r: Round) => number | null) => {
      const xs = rounds.filter((r) => r.kind === kind).map(of);
      return xs.some((x) => x === null) ? null : (xs as number[]).reduce((a, x) => a + x, 0) / xs.length;
    };
    const aloneRps = mean('alone', (r) => r.rps) as number;
    const besideRps = mean('beside', (r) => r.rps) as number;
    const perCpu = (kind: string) => mean(kind, (r) => (r.cpu_ms_per_s ? r.rps / r.cpu_ms_per_s : null));
    const [aloneEff, besideEff] = [perCpu('alone'), perCpu('beside')];
    // VmHWM and the samples of VmRSS are rounded apart by a fraction of a MB: the higher of both.
    const peak = Math.max(ctx.server.memory().hwm_mb, rss.peak.alone, rss.peak.opening, rss.peak.beside);
    ctx.log(
      `  RSS ${rssOpen} MB with the streams open; peaks: alone ${rss.peak.alone}, opening ${rss.peak.opening}, beside ${rss.peak.beside}, kernel's ${peak} MB` +
        (settle.seconds === null ? '' : `; ${round(settle.seconds, 1)} s settling PostgreSQL between rounds`),
    );
    return {
      streams: n,
      orders,
      couriers: couriersN,
      rss_before_mb: rssBefore,
      rss_mb: rssOpen,
      rss_peak_mb: peak,
      rss_peak_by_phase_mb: { ...rss.peak },
      moves,
      all_streams_p50_ms: round(percentile(all, 50)),
      all_streams_p99_ms: round(percentile(all, 99)),
      each_p50_ms: round(percentile(each, 50)),
      each_p99_ms: round(percentile(each, 99)),
      missed,
      create_alone_rps: round(aloneRps, 0),
      create_rps: round(besideRps, 0),
      create_ratio: round(besideRps / aloneRps, 3),
      rounds: rounds.map((r) => ({ ...r, rps: round(r.rps, 0) })),
      create_per_cpu_ratio: aloneEff && besideEff ? round(besideEff / aloneEff, 3) : null,
      settle_s: settle.seconds === null ? null : round(settle.seconds, 1),
    };
  } finally {
    rss.stop();
  }
}

/** Spawns the load-generator processes and has them open the streams; throws Skip if any was refused. */
async function openStreams(ctx: Ctx, base: string, codes: string[]): Promise<ChildProcess[]> {
  const n = codes.length;
  // BENCH_TRACK_CLIENTS forces the number of load-generator processes (e.g. to try several on a small run).
  const k = Number(process.env.BENCH_TRACK_CLIENTS ?? Math.min(CLIENTS_MAX, Math.ceil(n / PER_CLIENT)));
  const children = Array.from({ length: k }, () =>
    spawn(process.execPath, ['--import', 'tsx', `${ROOT}/bench/track-clients.ts`], {
      cwd: ROOT,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    }),
  );
  try {
    const o0 = performance.now();
    const opened = await Promise.all(
      children.map((child, i) =>
        ask<{ opened: number; failed: number; error: string | null }>(
          child,
          { open: { base, codes: codes.filter((_, j) => j % k === i), localAddress: `127.0.0.${2 + i}` } },
          'opened',
        ),
      ),
    );
    const failed = opened.reduce((s, r) => s + r.failed, 0);
    if (failed > 0) throw new Skip(`${failed} of ${n} tracking streams refused: ${opened.find((r) => r.error)?.error}`);
    ctx.log(`  ${n} streams open in ${round((performance.now() - o0) / 1000, 1)} s from ${k} processes`);
    return children;
  } catch (err) {
    await closeAll(children);
    throw err;
  }
}

/** A process's limit of open files (each stream is a socket), from /proc; null where unreadable. */
function openFilesLimit(pid: number): number | null {
  try {
    const line = /^Max open files\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/limits`, 'utf8'));
    return line ? Number(line[1]) : null;
  } catch {
    return null;
  }
}

/** The server's RSS (VmRSS) every 100 ms, its highest value kept per phase, MB. */
class RssSampler {
  phase: 'alone' | 'opening' | 'beside' | null = null;
  readonly peak = { alone: 0, opening: 0, beside: 0 };
  private readonly timer: NodeJS.Timeout;

  constructor(pid: number) {
    this.timer = setInterval(() => {
      const rss = procStatus(pid).rss;
      if (this.phase && rss !== undefined) this.peak[this.phase] = Math.max(this.peak[this.phase], rss);
    }, 100);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

/**
 * Before each round on PostgreSQL: `VACUUM ANALYZE`, then no autovacuum worker left on the bench
 * database. Every round inserts tens of thousands of orders, and without this the clean-up they
 * start (autovacuum and analyse of `orders` and its neighbours) runs on the same two cores during
 * whichever round comes next: one run's two "alone" rounds differed by 37 %. Each round still pays
 * for the clean-up its own inserts start. Nothing to do on SQLite.
 */
class Settle {
  seconds: number | null;

  constructor(private readonly ctx: Ctx) {
    this.seconds = ctx.kind === 'postgres' ? 0 : null;
  }

  async run(): Promise<void> {
    if (this.ctx.kind !== 'postgres') return;
    const t0 = performance.now();
    await sql(this.ctx.kind, this.ctx.dbUrl, 'VACUUM ANALYZE');
    for (let i = 0; i < 600; i++) {
      const [row] = await sql<{ n: string | number }>(
        this.ctx.kind,
        this.ctx.dbUrl,
        "select count(*) as n from pg_stat_activity where datname = current_database() and backend_type = 'autovacuum worker'",
      );
      if (Number(row?.n ?? 0) === 0) break;
      await sleep(100);
    }
    this.seconds = (this.seconds ?? 0) + (performance.now() - t0) / 1000;
  }
}

async function closeAll(children: ChildProcess[]): Promise<void> {
  for (const child of children) {
    if (child.exitCode !== null) continue;
    const exited = new Promise((r) => child.once('exit', r));
    child.send({ close: true });
    await exited;
  }
}
