// Pickup-and-delivery pairs (DESIGN §16, issue 21): an order with a pickup_address that is not a
// depot is collected there and delivered by the same courier, pickup first, in plans (checked here
// again with the solver's independent checker), in dispatch suggestions and on the stored route.
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { check, type Problem } from '../src/features/planning/solver/index.js';
import { haversineKm } from '../src/shared/geo.js';
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
import { solvedPlan } from './route-plan-helpers.js';

const NINE = Date.parse('2030-03-04T09:00:00Z');
const DATE = '2030-03-04';
let now = NINE;
const DEPOT = { lat: -12.1, lng: -77.03 };
const addr = (lat: number, lng: number) => ({ address: 'Calle 1', city: 'Lima', lat, lng });

type Stop = { order_id: string; kind?: string };

describeEach('pickup-and-delivery pairs', (engine) => {
  let t: TestApp;
  let opKey: string;
  let op: ReturnType<typeof client>;
  let depot: { id: string };

  beforeAll(async () => {
    t = await startApp(engine, { RUTA_SERVICE_MINUTES_PER_STOP: '5' }, { clock: () => now });
    opKey = await newOperator(t, 'test');
    op = client(t.app, opKey);
    depot = ok(await op('POST', '/v1/depots', { name: 'Main', ...DEPOT }), 201);
  });
  afterAll(async () => t?.close());
  beforeEach(() => {
    now = NINE;
  });

  const ok = <T = any>(res: Res<T>, status = 200): T => {
    expect(res.status, JSON.stringify(res.body).slice(0, 400)).toBe(status);
    return res.body;
  };

  it('creates an order with a pickup_address; one at a depot is that depot; bad ones are 422', async () => {
    const m = await newMerchant(t, 'Pairs');
    const mc = client(t.app, m.test);
    const o = ok(
      await mc('POST', '/v1/orders', validOrder({ pickup_address: addr(-12.05, -77.05), requested_date: DATE })),
      201,
    );
    expect(o.pickup_address).toMatchObject({ address: 'Calle 1', lat: -12.05, lng: -77.05, depot: null });
    expect(ok(await mc('GET', `/v1/orders/${o.id}`)).pickup_address).toEqual(o.pickup_address);
    const plain = ok(await mc('POST', '/v1/orders', validOrder()), 201);
    expect(plain.pickup_address).toBeNull();
    // 50 m from the depot: the parcel leaves from the depot, as any other order's.
    const atDepot = ok(await mc('POST', '/v1/orders', validOrder({ pickup_address: addr(-12.1004, -77.03) })), 201);
    expect(atDepot.pickup_address.depot).toBe(depot.id);

    const bad = async (pickup: unknown, param: string, code = 'parameter_invalid') => {
      const res = await mc('POST', '/v1/orders', validOrder({ pickup_address: pickup }));
      expect(res.status, JSON.stringify(res.body)).toBe(422);
      expect(res.body.error.code).toBe(code);
      expect(res.body.error.param).toBe(param);
    };
    await bad({ address: '   ', lat: -12, lng: -77 }, 'pickup_address.address');
    await bad({ address: 'Calle 2', lat: -12 }, 'pickup_address.lng');
    // Inside the nullable union AJV names the field itself.
    await bad({ address: 'Calle 2', lat: 91, lng: -77 }, 'pickup_address');
    await bad({ address: 'Calle 2', lat: -12, lng: -77, floor: 3 }, 'pickup_address.floor', 'parameter_unknown');
    await bad('Calle 2', 'pickup_address');
    // No coordinates and no geocoder configured: nowhere to drive to.
    await bad({ address: 'Calle 2' }, 'pickup_address');
    // The OpenAPI document describes it.
    const doc = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    const text = JSON.stringify(doc);
    expect(text).toContain('pickup-and-delivery pair');
  });

  it('a plan puts a pair on one courier, pickup first, as the independent checker agrees; commit stores both stops', async () => {
    const m = await newMerchant(t, 'Pairs plan');
    const mc = client(t.app, m.test);
    const pickup = { lat: -12.05, lng: -77.0 };
    const deliver = { lat: -12.15, lng: -77.06 };
    const pair = ok(
      await mc(
        'POST',
        '/v1/orders',
        validOrder({
          delivery_address: addr(deliver.lat, deliver.lng),
          pickup_address: addr(pickup.lat, pickup.lng),
          requested_date: DATE,
        }),
      ),
      201,
    );
    const other = ok(
      await mc('POST', '/v1/orders', validOrder({ delivery_address: addr(-12.12, -77.02), requested_date: DATE })),
      201,
    );
    const c1 = ok(await mc('POST', '/v1/couriers', { name: 'Uno' }), 201);
    const c2 = ok(await mc('POST', '/v1/couriers', { name: 'Dos' }), 201);
    const plan = await solvedPlan<any>(t, opKey, {
      date: DATE,
      depot: depot.id,
      couriers: [{ courier_id: c1.id }, { courier_id: c2.id }],
      order_ids: [pair.id, other.id],
      time_limit_ms: 200,
      seed: 1,
    });
    expect(plan.unassigned).toEqual([]);
    expect(plan.totals.orders).toBe(2);
    const routes = plan.routes as { courier_id: string; stops: Stop[] }[];
    const withPair = routes.filter((r) => r.stops.some((s) => s.order_id === pair.id));
    expect(withPair).toHaveLength(1);
    const stops = (withPair[0] as { stops: Stop[] }).stops;
    const kinds = stops.filter((s) => s.order_id === pair.id).map((s) => s.kind);
    expect(kinds).toEqual(['pickup', 'delivery']);

    // The independent checker, on the plan's routes as a problem of its own (straight-line km).
    const points = [DEPOT, pickup, deliver, { lat: -12.12, lng: -77.02 }];
    const n = points.length;
    const km = new Float64Array(n * n);
    for (const [i, a] of points.entries()) for (const [j, b] of points.entries()) km[i * n + j] = haversineKm(a, b);
    const job = (location: number, extra = {}) => ({ location, demand: [1], service: 0, ready: 0, due: 1e9, ...extra });
    const jobIndex = (s: Stop) => (s.order_id === other.id ? 2 : s.kind === 'pickup' ? 0 : 1);
    const problem: Problem = {
      size: n,
      time: km,
      distance: km,
      jobs: [job(1, { delivery: 1 }), job(2), job(3)],
      vehicles: routes.map(() => ({ capacity: [10], shiftStart: 0, shiftEnd: 1e9, startLocation: 0, endLocation: 0 })),
    };
    const verdict = check(problem, { routes: routes.map((r) => r.stops.map(jobIndex)), unassigned: [] });
    expect(verdict.errors).toEqual([]);
    // …and the same checker refuses the pair reversed, so it could have failed.
    const reversed = routes.map((r) => r.stops.map(jobIndex).map((j) => (j === 0 ? 1 : j === 1 ? 0 : j)));
    expect(check(problem, { routes: reversed, unassigned: [] }).errors.join()).toMatch(/delivered before picked up/);

    const committed = ok(await op('POST', `/v1/route_plans/${plan.id}/commit`, {}));
    const routeId = committed.route_ids[routes.indexOf(withPair[0] as never)];
    const route = ok(await op('GET', `/v1/routes/${routeId}`));
    const onRoute = route.stops.filter((s: any) => s.order === pair.id);
    expect(onRoute.map((s: any) => s.kind)).toEqual(['pickup', 'delivery']);
    expect(onRoute[0].position).toBeLessThan(onRoute[1].position);
    expect(ok(await mc('GET', `/v1/orders/${pair.id}`)).status).toBe('assigned');
  });

  it('suggests and dispatches a paired order into a route under way: pickup before delivery', async () => {
    const m = await newMerchant(t, 'Pairs dispatch');
    const mc = client(t.app, m.test);
    const c = ok(await mc('POST', '/v1/couriers', { name: 'Tres' }), 201);
    ok(await mc('POST', `/v1/couriers/${c.id}/location`, { lat: -12.1, lng: -77.03 }));
    const o1 = ok(await mc('POST', '/v1/orders', validOrder({ delivery_address: addr(-12.11, -77.03) })), 201);
    const o2 = ok(await mc('POST', '/v1/orders', validOrder({ delivery_address: addr(-12.13, -77.03) })), 201);
    const r = ok(await mc('POST', '/v1/routes', { courier_id: c.id, order_ids: [o1.id, o2.id] }), 201);
    // Collected between the two stops, delivered past the last.
    const pair = ok(
      await mc(
        'POST',
        '/v1/orders',
        validOrder({ delivery_address: addr(-12.14, -77.03), pickup_address: addr(-12.12, -77.031) }),
      ),
      201,
    );
    const list = ok(await op('GET', `/v1/orders/${pair.id}/dispatch_suggestions`));
    const best = list.data[0];
    expect(best).toMatchObject({ route: r.id, feasible: true, pickup_position: 2, position: 4 });
    const pairStops = best.stops.filter((s: any) => s.order_id === pair.id);
    expect(pairStops.map((s: any) => s.kind ?? 'delivery')).toEqual(['pickup', 'delivery']);
    expect(Date.parse(pairStops[0].arrival_at)).toBeLessThan(Date.parse(pairStops[1].arrival_at));

    const done = ok(await op('POST', `/v1/orders/${pair.id}/dispatch`, {}));
    expect(done.route).toBe(r.id);
    const route = ok(await op('GET', `/v1/routes/${r.id}`));
    expect(route.stops.map((s: any) => [s.order, s.kind])).toEqual([
      [o1.id, 'delivery'],
      [pair.id, 'pickup'],
      [o2.id, 'delivery'],
      [pair.id, 'delivery'],
    ]);
  });

  it('re-optimizing a route with a pair keeps its pickup first, and applying keeps both stops', async () => {
    const m = await newMerchant(t, 'Pairs reopt');
    const mc = client(t.app, m.test);
    const c = ok(await mc('POST', '/v1/couriers', { name: 'Cinco' }), 201);
    ok(await mc('POST', `/v1/couriers/${c.id}/location`, { lat: -12.1, lng: -77.03 }));
    const far = ok(await mc('POST', '/v1/orders', validOrder({ delivery_address: addr(-12.2, -77.03) })), 201);
    const near = ok(await mc('POST', '/v1/orders', validOrder({ delivery_address: addr(-12.11, -77.03) })), 201);
    const pair = ok(
      await mc(
        'POST',
        '/v1/orders',
        validOrder({ delivery_address: addr(-12.15, -77.03), pickup_address: addr(-12.12, -77.03) }),
      ),
      201,
    );
    // A poor order by hand: far first, the pair's pickup just before its delivery, near last.
    const r = ok(await mc('POST', '/v1/routes', { courier_id: c.id, order_ids: [far.id, pair.id, near.id] }), 201);
    const res = ok(await op('POST', `/v1/routes/${r.id}/reoptimize`, { time_limit_ms: 200, apply: true }));
    expect(res.applied).toBe(true);
    expect(res.saving.distance_km).toBeGreaterThan(0);
    const ids = res.proposed.order_ids as string[];
    expect(ids.filter((x) => x === pair.id)).toHaveLength(2);
    const route = ok(await op('GET', `/v1/routes/${r.id}`));
    const kinds = route.stops.map((s: any) => [s.order, s.kind]);
    expect(kinds).toHaveLength(4);
    const pickupAt = kinds.findIndex(([o, k]: string[]) => o === pair.id && k === 'pickup');
    const deliveryAt = kinds.findIndex(([o, k]: string[]) => o === pair.id && k === 'delivery');
    expect(pickupAt).toBeGreaterThanOrEqual(0);
    expect(pickupAt).toBeLessThan(deliveryAt);
    expect(kinds.at(-1)).toEqual([far.id, 'delivery']);
  });

  it('a route made by hand puts a pair\u2019s pickup just before its delivery; another account cannot see it', async () => {
    const m = await newMerchant(t, 'Pairs route');
    const mc = client(t.app, m.test);
    const c = ok(await mc('POST', '/v1/couriers', { name: 'Cuatro' }), 201);
    const plain = ok(await mc('POST', '/v1/orders', validOrder()), 201);
    const pair = ok(await mc('POST', '/v1/orders', validOrder({ pickup_address: addr(-12.05, -77.05) })), 201);
    const r = ok(await mc('POST', '/v1/routes', { courier_id: c.id, order_ids: [plain.id, pair.id] }), 201);
    expect(r.stops.map((s: any) => [s.position, s.kind])).toEqual([
      [1, 'delivery'],
      [2, 'pickup'],
      [3, 'delivery'],
    ]);
    const stranger = client(t.app, (await newMerchant(t, 'Other')).test);
    expect((await stranger('GET', `/v1/orders/${pair.id}`)).status).toBe(404);
    expect((await stranger('GET', `/v1/routes/${r.id}`)).status).toBe(404);
  });
});
