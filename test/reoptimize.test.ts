import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  client,
  describeEach,
  newMerchant,
  newOperator,
  type Res,
  startApp,
  type TestApp,
  validOrder,
} from './helpers.js';
import { courierSession, sessionClient, userSession } from './people-helpers.js';

/**
 * Re-optimizing a route under way (DESIGN §16, docs/dispatch.md): finished stops kept, the stop the
 * courier is at kept next, the rest solved from the courier's position; proposal, saving, apply,
 * 409 when the route changed. The clock is held at 09:00 UTC (default shift 08:00–18:00 UTC).
 */

const NINE = Date.parse('2030-03-04T09:00:00Z');

const at = (lat: number, lng: number) =>
  validOrder({ delivery_address: { address: 'Calle 1', city: 'Lima', lat, lng } });

describeEach('route re-optimization', (engine) => {
  let t: TestApp;
  let opKey: string;
  let op: ReturnType<typeof client>;
  let opLive: ReturnType<typeof client>;

  beforeAll(async () => {
    t = await startApp(engine, {}, { clock: () => NINE });
    opKey = await newOperator(t, 'test');
    op = client(t.app, opKey);
    opLive = client(t.app, await newOperator(t, 'live'));
  });
  afterAll(async () => t?.close());

  const ok = <T = any>(res: Res<T>, status = 200): T => {
    expect(res.status, JSON.stringify(res.body).slice(0, 400)).toBe(status);
    return res.body;
  };

  /**
   * A courier at the top of a north–south street whose route zig-zags: far, near, middle (the best
   * order is near, middle, far), after a cancelled first stop.
   */
  async function scene() {
    const m = await newMerchant(t, 'Reopt');
    const mc = client(t.app, m.test);
    const c = ok(await mc('POST', '/v1/couriers', { name: 'Rosa' }), 201);
    ok(await mc('POST', `/v1/couriers/${c.id}/location`, { lat: -12.1, lng: -77.03 }));
    const done = ok(await mc('POST', '/v1/orders', at(-12.2, -77.03)), 201);
    const far = ok(await mc('POST', '/v1/orders', at(-12.14, -77.03)), 201);
    const near = ok(await mc('POST', '/v1/orders', at(-12.11, -77.03)), 201);
    const middle = ok(await mc('POST', '/v1/orders', at(-12.125, -77.03)), 201);
    const route = ok(
      await mc('POST', '/v1/routes', { courier_id: c.id, order_ids: [done.id, far.id, near.id, middle.id] }),
      201,
    );
    ok(await mc('POST', `/v1/orders/${done.id}/cancel`, {}));
    return { m, mc, c, done, far, near, middle, route };
  }
  const stopIds = async (s: Awaited<ReturnType<typeof scene>>) =>
    ok(await s.mc('GET', `/v1/routes/${s.route.id}`)).stops.map((x: any) => x.order);

  it('proposes the better order beside the current one, with the saving, changing nothing', async () => {
    const s = await scene();
    const p = ok(await op('POST', `/v1/routes/${s.route.id}/reoptimize`, { time_limit_ms: 200 }));
    expect(p).toMatchObject({ object: 'route_proposal', route: s.route.id, applied: false, starts_from: 'position' });
    expect(p.kept).toEqual([s.done.id]);
    expect(p.current.order_ids).toEqual([s.far.id, s.near.id, s.middle.id]);
    expect(p.proposed.order_ids).toEqual([s.near.id, s.middle.id, s.far.id]);
    expect(p.saving.distance_km).toBeGreaterThan(2);
    expect(p.saving.distance_km).toBeCloseTo(p.current.distance_km - p.proposed.distance_km, 2);
    expect(p.saving.duration_min).toBeGreaterThan(0);
    expect(p.start_at).toBe(new Date(NINE).toISOString());
    expect(p.start).toEqual({ lat: -12.1, lng: -77.03 });
    // Positions count the kept stop; ETAs follow the new order.
    expect(p.proposed.stops.map((x: any) => [x.order_id, x.position])).toEqual([
      [s.near.id, 2],
      [s.middle.id, 3],
      [s.far.id, 4],
    ]);
    const times = p.proposed.stops.map((x: any) => Date.parse(x.arrival_at));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    expect(p.route_version).toMatch(/^rv_/);
    expect(await stopIds(s)).toEqual([s.done.id, s.far.id, s.near.id, s.middle.id]);
    // The route's stops say where each is, for the console's map beside the proposal.
    const stops = ok(await s.mc('GET', `/v1/routes/${s.route.id}`)).stops;
    expect(stops.map((x: any) => x.address.lat)).toEqual([-12.2, -12.14, -12.11, -12.125]);
    expect(stops[0].address).toMatchObject({ address: 'Calle 1', city: 'Lima', lng: -77.03 });
  });

  it('applies a proposal as it was shown; 409 route_changed once the route moved on', async () => {
    const s = await scene();
    const p = ok(await op('POST', `/v1/routes/${s.route.id}/reoptimize`, { time_limit_ms: 200 }));
    const applied = ok(
      await op('POST', `/v1/routes/${s.route.id}/reoptimize`, {
        apply: true,
        order_ids: p.proposed.order_ids,
        route_version: p.route_version,
      }),
    );
    expect(applied.applied).toBe(true);
    expect(applied.proposed.order_ids).toEqual(p.proposed.order_ids);
    expect(await stopIds(s)).toEqual([s.done.id, s.near.id, s.middle.id, s.far.id]);
    // Applying the same proposal again: the route is not what it was.
    const again = await op('POST', `/v1/routes/${s.route.id}/reoptimize`, {
      apply: true,
      order_ids: p.current.order_ids,
      route_version: p.route_version,
    });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('route_changed');
    // A stop finished since the proposal: refused too, and nothing written.
    const fresh = ok(await op('POST', `/v1/routes/${s.route.id}/reoptimize`, {}));
    ok(await s.mc('POST', `/v1/orders/${s.middle.id}/cancel`, {}));
    const stale = await op('POST', `/v1/routes/${s.route.id}/reoptimize`, {
      apply: true,
      order_ids: fresh.proposed.order_ids,
      route_version: fresh.route_version,
    });
    expect(stale.status).toBe(409);
    expect(stale.body.error.code).toBe('route_changed');
    expect(await stopIds(s)).toEqual([s.done.id, s.near.id, s.middle.id, s.far.id]);
  });

  it('apply without a proposal solves and commits; never worse than the current order', async () => {
    const s = await scene();
    const res = ok(await op('POST', `/v1/routes/${s.route.id}/reoptimize`, { apply: true, time_limit_ms: 200 }));
    expect(res.applied).toBe(true);
    expect(await stopIds(s)).toEqual([s.done.id, s.near.id, s.middle.id, s.far.id]);
    // Already the best: the proposal is the current order, saving 0.
    const again = ok(await op('POST', `/v1/routes/${s.route.id}/reoptimize`, { time_limit_ms: 200 }));
    expect(again.proposed.order_ids).toEqual(again.current.order_ids);
    expect(again.saving).toEqual({ distance_km: 0, duration_min: 0 });
  });

  it('keeps the stop the courier is at next, and what is on board on the route', async () => {
    const s = await scene();
    // The courier is at the far stop already; the near one is picked up (on board).
    for (const move of ['pickup', 'depart', 'arrive']) ok(await s.mc('POST', `/v1/orders/${s.far.id}/${move}`, {}));
    ok(await s.mc('POST', `/v1/orders/${s.near.id}/pickup`, {}));
    ok(await s.mc('POST', `/v1/couriers/${s.c.id}/location`, { lat: -12.14, lng: -77.03 }));
    const p = ok(await op('POST', `/v1/routes/${s.route.id}/reoptimize`, { time_limit_ms: 200 }));
    expect(p.kept).toEqual([s.done.id, s.far.id]);
    expect([...p.proposed.order_ids].sort()).toEqual([s.near.id, s.middle.id].sort());
    // From the far stop, the middle one comes first.
    expect(p.proposed.order_ids).toEqual([s.middle.id, s.near.id]);
    const applied = ok(
      await op('POST', `/v1/routes/${s.route.id}/reoptimize`, {
        apply: true,
        order_ids: p.proposed.order_ids,
        route_version: p.route_version,
      }),
    );
    expect(applied.applied).toBe(true);
    expect(await stopIds(s)).toEqual([s.done.id, s.far.id, s.middle.id, s.near.id]);
  });

  it('refuses a proposal that does not name each stop left once', async () => {
    const s = await scene();
    const p = ok(await op('POST', `/v1/routes/${s.route.id}/reoptimize`, { time_limit_ms: 200 }));
    const send = (order_ids: string[]) =>
      op('POST', `/v1/routes/${s.route.id}/reoptimize`, { apply: true, order_ids, route_version: p.route_version });
    for (const [ids, param] of [
      [[s.near.id, s.near.id, s.far.id], 'order_ids'],
      [[s.near.id, s.far.id], 'order_ids'],
      [[s.near.id, s.done.id, s.far.id], 'order_ids[1]'],
    ] as const) {
      const res = await send([...ids]);
      expect(res.status, JSON.stringify(res.body)).toBe(422);
      expect(res.body.error.param).toBe(param);
    }
    const noApply = await op('POST', `/v1/routes/${s.route.id}/reoptimize`, { order_ids: p.proposed.order_ids });
    expect(noApply.status).toBe(422);
    expect(noApply.body.error.param).toBe('order_ids');
    const limit = await op('POST', `/v1/routes/${s.route.id}/reoptimize`, { time_limit_ms: 50 });
    expect(limit.status).toBe(422);
    expect(limit.body.error.param).toBe('time_limit_ms');
    expect(await stopIds(s)).toEqual([s.done.id, s.far.id, s.near.id, s.middle.id]);
  });

  it('isolation: merchants, couriers and the other environment cannot reoptimize', async () => {
    const s = await scene();
    const path = `/v1/routes/${s.route.id}/reoptimize`;
    for (const key of [s.m.test, s.m.live]) {
      const res = await client(t.app, key)('POST', path, {});
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('permission_denied');
    }
    expect((await client(t.app)('POST', path, {})).status).toBe(401);
    const live = await opLive('POST', path, {});
    expect(live.status).toBe(404);
    expect(live.body.error.code).toBe('resource_missing');
    const phone = sessionClient(t, await courierSession(t, opKey, s.c.id));
    const courier = await phone('POST', path, {});
    expect(courier.status).toBe(403);
    // A dispatcher (a signed-in carrier person) may.
    const dispatcher = sessionClient(t, await userSession(t, 'dispatcher'));
    expect((await dispatcher('POST', path, { time_limit_ms: 100 })).status).toBe(200);
    expect(await stopIds(s)).toEqual([s.done.id, s.far.id, s.near.id, s.middle.id]);
    expect(opKey).toMatch(/^ok_test_/);
  });
});
