import { type ChildProcess, spawn } from 'node:child_process';
import { ROOT } from '../env.js';
import { sql } from '../sql.js';
import { type Ctx, checked, percentile, require2xx, round, Skip } from './context.js';
import { createLoad, ORDER_BODY } from './create.js';

export interface TrackingStreamsResult {
  streams: number;
  orders: number;
  couriers: number;
  /** Server RSS just before the streams opened (orders and couriers made), MB. */
  rss_before_mb: number;
  /** Server RSS with every stream open, before the moves, and its peak from the opening on, MB. */
  rss_mb: number;
  rss_peak_mb: number;
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
   * Order creation with no stream open (the mean of a run before the streams open and one after
   * they close, so a change in the machine's other load over the scenario weighs on both sides),
   * then beside the open streams and the moves.
   */
  create_alone_rps: number;
  create_rps: number;
  create_ratio: number;
}

/** The hub's cap (STREAMS_PER_CODE in src/features/tracking/live-hub.ts): a code's phone, laptop, shared link… */
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
 * Then every courier reports a new position once per 6.5 s, staggered, for a few periods, while
 * the create load runs beside; arrival − POST time per stream (same machine, same clock).
 * Set-up shortcut: orders are created by the API, then put in transit with their courier by SQL
 * (the dispatch flow that gets them there is measured elsewhere).
 */
export async function trackingStreamsScenario(ctx: Ctx): Promise<TrackingStreamsResult> {
  const n = Number(process.env.BENCH_TRACK_STREAMS ?? (ctx.quick ? 1000 : 10_000));
  const orders = Math.ceil(n / PER_CODE);
  const couriersN = Math.ceil(orders / ORDERS_PER_COURIER);
  const periods = ctx.quick ? 3 : 5;
  const seconds = Math.round((periods * PERIOD_MS) / 1000);
  const base = ctx.server.base;

  // Alone first: the same create load, as long as the moves will last, on the same instance.
  checked('create warm-up', await createLoad(ctx.loader, base, ctx.merchantKey, 2));
  const alone = checked('create alone', await createLoad(ctx.loader, base, ctx.merchantKey, seconds));

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
  // BENCH_TRACK_CLIENTS forces the number of load-generator processes (e.g. to try several on a small run).
  const k = Number(process.env.BENCH_TRACK_CLIENTS ?? Math.min(CLIENTS_MAX, Math.ceil(n / PER_CLIENT)));
  const children = Array.from({ length: k }, () =>
    spawn(process.execPath, ['--import', 'tsx', `${ROOT}/bench/track-clients.ts`], {
      cwd: ROOT,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    }),
  );
  try {
    const rssBefore = ctx.server.memory().rss_mb;
    ctx.server.resetPeak();
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
    await sleep(1000);
    const rss = ctx.server.memory().rss_mb;

    // Every courier once per period, spread over it; a position unique to (courier, period).
    const t0 = new Map<string, { at: number; courier: number }>();
    const start = performance.now();
    const moves = (async () => {
      for (let p = 0; p < periods; p++) {
        for (let c = 0; c < couriersN; c++) {
          const due = start + p * PERIOD_MS + (c * PERIOD_MS) / couriersN;
          const wait = due - performance.now();
          if (wait > 0) await sleep(wait);
          const lat = round(-12.05 - c * 0.001 - p * 0.00001, 6);
          const lng = round(-77.03 + c * 0.0001, 6);
          t0.set(`${lat},${lng}`, { at: Date.now(), courier: c });
          await require2xx(ctx, ctx.operatorKey, 'POST', `/v1/couriers/${couriers[c]}/location`, { lat, lng });
        }
      }
    })();
    const beside = createLoad(ctx.loader, base, ctx.merchantKey, seconds);
    await moves;
    const load = checked('create beside the streams', await beside);
    await sleep(3000);
    const peak = ctx.server.memory().hwm_mb;

    const reports = await Promise.all(
      children.map((child) => ask<{ arrivals: Record<string, number[]> }>(child, { report: true }, 'arrivals')),
    );
    // Streams per courier: its orders × 5, less what the cut at n left out.
    const perCourier = new Map<number, number>();
    codes.forEach((_, j) => {
      const c = Math.floor(Math.floor(j / PER_CODE) / ORDERS_PER_COURIER);
      perCourier.set(c, (perCourier.get(c) ?? 0) + 1);
    });
    const each: number[] = [];
    const all: number[] = [];
    let missed = 0;
    for (const [key, { at, courier }] of t0) {
      const got = reports.flatMap((r) => r.arrivals[key] ?? []).map((x) => x - at);
      each.push(...got);
      const expected = perCourier.get(courier) ?? 0;
      missed += Math.max(0, expected - got.length);
      if (got.length >= expected && got.length > 0) all.push(Math.max(...got));
    }
    ctx.log(`  ${t0.size} moves, ${each.length} arrivals, ${missed} missed; RSS ${rss} MB, peak ${peak} MB`);
    await closeAll(children);
    await sleep(1000);
    const after = checked('create alone, after', await createLoad(ctx.loader, base, ctx.merchantKey, seconds));
    const aloneRps = (alone.rps + after.rps) / 2;
    ctx.log(
      `  create alone ${round(alone.rps, 0)} then ${round(after.rps, 0)} rps; beside the streams ${round(load.rps, 0)} rps`,
    );
    return {
      streams: n,
      orders,
      couriers: couriersN,
      rss_before_mb: rssBefore,
      rss_mb: rss,
      rss_peak_mb: peak,
      moves: t0.size,
      all_streams_p50_ms: round(percentile(all, 50)),
      all_streams_p99_ms: round(percentile(all, 99)),
      each_p50_ms: round(percentile(each, 50)),
      each_p99_ms: round(percentile(each, 99)),
      missed,
      create_alone_rps: round(aloneRps, 0),
      create_rps: round(load.rps, 0),
      create_ratio: round(load.rps / aloneRps, 3),
    };
  } finally {
    await closeAll(children);
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
