import { runLoad } from '../load.js';
import { type Ctx, checked, require2xx, round } from './context.js';

export interface LocationResult {
  rps: number;
  p99_ms: number;
}

const COURIERS = 32;

/** 32 couriers each pinging their own position, one connection per courier device. */
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
  await require2xx(ctx, ctx.operatorKey, 'POST', requests[0].path, JSON.parse(requests[0].body));
  const r = checked(
    'location',
    await runLoad(ctx.loader, {
      base: ctx.server.base,
      headers: { Authorization: `Bearer ${ctx.operatorKey}` },
      requests,
      connections: COURIERS,
      seconds: ctx.quick ? 6 : 15,
    }),
  );
  return { rps: round(r.rps, 0), p99_ms: round(r.p99_ms) };
}
