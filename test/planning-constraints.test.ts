// DESIGN §16's constraints through the API: a courier's skills, break, route limits and route end
// (stored, shown, overridden in a plan), an order's requirements, and the balanced objective.
// The solver's behaviour under each is in solver-constraints.test.ts; here, that plans pass them on.
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
import { solvedPlan } from './route-plan-helpers.js';

const DATE = '2030-03-05';
const LIMA = { lat: -12.1211, lng: -77.0297 };
const at = (dLat: number, dLng: number) => ({
  address: 'Av. Larco 1',
  city: 'Lima',
  lat: LIMA.lat + dLat,
  lng: LIMA.lng + dLng,
});

type Stop = { order_id: string };
type Route = { courier_id: string; stops: Stop[]; break?: { after_stops: number; start_at: string; end_at: string } };

describeEach('route planning constraints', (engine) => {
  let t: TestApp;
  let m: Merchant;
  let op: string;
  let depot: { id: string };

  beforeAll(async () => {
    t = await startApp(engine, { RUTA_DEFAULT_TIMEZONE: 'America/Lima', RUTA_SERVICE_MINUTES_PER_STOP: '5' });
    m = await newMerchant(t);
    op = await newOperator(t, 'test');
    depot = (await client(t.app, op)('POST', '/v1/depots', { name: 'Main', lat: LIMA.lat, lng: LIMA.lng })).body;
  });
  afterAll(async () => t?.close());

  const order = async (over: Record<string, unknown> = {}) => {
    const res = await client(t.app, m.test)('POST', '/v1/orders', validOrder(over));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body as { id: string; requirements: string[] };
  };
  const courier = async (over: Record<string, unknown> = {}) => {
    const res = await client(t.app, op)('POST', '/v1/couriers', { name: 'Luis', ...over });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body as { id: string };
  };
  const plan = (body: Record<string, unknown>) =>
    solvedPlan<{ routes: Route[]; unassigned: { order_id: string; reason: string }[]; objective: string }>(t, op, {
      date: DATE,
      depot: depot.id,
      time_limit_ms: 200,
      seed: 1,
      ...body,
    });

  it('stores, shows and clears a courier\u2019s skills, break, limits and route end; an order\u2019s requirements', async () => {
    const call = client(t.app, op);
    const plain = await courier();
    expect(plain).toMatchObject({
      skills: [],
      break: null,
      max_route_minutes: null,
      max_route_km: null,
      max_stops: null,
      route_end: 'depot',
    });
    const fields = {
      skills: ['cold', 'large'],
      break: { earliest: '12:00', latest: '14:00', duration_min: 30 },
      max_route_minutes: 480,
      max_route_km: 120.5,
      max_stops: 25,
      route_end: 'last_stop',
    };
    const c = await courier(fields);
    expect(c).toMatchObject(fields);
    const cleared = await call('PATCH', `/v1/couriers/${c.id}`, { skills: null, break: null, max_stops: null });
    expect(cleared.body).toMatchObject({
      skills: [],
      break: null,
      max_stops: null,
      max_route_minutes: 480,
      route_end: 'last_stop',
    });
    const bad = await call('PATCH', `/v1/couriers/${c.id}`, {
      break: { earliest: '14:00', latest: '12:00', duration_min: 30 },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.error.param).toBe('break.latest');
    expect((await call('POST', '/v1/couriers', { name: 'X', skills: ['Cold!'] })).status).toBe(422);
    expect((await order({ requirements: ['cold'] })).requirements).toEqual(['cold']);
    expect((await order()).requirements).toEqual([]);
  });

  it('plans with skills, a break, per-courier overrides and the balanced objective', async () => {
    const cold = await courier({
      name: 'Frio',
      skills: ['cold'],
      break: { earliest: '08:00', latest: '08:30', duration_min: 20 },
    });
    const dry = await courier({ name: 'Seco' });
    const needsCold = await order({ delivery_address: at(0.01, 0.01), requirements: ['cold'] });
    const others = [];
    for (let i = 0; i < 5; i++) others.push(await order({ delivery_address: at(-0.01 * (i + 1), 0.005 * i) }));
    const ids = [needsCold.id, ...others.map((o) => o.id)];
    const p = await plan({
      couriers: [
        { courier_id: cold.id, shift_start: '08:00', shift_end: '18:00' },
        { courier_id: dry.id, shift_start: '08:00', shift_end: '18:00', max_stops: 3 },
      ],
      order_ids: ids,
      objective: 'balanced',
    });
    expect(p.objective).toBe('balanced');
    expect(p.unassigned).toEqual([]);
    const byCourier = new Map(p.routes.map((r) => [r.courier_id, r]));
    expect(byCourier.get(cold.id)?.stops.map((s) => s.order_id)).toContain(needsCold.id);
    expect(byCourier.get(dry.id)?.stops.length ?? 0).toBeLessThanOrEqual(3);
    // The break starts between 08:00 and 08:30 Lima time (13:00–13:30 UTC) and lasts 20 minutes.
    const brk = byCourier.get(cold.id)?.break;
    expect(brk).toBeDefined();
    expect(Date.parse(brk?.start_at ?? '')).toBeGreaterThanOrEqual(Date.parse(`${DATE}T13:00:00Z`));
    expect(Date.parse(brk?.start_at ?? '')).toBeLessThanOrEqual(Date.parse(`${DATE}T13:30:00Z`));
    expect(Date.parse(brk?.end_at ?? '') - Date.parse(brk?.start_at ?? '')).toBe(20 * 60_000);

    // Without the skill anywhere (overridden away), the cold order is left out for it.
    const none = await plan({
      couriers: [{ courier_id: cold.id, skills: null }, { courier_id: dry.id }],
      order_ids: [needsCold.id],
    });
    expect(none.unassigned).toEqual([{ order_id: needsCold.id, reason: 'skills' }]);
  });
});
