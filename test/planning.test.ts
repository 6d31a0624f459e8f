import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  client,
  describeEach,
  type Merchant,
  newMerchant,
  newOperator,
  startApp,
  type TestApp,
  validOrder,
} from './helpers.js';
import { eventsOf } from './lifecycle-helpers.js';
import { solvedPlan } from './route-plan-helpers.js';

const DATE = '2030-03-04';
const LIMA = { lat: -12.1211, lng: -77.0297 };
const at = (dLat: number, dLng: number) => ({
  address: 'Av. Larco 1',
  city: 'Lima',
  lat: LIMA.lat + dLat,
  lng: LIMA.lng + dLng,
});

/** Polls a plan until it ends (the solver runs in a worker; its time limit is small here). */
async function finished(t: TestApp, key: string, id: string) {
  await t.jobs.idle();
  const res = await client(t.app, key)('GET', `/v1/route_plans/${id}`);
  expect(res.status).toBe(200);
  return res.body;
}

describeEach('route planning', (engine) => {
  let t: TestApp;
  let m: Merchant;
  let op: string;
  let opLive: string;
  let depot: { id: string };

  beforeAll(async () => {
    t = await startApp(engine, { RUTA_DEFAULT_TIMEZONE: 'America/Lima', RUTA_SERVICE_MINUTES_PER_STOP: '5' });
    m = await newMerchant(t);
    op = await newOperator(t, 'test');
    opLive = await newOperator(t, 'live');
    depot = (await client(t.app, op)('POST', '/v1/depots', { name: 'Main', lat: LIMA.lat, lng: LIMA.lng })).body;
  });
  afterAll(async () => t?.close());

  const order = async (over: Record<string, unknown> = {}) => {
    const res = await client(t.app, m.test)('POST', '/v1/orders', validOrder(over));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body as { id: string };
  };
  const courier = async (over: Record<string, unknown> = {}) => {
    const res = await client(t.app, op)('POST', '/v1/couriers', { name: 'Luis', ...over });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body as { id: string };
  };

  it('creates, reads and lists depots; the timezone defaults from the config', async () => {
    const call = client(t.app, op);
    expect(depot).toMatchObject({ object: 'depot', name: 'Main', timezone: 'America/Lima', livemode: false });
    expect(depot.id).toMatch(/^dep_/);
    const tokyo = await call('POST', '/v1/depots', { name: 'T', lat: 35.6, lng: 139.7, timezone: 'Asia/Tokyo' });
    expect(tokyo.status).toBe(201);
    expect(tokyo.body.timezone).toBe('Asia/Tokyo');
    expect((await call('GET', `/v1/depots/${depot.id}`)).body).toEqual(depot);
    const list = (await call('GET', '/v1/depots?limit=100')).body;
    expect(list.data.map((d: { id: string }) => d.id)).toEqual(expect.arrayContaining([depot.id, tokyo.body.id]));
    const bad = await call('POST', '/v1/depots', { name: 'X', lat: 0, lng: 0, timezone: 'Mars/Olympus' });
    expect(bad.status).toBe(422);
    expect(bad.body.error.param).toBe('timezone');
    expect((await call('POST', '/v1/depots', { name: 'X', lat: 91, lng: 0 })).body.error.param).toBe('lat');
    expect((await call('POST', '/v1/depots', { lat: 0, lng: 0 })).status).toBe(422);
  });

  it('merchant keys get 403; another environment gets 404', async () => {
    for (const key of [m.test, m.live]) {
      const call = client(t.app, key);
      expect((await call('POST', '/v1/depots', { name: 'X', lat: 0, lng: 0 })).status).toBe(403);
      expect((await call('GET', `/v1/depots/${depot.id}`)).status).toBe(403);
      expect(
        (
          await call('POST', '/v1/route_plans', {
            date: DATE,
            depot: depot.id,
            couriers: [{ courier_id: 'cou_x' }],
          })
        ).status,
      ).toBe(403);
    }
    expect((await client(t.app)('GET', '/v1/depots')).status).toBe(401);
    expect((await client(t.app, opLive)('GET', `/v1/depots/${depot.id}`)).status).toBe(404);
    const c = await courier();
    const plan = await solvedPlan<{ id: string }>(t, op, {
      date: DATE,
      depot: depot.id,
      couriers: [{ courier_id: c.id }],
      order_ids: [(await order()).id],
      time_limit_ms: 200,
    });
    expect((await client(t.app, opLive)('GET', `/v1/route_plans/${plan.id}`)).status).toBe(404);
    expect((await client(t.app, opLive)('POST', `/v1/route_plans/${plan.id}/commit`)).status).toBe(404);
    expect((await client(t.app, m.test)('GET', `/v1/route_plans/${plan.id}`)).status).toBe(403);
    expect((await client(t.app, m.test)('POST', `/v1/route_plans/${plan.id}/commit`)).status).toBe(403);
    // The live operator may not plan with test couriers or depots.
    const live = await client(t.app, opLive)('POST', '/v1/route_plans', {
      date: DATE,
      depot: depot.id,
      couriers: [{ courier_id: c.id }],
    });
    expect(live.status).toBe(422);
    expect(live.body.error.param).toBe('depot');
  });

  it('couriers carry shift and vehicle fields', async () => {
    const call = client(t.app, op);
    const c = await courier({ capacity_kg: 50, capacity_packages: 10, shift_start: '08:00', shift_end: '17:30' });
    expect(c).toMatchObject({ capacity_kg: 50, capacity_packages: 10, shift_start: '08:00', shift_end: '17:30' });
    expect(c).toMatchObject({ start_depot: null, end_depot: null });
    const patched = await call('PATCH', `/v1/couriers/${c.id}`, { start_depot: depot.id, capacity_kg: null });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ start_depot: depot.id, capacity_kg: null, capacity_packages: 10 });
    expect((await call('GET', `/v1/couriers/${c.id}`)).body.start_depot).toBe(depot.id);
    const bad = await call('PATCH', `/v1/couriers/${c.id}`, { end_depot: 'dep_nope' });
    expect(bad.status).toBe(422);
    expect(bad.body.error.param).toBe('end_depot');
    expect((await call('POST', '/v1/couriers', { name: 'X', shift_start: '8:00' })).body.error.param).toBe(
      'shift_start',
    );
  });

  it('plans, then commits: routes created, orders assigned, order.assigned emitted', async () => {
    const call = client(t.app, op);
    const a = await courier({ shift_start: '08:00', shift_end: '18:00' });
    const b = await courier({ name: 'Rosa', capacity_packages: 20 });
    const orders = [
      await order({ delivery_address: at(0.01, 0.01), time_window: { start: '09:00', end: '12:00' } }),
      await order({ delivery_address: at(0.02, -0.01), is_urgent: true }),
      await order({ delivery_address: at(-0.01, 0.02), priority: 3 }),
      await order({ delivery_address: at(-0.02, -0.02) }),
    ];
    const ids = orders.map((o) => o.id);
    const live: { kind: string; audience: unknown; data: { id: string; status: string } }[] = [];
    const unsubscribe = t.ctx.live.subscribe((msg) => live.push(msg as (typeof live)[number]));
    const created = await call('POST', '/v1/route_plans', {
      date: DATE,
      depot: depot.id,
      couriers: [{ courier_id: a.id }, { courier_id: b.id, capacity_kg: 100 }],
      order_ids: ids,
      time_limit_ms: 200,
      seed: 7,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    expect(created.body).toMatchObject({ object: 'route_plan', status: 'queued', progress: 0, date: DATE });
    expect(created.body.id).toMatch(/^rplan_/);
    expect(created.body.order_ids).toEqual(ids);

    const plan = await finished(t, op, created.body.id);
    unsubscribe();
    expect(plan.status, plan.failure_message).toBe('succeeded');
    // The stream saw it run and end, for the carrier of the test environment only.
    const mine = live.filter((x) => x.kind === 'route_plan' && x.data.id === plan.id);
    expect(mine.map((x) => x.data.status)).toContain('running');
    expect(mine.at(-1)?.data.status).toBe('succeeded');
    expect(mine[0]?.audience).toEqual({ mode: 'test', accountId: null });
    expect(plan.progress).toBe(1);
    expect(plan.unassigned).toEqual([]);
    const planned = plan.routes.flatMap((r: { stops: { order_id: string }[] }) => r.stops.map((s) => s.order_id));
    expect([...planned].sort()).toEqual([...ids].sort());
    expect(plan.totals).toMatchObject({ orders: 4, unassigned: 0, routes: plan.routes.length });
    for (const r of plan.routes) {
      expect([a.id, b.id]).toContain(r.courier_id);
      expect(r.distance_km).toBeGreaterThan(0);
      for (const s of r.stops) {
        expect(Date.parse(s.arrival_at)).toBeLessThanOrEqual(Date.parse(s.service_start_at));
        expect(Date.parse(s.departure_at) - Date.parse(s.service_start_at)).toBe(5 * 60_000);
      }
      // Loads are what is still on board after each stop: falling along the route, none at the end.
      const loads = r.stops.map((s: { load_packages: number }) => s.load_packages);
      expect(loads.at(-1)).toBe(0);
      expect([...loads].sort((x, y) => y - x)).toEqual(loads);
      if (loads.length > 1) expect(loads[0]).toBeGreaterThan(0);
      // Courier A works 08:00–18:00 Lima time (UTC-5).
      if (r.courier_id === a.id) expect(Date.parse(r.start_at)).toBeGreaterThanOrEqual(Date.parse(`${DATE}T13:00:00Z`));
    }
    // The windowed order is served between 09:00 and 12:00 Lima time.
    const windowed = plan.routes
      .flatMap((r: { stops: { order_id: string }[] }) => r.stops)
      .find((s: { order_id: string }) => s.order_id === ids[0]);
    expect(Date.parse(windowed.service_start_at)).toBeGreaterThanOrEqual(Date.parse(`${DATE}T14:00:00Z`));
    expect(Date.parse(windowed.service_start_at)).toBeLessThanOrEqual(Date.parse(`${DATE}T17:00:00Z`));

    const committed = await call('POST', `/v1/route_plans/${plan.id}/commit`);
    expect(committed.status, JSON.stringify(committed.body)).toBe(200);
    expect(committed.body.committed_at).not.toBeNull();
    expect(committed.body.route_ids).toHaveLength(plan.routes.length);
    for (const [i, r] of plan.routes.entries()) {
      const route = (await call('GET', `/v1/routes/${committed.body.route_ids[i]}`)).body;
      expect(route.courier.id).toBe(r.courier_id);
      expect(route.date).toBe(DATE);
      expect(route.stops.map((s: { order: string }) => s.order)).toEqual(
        r.stops.map((s: { order_id: string }) => s.order_id),
      );
    }
    for (const id of ids) {
      const o = (await client(t.app, m.test)('GET', `/v1/orders/${id}`)).body;
      expect(o.status).toBe('assigned');
      const assigned = (await eventsOf(t, id)).filter((e) => e.event === 'order.assigned');
      expect(assigned).toHaveLength(1);
    }
    const again = await call('POST', `/v1/route_plans/${plan.id}/commit`);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('plan_not_ready');
  });

  it('a plan whose orders changed is stale: 409 naming them, nothing committed', async () => {
    const call = client(t.app, op);
    const c = await courier();
    const o1 = await order({ delivery_address: at(0.01, 0) });
    const o2 = await order({ delivery_address: at(0, 0.01) });
    const plan = await solvedPlan<{ id: string }>(t, op, {
      date: DATE,
      depot: depot.id,
      couriers: [{ courier_id: c.id }],
      order_ids: [o1.id, o2.id],
      time_limit_ms: 200,
    });
    expect((await client(t.app, m.test)('POST', `/v1/orders/${o2.id}/cancel`, { reason: 'changed mind' })).status).toBe(
      200,
    );
    const res = await call('POST', `/v1/route_plans/${plan.id}/commit`);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('plan_stale');
    expect(res.body.error.message).toContain(o2.id);
    expect(res.body.error.message).not.toContain(o1.id);
    expect((await client(t.app, m.test)('GET', `/v1/orders/${o1.id}`)).body.status).toBe('pending');
    expect((await eventsOf(t, o1.id)).some((e) => e.event === 'order.assigned')).toBe(false);
    expect((await call('GET', `/v1/route_plans/${plan.id}`)).body.committed_at).toBeNull();
  });

  it('reports unassigned orders with their reasons', async () => {
    const c = await courier({ capacity_packages: 1, shift_start: '09:00', shift_end: '17:00' });
    const nowhere = await order({ delivery_address: { address: 'Somewhere', city: 'Lima' } });
    const fits = await order({ delivery_address: at(0.01, 0.01), items: [{ description: 'Box', quantity: 1 }] });
    const tooBig = await order({ delivery_address: at(0.01, 0.02), items: [{ description: 'Box', quantity: 5 }] });
    const tooEarly = await order({ delivery_address: at(0.02, 0.01), time_window: { start: '05:00', end: '06:00' } });
    const done = await solvedPlan<any>(t, op, {
      date: DATE,
      depot: depot.id,
      couriers: [{ courier_id: c.id, capacity_packages: 4 }],
      order_ids: [nowhere.id, fits.id, tooBig.id, tooEarly.id],
      time_limit_ms: 200,
    });
    const reasons = Object.fromEntries(
      done.unassigned.map((u: { order_id: string; reason: string }) => [u.order_id, u.reason]),
    );
    expect(reasons[nowhere.id]).toBe('no_coordinates');
    expect(reasons[fits.id]).toBeUndefined();
    expect(reasons[tooBig.id]).toBe('capacity');
    expect(['time_window', 'shift']).toContain(reasons[tooEarly.id]);
  });

  it('plans by default every assignable order due that date, or undated', async () => {
    const call = client(t.app, op);
    const c = await courier();
    const due = await order({ requested_date: '2031-05-06T15:00:00Z' });
    const later = await order({ requested_date: '2031-05-07T15:00:00Z' });
    // 03:00 UTC on the 7th is still the 6th in Lima.
    const lateEvening = await order({ requested_date: '2031-05-07T03:00:00Z' });
    const plan = (
      await call('POST', '/v1/route_plans', {
        date: '2031-05-06',
        depot: depot.id,
        couriers: [{ courier_id: c.id }],
        time_limit_ms: 200,
      })
    ).body;
    expect(plan.order_ids).toContain(due.id);
    expect(plan.order_ids).toContain(lateEvening.id);
    expect(plan.order_ids).not.toContain(later.id);
    await finished(t, op, plan.id);
  });

  it('validates plan requests (422 with the param)', async () => {
    const call = client(t.app, op);
    const c = await courier();
    const o = await order();
    const base = { date: DATE, depot: depot.id, couriers: [{ courier_id: c.id }], order_ids: [o.id] };
    const cases: [Record<string, unknown>, string][] = [
      [{ ...base, date: '04/03/2030' }, 'date'],
      [{ ...base, depot: 'dep_nope' }, 'depot'],
      [{ ...base, couriers: [] }, 'couriers'],
      [{ ...base, couriers: [{ courier_id: 'cou_nope' }] }, 'couriers[0].courier_id'],
      [{ ...base, couriers: [{ courier_id: c.id }, { courier_id: c.id }] }, 'couriers[1].courier_id'],
      [
        { ...base, couriers: [{ courier_id: c.id, shift_start: '18:00', shift_end: '08:00' }] },
        'couriers[0].shift_end',
      ],
      [{ ...base, couriers: [{ courier_id: c.id, start_depot: 'dep_nope' }] }, 'couriers[0].start_depot'],
      [{ ...base, order_ids: ['ord_nope'] }, 'order_ids[0]'],
      [{ ...base, time_limit_ms: 60_001 }, 'time_limit_ms'],
      [{ ...base, objective: 'fastest' }, 'objective'],
    ];
    for (const [body, param] of cases) {
      const res = await call('POST', '/v1/route_plans', body);
      expect(res.status, `${param}: ${JSON.stringify(res.body)}`).toBe(422);
      expect(res.body.error.param).toBe(param);
    }
    expect((await call('GET', '/v1/route_plans/rplan_nope')).status).toBe(404);
    expect((await call('POST', '/v1/route_plans/rplan_nope/commit')).status).toBe(404);
  });
});

describeEach('route planning with OSRM', (engine) => {
  let t: TestApp;
  let osrm: Server;
  const requests: string[] = [];

  beforeAll(async () => {
    // Answers like OSRM's table service: every pair 600 s and 4 km apart.
    osrm = createServer((req, res) => {
      requests.push(req.url ?? '');
      const coords = decodeURIComponent((req.url ?? '').split('/table/v1/driving/')[1]?.split('?')[0] ?? '');
      const n = coords.split(';').length;
      const grid = (v: number) =>
        Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => (i === j ? 0 : v)));
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ code: 'Ok', durations: grid(600), distances: grid(4000) }));
    });
    await new Promise<void>((r) => osrm.listen(0, '127.0.0.1', r));
    const port = (osrm.address() as AddressInfo).port;
    t = await startApp(engine, { RUTA_OSRM_URL: `http://127.0.0.1:${port}`, RUTA_SERVICE_MINUTES_PER_STOP: '5' });
  });
  afterAll(async () => {
    await t?.close();
    await new Promise((r) => osrm?.close(r));
  });

  it('takes durations and distances from the table service', async () => {
    const op = await newOperator(t, 'test');
    const m = await newMerchant(t);
    const call = client(t.app, op);
    const depot = (await call('POST', '/v1/depots', { name: 'D', lat: LIMA.lat, lng: LIMA.lng })).body;
    const c = (await call('POST', '/v1/couriers', { name: 'C', shift_start: '08:00' })).body;
    const o = (await client(t.app, m.test)('POST', '/v1/orders', validOrder({ delivery_address: at(0.01, 0.01) })))
      .body;
    const done = await solvedPlan<any>(t, op, {
      date: DATE,
      depot: depot.id,
      couriers: [{ courier_id: c.id }],
      order_ids: [o.id],
      time_limit_ms: 200,
    });
    expect(requests.at(-1)).toBe(
      `/table/v1/driving/${LIMA.lng.toFixed(6)},${LIMA.lat.toFixed(6)};${(LIMA.lng + 0.01).toFixed(6)},${(LIMA.lat + 0.01).toFixed(6)}?annotations=duration,distance`,
    );
    const [route] = done.routes;
    // Out and back at 4 km each; arriving 10 minutes after the 08:00 (UTC) start.
    expect(route.distance_km).toBeCloseTo(8, 6);
    expect(route.stops[0].arrival_at).toBe(`${DATE}T08:10:00.000Z`);
    expect(route.duration_min).toBeCloseTo(25, 6);
  });
});
