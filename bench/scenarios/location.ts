import { runLoad } from '../load.js';
import { type Ctx, checked, require2xx, round } from './context.js';

export interface LocationResult {
  /** Single-point pings (POST /v1/couriers/{id}/location) per second. */
  rps: number;
  p99_ms: number;
  /** Points per second sent as batches of 100 (POST /v1/couriers/{id}/locations); absent in older results. */
  batch_points_per_s?: number;
  batch_p99_ms?: number;
}

const COURIERS = 32;
const BATCH = 100;

/**
 * 32 couriers each pinging their own position, one connection per courier device; then the same
 * couriers uploading buffered batches of 100 points (a phone back online).
 */
export async function locationScenario(ctx: Ctx): Promise<LocationResult> {
  const ids: string[] = [];
  for (let i = 0; i < COURIERS; i++) {
    const courier = await require2xx(ctx, ctx.operatorKey, 'POST', '/v1/couriers', { name: `Bench Courier ${i + 1}` });
    ids.push(courier.id);
  }
  // Each courier gets a few distinct positions, so the server never sees one repeated body.
  const requests = ids.flatMap((id, i) =>
    [0, 1, 2, 3].map((k) => ({
      method: 'POST' as const,
      path: `/v1/couriers/${id}/location`,
      body: JSON.stringify({ lat: round(-12.05 - i * 0.001 - k * 0.0002, 6), lng: round(-77.04 + k * 0.0003, 6) }),
    })),
  );
  const [first] = requests;
  if (first === undefined) throw new Error('no couriers to ping');
  await require2xx(ctx, ctx.operatorKey, 'POST', first.path, JSON.parse(first.body));
  const headers = { Authorization: `Bearer ${ctx.operatorKey}` };
  const seconds = ctx.quick ? 6 : 15;
  const single = checked(
    'location',
    await runLoad(ctx.loader, { base: ctx.server.base, headers, requests, connections: COURIERS, seconds }),
  );

  // Batches: a minute of fixes per body (oldest first, in the past), two bodies per courier. Just
  // before now: the server refuses fixes from before a courier existed (less 5 min) or a week old.
  const t0 = Date.now() - 2 * BATCH * 600 - 1000;
  const batches = ids.flatMap((id, i) =>
    [0, 1].map((k) => ({
      method: 'POST' as const,
      path: `/v1/couriers/${id}/locations`,
      body: JSON.stringify({
        points: Array.from({ length: BATCH }, (_, j) => ({
          lat: round(-12.05 - i * 0.001 - j * 0.00001, 6),
          lng: round(-77.04 + k * 0.0003 + j * 0.00001, 6),
          recorded_at: new Date(t0 + (k * BATCH + j) * 600).toISOString(),
          accuracy_m: 8,
        })),
      }),
    })),
  );
  const batch = checked(
    'location batch',
    await runLoad(ctx.loader, { base: ctx.server.base, headers, requests: batches, connections: 16, seconds }),
  );
  return {
    rps: round(single.rps, 0),
    p99_ms: round(single.p99_ms),
    batch_points_per_s: round(batch.rps * BATCH, 0),
    batch_p99_ms: round(batch.p99_ms),
  };
}
