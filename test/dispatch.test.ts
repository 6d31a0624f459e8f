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
import { eventsOf, orderIn } from './lifecycle-helpers.js';

/** Written out independently of src/: great-circle km on a 6371.0088 km sphere. */
function km(a: [number, number], b: [number, number]): number {
  const r = Math.PI / 180;
  const h =
    Math.sin(((b[0] - a[0]) * r) / 2) ** 2 +
    Math.cos(a[0] * r) * Math.cos(b[0] * r) * Math.sin(((b[1] - a[1]) * r) / 2) ** 2;
  return 2 * 6371.0088 * Math.asin(Math.sqrt(h));
}

describeEach('couriers, routes and ETA', (engine) => {
  let t: TestApp;
  let m: Merchant;
  let other: Merchant;
  let op: string;
  let opLive: string;

  beforeAll(async () => {
    t = await startApp(engine, { RUTA_COURIER_SPEED_KMH: '20', RUTA_SERVICE_MINUTES_PER_STOP: '4' });
    m = await newMerchant(t);
    other = await newMerchant(t, 'Other');
    op = await newOperator(t, 'test');
    opLive = await newOperator(t, 'live');
  });
  afterAll(async () => t?.close());

  it('says what a nullable number must be, not that it matches no allowed type', async () => {
    const call = client(t.app, op);
    const cases: [Record<string, unknown>, string][] = [
      [{ capacity_kg: -5 }, 'Invalid capacity_kg: must be >= 0, or null.'],
      [{ capacity_packages: 1.5 }, 'Invalid capacity_packages: must be of type integer, or null.'],
      [{ capacity_kg: 'ten' }, 'Invalid capacity_kg: must be of type number, or null.'],
    ];
    for (const [body, message] of cases) {
      const res = await call('POST', '/v1/couriers', { name: 'Cifras', ...body });
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'parameter_invalid', param: Object.keys(body)[0], message });
    }
  });

  it('refuses a courier shift that ends before it starts, on create and on edit, and keeps the courier as it was', async () => {
    const call = client(t.app, op);
    const night = await call('POST', '/v1/couriers', { name: 'Noche', shift_start: '22:00', shift_end: '09:00' });
    expect(night.status).toBe(422);
    expect(night.body.error).toMatchObject({ code: 'parameter_invalid', param: 'shift_end' });
    expect(night.body.error.message).toContain('must end after it starts (22:00)');
    const c = (await call('POST', '/v1/couriers', { name: 'Día', shift_start: '08:00', shift_end: '17:00' })).body;
    // One end changed against the stored other: 22:00 after 17:00, then 07:00 before 08:00.
    for (const body of [
      { shift_start: '22:00' },
      { shift_end: '07:00' },
      { shift_start: '12:00', shift_end: '12:00' },
    ]) {
      const res = await call('PATCH', `/v1/couriers/${c.id}`, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error.param).toBe('shift_end');
    }
    expect((await call('GET', `/v1/couriers/${c.id}`)).body).toMatchObject({
      shift_start: '08:00',
      shift_end: '17:00',
    });
    // Moving both together is one check of the new pair; clearing one end is always allowed.
    expect((await call('PATCH', `/v1/couriers/${c.id}`, { shift_start: '18:00', shift_end: '23:00' })).status).toBe(
      200,
    );
    expect((await call('PATCH', `/v1/couriers/${c.id}`, { shift_end: null })).body).toMatchObject({ shift_end: null });
  });

  it('creates, reads, lists and updates couriers; a rename reaches their orders', async () => {
    const call = client(t.app, op);
    const created = await call('POST', '/v1/couriers', { name: 'Luis', phone: '+51987000111', vehicle: 'bicycle' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      object: 'courier',
      name: 'Luis',
      phone: '+51987000111',
      vehicle: 'bicycle',
      livemode: false,
      account: null,
      location: null,
    });
    const c = created.body;
    expect(c.id).toMatch(/^cou_/);
    expect((await call('GET', `/v1/couriers/${c.id}`)).body).toEqual(c);
    expect((await call('POST', '/v1/couriers', { name: '' })).body.error.param).toBe('name');
    expect((await call('POST', '/v1/couriers', { name: 'X', vehicle: 'rocket' })).body.error.param).toBe('vehicle');
    expect((await call('POST', '/v1/couriers', { name: 'X', phone: '123' })).body.error.param).toBe('phone');
    expect((await call('POST', '/v1/couriers', { name: 'X', age: 3 })).body.error.code).toBe('parameter_unknown');

    const o = await orderIn(t, m.test, op, c.id, 'assigned');
    const patched = await call('PATCH', `/v1/couriers/${c.id}`, { name: 'Luis R.', phone: null });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: 'Luis R.', phone: null, vehicle: 'bicycle' });
    expect((await client(t.app, m.test)('GET', `/v1/orders/${o.id}`)).body.courier).toEqual({
      id: c.id,
      name: 'Luis R.',
    });
    expect((await client(t.app, m.test)('GET', `/v1/orders/${o.id}/tracking`)).body.courier.name).toBe('Luis R.');

    const second = (await call('POST', '/v1/couriers', { name: 'Second' })).body;
    const page1 = await call('GET', '/v1/couriers?limit=1');
    expect(page1.body.data.map((x: { id: string }) => x.id)).toEqual([second.id]);
    expect(page1.body.has_more).toBe(true);
    const page2 = await call('GET', `/v1/couriers?limit=100&starting_after=${second.id}`);
    expect(page2.body.data.map((x: { id: string }) => x.id)).toContain(c.id);
    expect((await call('GET', '/v1/couriers?starting_after=cou_nope')).status).toBe(422);
    expect((await call('GET', '/v1/couriers?limit=0')).status).toBe(422);
  });

  it('scopes couriers: operator sees its environment, test keys only their sandbox couriers', async () => {
    const carrier = (await client(t.app, op)('POST', '/v1/couriers', { name: 'Carrier' })).body;
    const sandbox = (await client(t.app, m.test)('POST', '/v1/couriers', { name: 'Mine' })).body;
    expect(sandbox.account).toBe(m.accountId);
    const opList = (await client(t.app, op)('GET', '/v1/couriers?limit=100')).body.data.map((x: any) => x.id);
    expect(opList).toEqual(expect.arrayContaining([carrier.id, sandbox.id]));
    const mine = (await client(t.app, m.test)('GET', '/v1/couriers?limit=100')).body.data.map((x: any) => x.id);
    expect(mine).toEqual([sandbox.id]);
    expect((await client(t.app, other.test)('GET', `/v1/couriers/${sandbox.id}`)).status).toBe(404);
    expect((await client(t.app, m.test)('GET', `/v1/couriers/${carrier.id}`)).status).toBe(404);
    expect((await client(t.app, opLive)('GET', `/v1/couriers/${carrier.id}`)).status).toBe(404);
    expect((await client(t.app, opLive)('GET', '/v1/couriers')).body.data).toEqual([]);
    expect(
      (await client(t.app, other.test)('POST', `/v1/couriers/${sandbox.id}/location`, { lat: 0, lng: 0 })).status,
    ).toBe(404);
    expect((await client(t.app, other.test)('PATCH', `/v1/couriers/${sandbox.id}`, { name: 'x' })).status).toBe(404);
    expect((await client(t.app, m.live)('GET', `/v1/couriers/${sandbox.id}`)).status).toBe(403);
    expect((await client(t.app)('GET', '/v1/couriers')).status).toBe(401);
  });

  it('location pings update the latest position, ignore stale fixes, keep a bounded history', async () => {
    const call = client(t.app, op);
    const c = (await call('POST', '/v1/couriers', { name: 'Pinger' })).body;
    const fix = new Date(Date.parse(c.created_at) + 5000).toISOString();
    const first = await call('POST', `/v1/couriers/${c.id}/location`, { lat: -12.1, lng: -77.03, recorded_at: fix });
    expect(first.status).toBe(200);
    expect(first.body.location).toEqual({ lat: -12.1, lng: -77.03, recorded_at: fix });
    const stale = await call('POST', `/v1/couriers/${c.id}/location`, {
      lat: 1,
      lng: 1,
      recorded_at: c.created_at,
    });
    expect(stale.status).toBe(200);
    expect(stale.body.location.lat).toBe(-12.1);
    for (const [body, param] of [
      [{ lat: 91, lng: 0 }, 'lat'],
      [{ lat: 0, lng: -181 }, 'lng'],
      [{ lat: '1', lng: 0 }, 'lat'],
      [{ lng: 0 }, 'lat'],
      [{ lat: 0, lng: 0, recorded_at: '2999-01-01T00:00:00Z' }, 'recorded_at'],
    ] as const) {
      const res = await call('POST', `/v1/couriers/${c.id}/location`, body);
      expect(res.status, param).toBe(422);
      expect(res.body.error.param).toBe(param);
    }
    for (let i = 0; i < 105; i++) {
      await call('POST', `/v1/couriers/${c.id}/location`, { lat: -12 + i / 1000, lng: -77 });
    }
    const hist = await call('GET', `/v1/couriers/${c.id}/locations`);
    expect(hist.body.data).toHaveLength(100);
    expect(hist.body.data[0].lat).toBeCloseTo(-12 + 104 / 1000, 9);
    const rows = await t.ctx.db.selectFrom('courier_locations').select('slot').where('courier_id', '=', c.id).execute();
    expect(rows).toHaveLength(100);
  });

  it('routes assign every order in stop order, all or nothing', async () => {
    const call = client(t.app, op);
    const c = (await call('POST', '/v1/couriers', { name: 'Router' })).body;
    const a = (await client(t.app, m.test)('POST', '/v1/orders', validOrder())).body;
    const b = (await client(t.app, other.test)('POST', '/v1/orders', validOrder())).body;
    const done = await orderIn(t, m.test, op, c.id, 'delivered');
    const refused = await call('POST', '/v1/routes', { courier_id: c.id, order_ids: [a.id, done.id, b.id] });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('invalid_transition');
    expect(refused.body.error.message).toContain('delivered');
    expect((await call('GET', `/v1/orders/${a.id}`)).body.status).toBe('pending');
    const missing = await call('POST', '/v1/routes', { courier_id: c.id, order_ids: [a.id, 'ord_nope'] });
    expect(missing.status).toBe(422);
    expect(missing.body.error.param).toBe('order_ids[1]');
    expect((await call('POST', '/v1/routes', { courier_id: 'cou_nope', order_ids: [a.id] })).body.error.param).toBe(
      'courier_id',
    );
    expect((await call('POST', '/v1/routes', { courier_id: c.id, order_ids: [] })).status).toBe(422);
    expect((await call('POST', '/v1/routes', { courier_id: c.id, order_ids: [a.id, a.id] })).status).toBe(422);
    // The refused attempts left no events and no stops behind.
    expect((await eventsOf(t, a.id)).map((e) => e.event)).toEqual(['order.created']);

    const res = await call('POST', '/v1/routes', { courier_id: c.id, order_ids: [b.id, a.id], date: '2025-07-01' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      object: 'route',
      courier: { id: c.id, name: 'Router' },
      date: '2025-07-01',
      stops: [
        { position: 1, order: b.id, status: 'assigned', on_route: true },
        { position: 2, order: a.id, status: 'assigned', on_route: true },
      ],
    });
    const ev = (await eventsOf(t, a.id)).at(-1);
    expect(ev).toMatchObject({
      event: 'order.assigned',
      data: { courier: { id: c.id, name: 'Router' }, route: res.body.id },
    });
    expect((await client(t.app, m.test)('GET', `/v1/orders/${a.id}`)).body.route).toBe(res.body.id);
    const read = await call('GET', `/v1/routes/${res.body.id}`);
    expect(read.body).toEqual(res.body);
    // A merchant's test key cannot see the carrier's route; assign onto a route extends it.
    expect((await client(t.app, m.test)('GET', `/v1/routes/${res.body.id}`)).status).toBe(404);
    const extra = (await client(t.app, m.test)('POST', '/v1/orders', validOrder())).body;
    const assigned = await call('POST', `/v1/orders/${extra.id}/assign`, { courier_id: c.id, route_id: res.body.id });
    expect(assigned.body.route).toBe(res.body.id);
    expect((await call('GET', `/v1/routes/${res.body.id}`)).body.stops.map((s: any) => s.order)).toEqual([
      b.id,
      a.id,
      extra.id,
    ]);
    const otherCourier = (await call('POST', '/v1/couriers', { name: 'Else' })).body;
    const wrong = await call('POST', `/v1/orders/${extra.id}/assign`, {
      courier_id: otherCourier.id,
      route_id: res.body.id,
    });
    expect(wrong.status).toBe(422);
    expect(wrong.body.error.param).toBe('route_id');
    // Re-assigned elsewhere, the stop stays listed but is no longer on the route.
    await call('POST', `/v1/orders/${extra.id}/assign`, { courier_id: otherCourier.id });
    const after = (await call('GET', `/v1/routes/${res.body.id}`)).body.stops.at(-1);
    expect(after).toMatchObject({ order: extra.id, on_route: false });
  });

  it('ETA follows the route: courier → unfinished earlier stops → this order, plus service time', async () => {
    const call = client(t.app, op);
    const c = (await call('POST', '/v1/couriers', { name: 'Eta' })).body;
    const P: [number, number] = [-12.0464, -77.0428];
    const A: [number, number] = [-12.07, -77.035];
    const B: [number, number] = [-12.095, -77.03];
    const C: [number, number] = [-12.1211, -77.0297];
    const mk = async (p: [number, number]) =>
      (
        await client(t.app, m.test)(
          'POST',
          '/v1/orders',
          validOrder({
            delivery_address: { address: 'x', lat: p[0], lng: p[1] },
            requires_signature: false,
            cash_on_delivery: 0,
          }),
        )
      ).body.id as string;
    const [a, b, cc] = [await mk(A), await mk(B), await mk(C)];
    await call('POST', '/v1/routes', { courier_id: c.id, order_ids: [a, b, cc] });
    for (const id of [a, b, cc]) await call('POST', `/v1/orders/${id}/pickup`);
    // No ping yet: unknowable.
    expect((await call('GET', `/v1/orders/${cc}/tracking`)).body.eta_minutes).toBeNull();
    await call('POST', `/v1/couriers/${c.id}/location`, { lat: P[0], lng: P[1] });

    const dep = await call('POST', `/v1/orders/${cc}/depart`);
    expect(dep.status).toBe(200);
    // speed 20 km/h, 4 min per stop, road factor 1.3, rounded up.
    const expectC = Math.ceil(((km(P, A) + km(A, B) + km(B, C)) * 1.3 * 60) / 20 + 2 * 4);
    const expectA = Math.ceil((km(P, A) * 1.3 * 60) / 20);
    const tr = (await client(t.app, m.test)('GET', `/v1/orders/${cc}/tracking`)).body;
    expect(tr.eta_minutes).toBe(expectC);
    expect(tr.courier).toEqual({ name: 'Eta', lat: P[0], lng: P[1] });
    expect((await eventsOf(t, cc)).at(-1).data.eta_minutes).toBe(expectC);
    expect((await call('GET', `/v1/orders/${a}/tracking`)).body.eta_minutes).toBe(expectA);

    // Stop A delivered, courier now at A: C's ETA drops A's leg and its service time.
    await call('POST', `/v1/orders/${a}/depart`);
    expect((await call('POST', `/v1/orders/${a}/deliver`, { receiver_name: 'A' })).status).toBe(200);
    await call('POST', `/v1/couriers/${c.id}/location`, { lat: A[0], lng: A[1] });
    const expectC2 = Math.ceil(((km(A, B) + km(B, C)) * 1.3 * 60) / 20 + 4);
    expect((await call('GET', `/v1/orders/${cc}/tracking`)).body.eta_minutes).toBe(expectC2);
    // A failed stop is skipped too.
    await call('POST', `/v1/orders/${b}/fail`, { reason: 'customer_absent' });
    const expectC3 = Math.ceil(((km(A, C) * 1.3) / 20) * 60);
    expect((await call('GET', `/v1/orders/${cc}/tracking`)).body.eta_minutes).toBe(expectC3);
    await call('POST', `/v1/orders/${cc}/arrive`);
    expect((await call('GET', `/v1/orders/${cc}/tracking`)).body.eta_minutes).toBe(0);
    // An order without coordinates has no ETA.
    const blind = await orderIn(t, m.test, op, c.id, 'in_transit', { delivery_address: { address: 'somewhere' } });
    expect((await call('GET', `/v1/orders/${blind.id}/tracking`)).body.eta_minutes).toBeNull();
  });
});
