import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/shared/config.js';
import { ConfigError } from '../src/shared/config-values.js';
import { client, describeEach, newMerchant, newOperator, startApp, type TestApp, validOrder } from './helpers.js';
import { solvedPlan } from './route-plan-helpers.js';

const LIMA = { lat: -12.1211, lng: -77.0297 };
const DATE = '2030-03-04';
const H = 3_600_000;

/**
 * Issue #18, defect 13: a courier added in the console has no shift, and the optimizer planned
 * "leaves 00:00, arrives 00:05" for a 10:00–13:00 window (totals of 2663 minutes). A courier
 * without a shift works the working day of the depot it starts from, else the carrier's
 * (RUTA_DEFAULT_SHIFT, 08:00–18:00 by default), in the depot's zone (Lima, UTC-5, here).
 */
describeEach('default working days', (engine) => {
  let t: TestApp;
  let op: string;

  beforeAll(async () => {
    t = await startApp(engine, { RUTA_DEFAULT_TIMEZONE: 'America/Lima', RUTA_SERVICE_MINUTES_PER_STOP: '5' });
    op = await newOperator(t, 'test');
  });
  afterAll(async () => t?.close());

  async function planOne(depotBody: Record<string, unknown>, override: Record<string, unknown> = {}) {
    const call = client(t.app, op);
    const depot = await call('POST', '/v1/depots', { name: 'Main', ...LIMA, ...depotBody });
    expect(depot.status, JSON.stringify(depot.body)).toBe(201);
    // As the console used to add one: a name, nothing else.
    const courier = await call('POST', '/v1/couriers', { name: 'Nuevo' });
    expect(courier.body).toMatchObject({ shift_start: null, shift_end: null });
    const m = await newMerchant(t);
    const order = await client(t.app, m.test)(
      'POST',
      '/v1/orders',
      validOrder({
        requested_date: `${DATE}T09:00:00-05:00`,
        time_window: { start: '10:00', end: '13:00' },
        delivery_address: { address: 'Av. Larco 1', lat: LIMA.lat + 0.01, lng: LIMA.lng + 0.01 },
      }),
    );
    expect(order.status, JSON.stringify(order.body)).toBe(201);
    const plan = await solvedPlan<any>(t, op, {
      date: DATE,
      depot: depot.body.id,
      couriers: [{ courier_id: courier.body.id, ...override }],
      order_ids: [order.body.id],
      time_limit_ms: 100,
    });
    return { depot: depot.body, plan };
  }

  it('a courier without a shift leaves at the carrier’s 08:00, never at 00:00', async () => {
    const { depot, plan } = await planOne({});
    expect(plan.unassigned).toEqual([]);
    const [route] = plan.routes;
    const eight = Date.parse(`${DATE}T13:00:00Z`); // 08:00 in Lima
    expect(Date.parse(route.start_at)).toBeGreaterThanOrEqual(eight);
    expect(Date.parse(route.end_at)).toBeLessThanOrEqual(eight + 10 * H);
    for (const s of route.stops) {
      for (const at of [s.arrival_at, s.service_start_at, s.departure_at]) {
        expect(Date.parse(at)).toBeGreaterThanOrEqual(eight);
      }
      // Served in its 10:00–13:00 window.
      expect(Date.parse(s.service_start_at)).toBeGreaterThanOrEqual(Date.parse(`${DATE}T15:00:00Z`));
      expect(Date.parse(s.service_start_at)).toBeLessThanOrEqual(Date.parse(`${DATE}T18:00:00Z`));
    }
    expect(plan.totals.duration_min).toBeLessThanOrEqual(10 * 60);
    // The depot shows the working day its couriers without a shift get: the carrier's.
    expect(depot).toMatchObject({ shift_start: '08:00', shift_end: '18:00' });
  });

  it('a depot’s own working day wins over the carrier’s; a courier’s own shift end over both', async () => {
    const { depot, plan } = await planOne({ shift_start: '09:30', shift_end: '17:00' });
    expect(depot).toMatchObject({ shift_start: '09:30', shift_end: '17:00' });
    expect(Date.parse(plan.routes[0].start_at)).toBeGreaterThanOrEqual(Date.parse(`${DATE}T14:30:00Z`));
    expect((await client(t.app, op)('GET', `/v1/depots/${depot.id}`)).body).toEqual(depot);
    // A shift that starts after its depot's day ends has no end to work to: 422, naming the missing end.
    const call = client(t.app, op);
    const courier = (await call('POST', '/v1/couriers', { name: 'Tarde', shift_start: '19:00' })).body;
    const m = await newMerchant(t);
    const order = (await client(t.app, m.test)('POST', '/v1/orders', validOrder({ requested_date: DATE }))).body;
    const late = await call('POST', '/v1/route_plans', {
      date: DATE,
      depot: depot.id,
      couriers: [{ courier_id: courier.id }],
      order_ids: [order.id],
    });
    expect([late.status, late.body.error?.param]).toEqual([422, 'couriers[0].shift_end']);
    expect(late.body.error.message).toContain('17:00');
    // With its own end, it plans.
    const own = await call('POST', '/v1/route_plans', {
      date: DATE,
      depot: depot.id,
      couriers: [{ courier_id: courier.id, shift_end: '22:00' }],
      order_ids: [order.id],
    });
    expect(own.status, JSON.stringify(own.body)).toBe(202);
    await t.jobs.idle();
  });

  it('depots refuse malformed or backward working days, naming the field; merchants may not create depots', async () => {
    const call = client(t.app, op);
    const cases: [Record<string, unknown>, string][] = [
      [{ shift_start: '25:00' }, 'shift_start'],
      [{ shift_end: '8:00' }, 'shift_end'],
      [{ shift_start: '19:00' }, 'shift_start'], // after the carrier's 18:00
      [{ shift_start: '10:00', shift_end: '09:00' }, 'shift_end'],
    ];
    for (const [body, param] of cases) {
      const res = await call('POST', '/v1/depots', { name: 'X', ...LIMA, ...body });
      expect([res.status, res.body.error?.param], JSON.stringify(body)).toEqual([422, param]);
    }
    const m = await newMerchant(t);
    const res = await client(t.app, m.test)('POST', '/v1/depots', { name: 'X', ...LIMA, shift_start: '09:00' });
    expect(res.status).toBe(403);
  });
});

describe('RUTA_DEFAULT_SHIFT', () => {
  it('is the carrier’s working day, 08:00–18:00 unless set', () => {
    expect(loadConfig({}).defaultShift).toEqual({ start: '08:00', end: '18:00' });
    expect(loadConfig({ RUTA_DEFAULT_SHIFT: '07:30-16:00' }).defaultShift).toEqual({ start: '07:30', end: '16:00' });
    for (const bad of ['18:00-08:00', '8-18', '08:00', '08:00-24:00']) {
      expect(() => loadConfig({ RUTA_DEFAULT_SHIFT: bad }), bad).toThrow(ConfigError);
      expect(() => loadConfig({ RUTA_DEFAULT_SHIFT: bad }), bad).toThrow(/^RUTA_DEFAULT_SHIFT /);
    }
  });
});
