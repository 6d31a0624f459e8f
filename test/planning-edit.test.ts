import { afterAll, beforeAll, expect, it } from 'vitest';
import { haversineKm, type Point } from '../src/shared/geo.js';
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
import { newUser, sessionClient, signIn } from './people-helpers.js';
import { solvedPlan } from './route-plan-helpers.js';

// PATCH /v1/route_plans/{id} (DESIGN §8, §10): the dispatcher moves stops, the server times them
// again with the run's travel model and marks what breaks; the commit takes the edited routes.

const DATE = '2030-03-04';
const LIMA = { lat: -12.1211, lng: -77.0297 };
const SPEED_KMH = 25;
const SERVICE_MIN = 5;
const place = (dLat: number, dLng: number) => ({ lat: LIMA.lat + dLat, lng: LIMA.lng + dLng });

interface Stop {
  order_id: string;
  arrival_at: string;
  service_start_at: string;
  departure_at: string;
  load_packages: number;
  load_kg: number;
  violations: { constraint: string; message: string }[];
}
interface Route {
  courier_id: string;
  stops: Stop[];
  start_at: string;
  end_at: string;
  distance_km: number;
  duration_min: number;
}

/** Haversine × 1.3 at 25 km/h, 5 minutes a stop, waiting for a window: what a route should say, worked out here. */
function expected(startIso: string, points: Point[], windows: (number | null)[] = []) {
  const km = (a: Point, b: Point) => haversineKm(a, b) * 1.3;
  let at = LIMA as Point;
  let clock = Date.parse(startIso);
  let distance = 0;
  const stops = points.map((p, i) => {
    distance += km(at, p);
    const arrival = clock + (km(at, p) / SPEED_KMH) * 3_600_000;
    const start = Math.max(arrival, windows[i] ?? 0);
    clock = start + SERVICE_MIN * 60_000;
    at = p;
    return { arrival, start, departure: clock };
  });
  distance += km(at, LIMA);
  const end = clock + (km(at, LIMA) / SPEED_KMH) * 3_600_000;
  return { stops, end, distance };
}

describeEach('route plan edits', (engine) => {
  let t: TestApp;
  let m: Merchant;
  let op: string;
  let opLive: string;
  let depot: { id: string };

  beforeAll(async () => {
    t = await startApp(engine, {
      RUTA_DEFAULT_TIMEZONE: 'America/Lima',
      RUTA_SERVICE_MINUTES_PER_STOP: String(SERVICE_MIN),
      RUTA_COURIER_SPEED_KMH: String(SPEED_KMH),
    });
    m = await newMerchant(t);
    op = await newOperator(t, 'test');
    opLive = await newOperator(t, 'live');
    depot = (await client(t.app, op)('POST', '/v1/depots', { name: 'Main', lat: LIMA.lat, lng: LIMA.lng })).body;
  });
  afterAll(async () => t?.close());

  const order = async (where: Point | null, over: Record<string, unknown> = {}) => {
    const address = where ? { address: 'Av. Larco 1', city: 'Lima', ...where } : { address: 'Nowhere', city: 'Lima' };
    const res = await client(t.app, m.test)(
      'POST',
      '/v1/orders',
      validOrder({ delivery_address: address, items: [{ description: 'Box', quantity: 1, weight_kg: 2 }], ...over }),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body as { id: string };
  };

  /**
   * A solved plan: Ana works 08:00–18:00 (Lima) with room for 3 packages, Beto has no limits; five
   * orders about 1–3 km from the depot (the last with a 08:00–08:20 window) and one without coordinates.
   */
  async function twoCourierPlan() {
    const call = client(t.app, op);
    const ana = (await call('POST', '/v1/couriers', { name: 'Ana', shift_start: '08:00', shift_end: '18:00' })).body;
    const beto = (await call('POST', '/v1/couriers', { name: 'Beto' })).body;
    const spots = [
      place(0.01, 0.005),
      place(0.02, -0.01),
      place(-0.01, 0.015),
      place(-0.02, -0.01),
      place(0.012, 0.02),
    ];
    const [o1, o2, o3, o4] = await Promise.all(spots.slice(0, 4).map((s) => order(s)));
    const w = await order(spots[4] as Point, { time_window: { start: '08:00', end: '08:20' } });
    const nc = await order(null);
    const plan = await solvedPlan<any>(t, op, {
      date: DATE,
      depot: depot.id,
      couriers: [{ courier_id: ana.id, capacity_packages: 3 }, { courier_id: beto.id }],
      order_ids: [o1.id, o2.id, o3.id, o4.id, w.id, nc.id],
      time_limit_ms: 100,
    });
    expect(plan.edited_at).toBeNull();
    expect(plan.totals.violations).toBe(0);
    const ids = { o1: o1.id, o2: o2.id, o3: o3.id, o4: o4.id, w: w.id, nc: nc.id };
    const at: Record<string, Point> = {
      [o1.id]: spots[0] as Point,
      [o2.id]: spots[1] as Point,
      [o3.id]: spots[2] as Point,
      [o4.id]: spots[3] as Point,
      [w.id]: spots[4] as Point,
    };
    return { plan, ana: ana.id as string, beto: beto.id as string, ids, at };
  }

  const edit = (key: string, id: string, body: unknown) => client(t.app, key)('PATCH', `/v1/route_plans/${id}`, body);
  const routeOf = (plan: { routes: Route[] }, courier: string) => plan.routes.find((r) => r.courier_id === courier);
  const stopIds = (r: Route | undefined) => r?.stops.map((s) => s.order_id);

  it('reorders a route and recomputes its times, loads and distance with the run\u2019s travel model', async () => {
    const { plan, ana, beto, ids, at } = await twoCourierPlan();
    const first = await edit(op, plan.id, {
      routes: [
        { courier_id: ana, order_ids: [ids.o1, ids.o2] },
        { courier_id: beto, order_ids: [ids.w, ids.o3, ids.o4] },
      ],
    });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const res = await edit(op, plan.id, { routes: [{ courier_id: ana, order_ids: [ids.o2, ids.o1] }] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const p = res.body;
    expect(p.edited_at).not.toBeNull();
    expect(Date.parse(p.updated_at)).toBeGreaterThan(Date.parse(first.body.updated_at));
    const a = routeOf(p, ana) as Route;
    expect(stopIds(a)).toEqual([ids.o2, ids.o1]);
    // Beto's route was not named: it stays as the first edit left it.
    expect(stopIds(routeOf(p, beto))).toEqual([ids.w, ids.o3, ids.o4]);
    // Ana leaves at 08:00 Lima (13:00Z); every figure matches the model worked out independently.
    expect(a.start_at).toBe(`${DATE}T13:00:00.000Z`);
    const want = expected(a.start_at, [at[ids.o2] as Point, at[ids.o1] as Point]);
    for (const [k, s] of a.stops.entries()) {
      expect(Math.abs(Date.parse(s.arrival_at) - (want.stops[k]?.arrival ?? 0))).toBeLessThanOrEqual(1);
      expect(Date.parse(s.departure_at) - Date.parse(s.service_start_at)).toBe(SERVICE_MIN * 60_000);
      expect(s.violations).toEqual([]);
    }
    expect(Math.abs(Date.parse(a.end_at) - want.end)).toBeLessThanOrEqual(1);
    expect(a.distance_km).toBeCloseTo(want.distance, 2);
    expect(a.stops.map((s) => [s.load_packages, s.load_kg])).toEqual([
      [1, 2],
      [0, 0],
    ]);
    // Beto has no shift: he works the depot's default day from 08:00 (13:00Z, RUTA_DEFAULT_SHIFT),
    // never from midnight (issue #18, defect 13), and reaches the 08:00–08:20 window first.
    const b = routeOf(p, beto) as Route;
    expect(b.start_at).toBe(`${DATE}T13:00:00.000Z`);
    const ws = b.stops[0] as Stop;
    expect(Date.parse(ws.service_start_at)).toBeGreaterThan(Date.parse(`${DATE}T13:00:00.000Z`));
    expect(Date.parse(ws.service_start_at)).toBeLessThanOrEqual(Date.parse(`${DATE}T13:20:00.000Z`));
    expect(p.totals).toMatchObject({ routes: 2, orders: 5, unassigned: 1, violations: 0 });
    expect(p.totals.distance_km).toBeCloseTo(a.distance_km + b.distance_km, 2);
    expect(p.unassigned).toEqual([{ order_id: ids.nc, reason: 'no_coordinates' }]);
    // Read back, the plan is the edited one.
    expect((await client(t.app, op)('GET', `/v1/route_plans/${plan.id}`)).body).toEqual(p);
  });

  it('moves stops between routes, to unassigned (reason manual) and back, and emits route_plan on the stream', async () => {
    const { plan, ana, beto, ids } = await twoCourierPlan();
    const live: { kind: string; audience: unknown; data: Record<string, unknown> }[] = [];
    const unsubscribe = t.ctx.live.subscribe((msg) => live.push(msg as (typeof live)[number]));
    const base = await edit(op, plan.id, {
      routes: [
        { courier_id: ana, order_ids: [ids.o1, ids.o2] },
        { courier_id: beto, order_ids: [ids.o3, ids.o4, ids.w] },
      ],
    });
    expect(base.status).toBe(200);
    // o1 moves to the front of Beto's route; Ana's route, not named, loses it.
    const moved = await edit(op, plan.id, {
      routes: [{ courier_id: beto, order_ids: [ids.o1, ids.o3, ids.o4, ids.w] }],
    });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(stopIds(routeOf(moved.body, ana))).toEqual([ids.o2]);
    expect(stopIds(routeOf(moved.body, beto))).toEqual([ids.o1, ids.o3, ids.o4, ids.w]);
    expect(routeOf(moved.body, beto)?.stops[0]?.load_packages).toBe(3);
    // Ana's last stop off her route: she has none left, and o2 is left out by hand.
    const dropped = await edit(op, plan.id, { routes: [{ courier_id: ana, order_ids: [] }] });
    expect(dropped.status).toBe(200);
    expect(routeOf(dropped.body, ana)).toBeUndefined();
    expect(dropped.body.unassigned).toEqual(
      expect.arrayContaining([
        { order_id: ids.o2, reason: 'manual' },
        { order_id: ids.nc, reason: 'no_coordinates' },
      ]),
    );
    expect(dropped.body.totals).toMatchObject({ routes: 1, orders: 4, unassigned: 2 });
    // And back onto a route from unassigned.
    const back = await edit(op, plan.id, { routes: [{ courier_id: ana, order_ids: [ids.o2] }] });
    expect(back.status).toBe(200);
    expect(stopIds(routeOf(back.body, ana))).toEqual([ids.o2]);
    expect(back.body.unassigned).toEqual([{ order_id: ids.nc, reason: 'no_coordinates' }]);
    unsubscribe();
    const mine = live.filter((x) => x.kind === 'route_plan' && x.data.id === plan.id);
    expect(mine).toHaveLength(4);
    expect(mine.at(-1)?.data).toMatchObject({ status: 'succeeded', edited_at: back.body.edited_at });
    expect(mine[0]?.audience).toEqual({ mode: 'test', accountId: null });
  });

  it('accepts an infeasible edit with a warning on each stop that breaks something; the commit then needs force', async () => {
    const { plan, ana, beto, ids } = await twoCourierPlan();
    // Four packages for Ana's three, and the 08:00–08:20 window served last.
    const res = await edit(op, plan.id, {
      routes: [
        { courier_id: ana, order_ids: [ids.o1, ids.o2, ids.o3, ids.w] },
        { courier_id: beto, order_ids: [ids.o4] },
      ],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const a = routeOf(res.body, ana) as Route;
    expect(a.stops.map((s) => s.violations.map((v) => v.constraint))).toEqual([
      [],
      [],
      [],
      ['time_window', 'capacity'],
    ]);
    const [late, over] = (a.stops[3] as Stop).violations;
    expect(late?.message).toMatch(/^Served at \d\d:\d\d, after its window 08:00.08:20$/);
    expect(over?.message).toContain('4 packages');
    expect(res.body.totals.violations).toBe(2);

    const refused = await client(t.app, op)('POST', `/v1/route_plans/${plan.id}/commit`, {});
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'plan_has_violations', param: 'force' });
    expect(refused.body.error.message).toContain(`${ids.w} (time_window)`);
    expect((await client(t.app, m.test)('GET', `/v1/orders/${ids.o1}`)).body.status).toBe('pending');

    const forced = await client(t.app, op)('POST', `/v1/route_plans/${plan.id}/commit`, { force: true });
    expect(forced.status, JSON.stringify(forced.body)).toBe(200);
    const route = (await client(t.app, op)('GET', `/v1/routes/${forced.body.route_ids[0]}`)).body;
    expect(route.courier.id).toBe(ana);
    expect(route.stops.map((s: { order: string }) => s.order)).toEqual([ids.o1, ids.o2, ids.o3, ids.w]);
  });

  it('a shift that ends too early is marked on the last stop', async () => {
    const call = client(t.app, op);
    const short = (await call('POST', '/v1/couriers', { name: 'Corto', shift_start: '08:00', shift_end: '08:20' }))
      .body;
    const far = [await order(place(0.02, 0.01)), await order(place(-0.02, 0.01))].map((o) => o.id);
    const solved = await solvedPlan<any>(t, op, {
      date: DATE,
      depot: depot.id,
      couriers: [{ courier_id: short.id }],
      order_ids: far,
      time_limit_ms: 100,
    });
    // Out and back to either takes more than the 20 minutes: the solver left both out.
    expect(solved.unassigned.map((u: { reason: string }) => u.reason)).toEqual(['shift', 'shift']);
    const res = await edit(op, solved.id, { routes: [{ courier_id: short.id, order_ids: far }] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const r = routeOf(res.body, short.id) as Route;
    expect(r.stops.map((s) => s.violations.map((v) => v.constraint))).toEqual([[], ['shift']]);
    expect(r.stops[1]?.violations[0]?.message).toMatch(/^Back at Main at \d\d:\d\d, after the shift ends \(08:20\)$/);
    expect(res.body.unassigned).toEqual([]);
  });

  it('commits the edited routes in the edited order: each order assigned to its new courier', async () => {
    const { plan, ana, beto, ids } = await twoCourierPlan();
    const call = client(t.app, op);
    const res = await edit(op, plan.id, {
      routes: [
        { courier_id: ana, order_ids: [ids.o3, ids.o1] },
        { courier_id: beto, order_ids: [ids.w, ids.o4] },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.totals.violations).toBe(0);
    const committed = await call('POST', `/v1/route_plans/${plan.id}/commit`);
    expect(committed.status, JSON.stringify(committed.body)).toBe(200);
    expect(committed.body.edited_at).toBe(res.body.edited_at);
    const want: Record<string, string[]> = { [ana]: [ids.o3, ids.o1], [beto]: [ids.w, ids.o4] };
    expect(committed.body.route_ids).toHaveLength(2);
    for (const rid of committed.body.route_ids) {
      const route = (await call('GET', `/v1/routes/${rid}`)).body;
      expect(route.stops.map((s: { order: string }) => s.order)).toEqual(want[route.courier.id]);
      for (const oid of want[route.courier.id] ?? []) {
        const o = (await client(t.app, m.test)('GET', `/v1/orders/${oid}`)).body;
        expect([o.status, o.courier?.id, o.route]).toEqual(['assigned', route.courier.id, rid]);
      }
    }
    // o2, taken off by the edit, is not assigned.
    expect((await client(t.app, m.test)('GET', `/v1/orders/${ids.o2}`)).body.status).toBe('pending');
    expect((await eventsOf(t, ids.o2)).some((e) => e.event === 'order.assigned')).toBe(false);
    // After the commit: no more edits.
    const late = await edit(op, plan.id, { routes: [{ courier_id: ana, order_ids: [ids.o1] }] });
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe('plan_not_ready');
  });

  it('an edit racing a commit never commits routes other than the stored ones', async () => {
    const { plan, ana, beto, ids } = await twoCourierPlan();
    const call = client(t.app, op);
    const [edited, committed] = await Promise.all([
      edit(op, plan.id, {
        routes: [
          { courier_id: ana, order_ids: [ids.o2, ids.o1] },
          { courier_id: beto, order_ids: [ids.o3, ids.o4, ids.w] },
        ],
      }),
      call('POST', `/v1/route_plans/${plan.id}/commit`),
    ]);
    expect([200, 409]).toContain(edited.status);
    expect([200, 409]).toContain(committed.status);
    const final = (await call('GET', `/v1/route_plans/${plan.id}`)).body;
    if (final.committed_at !== null) {
      for (const [i, rid] of final.route_ids.entries()) {
        const route = (await call('GET', `/v1/routes/${rid}`)).body;
        expect(route.stops.map((s: { order: string }) => s.order)).toEqual(stopIds(final.routes[i]));
      }
    } else {
      expect(committed.status).toBe(409);
    }
  });

  it('refuses malformed and impossible edits with the param (422), and bad JSON (400)', async () => {
    const { plan, ana, beto, ids } = await twoCourierPlan();
    const other = await order(place(0.001, 0.001));
    const stranger = (await client(t.app, op)('POST', '/v1/couriers', { name: 'X' })).body;
    const cases: [unknown, string, string][] = [
      [{}, 'routes', 'parameter_missing'],
      [{ routes: [] }, 'routes', 'parameter_invalid'],
      [{ routes: [{ courier_id: ana }] }, 'routes[0].order_ids', 'parameter_missing'],
      [{ routes: [{ courier_id: ana, order_ids: 'x' }] }, 'routes[0].order_ids', 'parameter_invalid'],
      [{ routes: [{ courier_id: ana, order_ids: [], zzz: 1 }] }, 'routes[0].zzz', 'parameter_unknown'],
      [{ routes: [{ courier_id: stranger.id, order_ids: [] }] }, 'routes[0].courier_id', 'parameter_invalid'],
      [
        {
          routes: [
            { courier_id: ana, order_ids: [] },
            { courier_id: ana, order_ids: [] },
          ],
        },
        'routes[1].courier_id',
        'parameter_invalid',
      ],
      [{ routes: [{ courier_id: ana, order_ids: [other.id] }] }, 'routes[0].order_ids[0]', 'parameter_invalid'],
      [{ routes: [{ courier_id: ana, order_ids: ['ord_nope'] }] }, 'routes[0].order_ids[0]', 'parameter_invalid'],
      [
        {
          routes: [
            { courier_id: ana, order_ids: [ids.o1] },
            { courier_id: beto, order_ids: [ids.o2, ids.o1] },
          ],
        },
        'routes[1].order_ids[1]',
        'parameter_invalid',
      ],
      [{ routes: [{ courier_id: ana, order_ids: [ids.o1, ids.o1] }] }, 'routes[0].order_ids[1]', 'parameter_invalid'],
      [{ routes: [{ courier_id: ana, order_ids: [ids.nc] }] }, 'routes[0].order_ids[0]', 'parameter_invalid'],
    ];
    for (const [body, param, code] of cases) {
      const res = await edit(op, plan.id, body);
      expect(res.status, `${param}: ${JSON.stringify(res.body)}`).toBe(422);
      expect(res.body.error.param, JSON.stringify(res.body)).toBe(param);
      expect(res.body.error.code, param).toBe(code);
    }
    const bad = await client(t.app, op)('PATCH', `/v1/route_plans/${plan.id}`, '{"routes":', {
      'content-type': 'application/json',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_json');
    expect((await edit(op, 'rplan_nope', { routes: [{ courier_id: ana, order_ids: [] }] })).status).toBe(404);
    // Nothing was changed by any of them.
    const after = (await client(t.app, op)('GET', `/v1/route_plans/${plan.id}`)).body;
    expect(after.edited_at).toBeNull();
    expect(after.routes).toEqual(plan.routes);
  });

  it('isolation: carrier only (merchants 403), one environment (404), no key 401; dispatchers may edit', async () => {
    const { plan, ana, ids } = await twoCourierPlan();
    const body = { routes: [{ courier_id: ana, order_ids: [ids.o1] }] };
    expect((await edit(opLive, plan.id, body)).status).toBe(404);
    for (const key of [m.test, m.live]) expect((await edit(key, plan.id, body)).status).toBe(403);
    expect((await client(t.app)('PATCH', `/v1/route_plans/${plan.id}`, body)).status).toBe(401);
    const merchantUser = await signIn(t, (await newUser(t, 'merchant', m.accountId)).email);
    expect((await sessionClient(t, merchantUser)('PATCH', `/v1/route_plans/${plan.id}`, body)).status).toBe(403);
    // A dispatcher signed in to live does not see the test plan; in test it edits it.
    const dispatcher = await signIn(t, (await newUser(t, 'dispatcher')).email);
    expect((await sessionClient(t, dispatcher, 'live')('PATCH', `/v1/route_plans/${plan.id}`, body)).status).toBe(404);
    const ok = await sessionClient(t, dispatcher, 'test')('PATCH', `/v1/route_plans/${plan.id}`, body);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(stopIds(routeOf(ok.body, ana))).toEqual([ids.o1]);
    // Nothing another environment's carrier did changed it.
    expect((await client(t.app, op)('GET', `/v1/route_plans/${plan.id}`)).body.edited_at).toBe(ok.body.edited_at);
  });
});
