import { afterAll, beforeAll, expect, it } from 'vitest';
import { createAccount } from '../src/features/accounts/service.js';
import { client, describeEach, newOperator, startApp, type TestApp, validOrder } from './helpers.js';
import { solvedPlan } from './route-plan-helpers.js';

interface Plan {
  routes: {
    courier_id: string;
    start_at: string;
    end_at: string;
    stops: { order_id: string; service_start_at: string }[];
  }[];
  unassigned: { order_id: string; reason: string }[];
}

const MADRID = { lat: 40.4168, lng: -3.7038, timezone: 'Europe/Madrid' };
const LIMA = { lat: -12.1211, lng: -77.0297, timezone: 'America/Lima' };
const TOKYO = { lat: 35.6812, lng: 139.7671, timezone: 'Asia/Tokyo' };
const DAY = '2026-11-25';

/**
 * One plan, several zones: a plan from a Madrid depot may take orders whose zone is Lima's or
 * Tokyo's (every order due that day, whatever its account) and couriers who start from depots
 * elsewhere. Each time of day is read in the zone it was given in: a window in its order's zone,
 * a shift in its courier's start depot's. Before, both were read in Madrid's, hours off the instant
 * the customer was promised and the shift the Couriers page shows.
 */
describeEach('planning across time zones', (engine) => {
  let t: TestApp;
  let op: string;
  const depot = {} as Record<'madrid' | 'lima' | 'tokyo', string>;

  beforeAll(async () => {
    t = await startApp(engine, { RUTA_DEFAULT_TIMEZONE: 'UTC', RUTA_SERVICE_MINUTES_PER_STOP: '5' });
    op = await newOperator(t, 'test');
    const places = { madrid: MADRID, lima: LIMA, tokyo: TOKYO };
    for (const [name, p] of Object.entries(places) as [keyof typeof places, typeof MADRID][]) {
      // Madrid works all day; Lima and Tokyo work 09:00–12:00 of their own.
      const day =
        name === 'madrid' ? { shift_start: '00:30', shift_end: '23:30' } : { shift_start: '09:00', shift_end: '12:00' };
      const res = await client(t.app, op)('POST', '/v1/depots', { name, ...p, ...day });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      depot[name] = res.body.id;
    }
  });
  afterAll(async () => t?.close());

  /** An order of a merchant whose days are in `timezone`, near `near`, due on DAY. */
  async function order(timezone: string, near: { lat: number; lng: number }, window?: { start: string; end: string }) {
    const key = (await createAccount(t.ctx, { name: 'Shop', timezone })).keys.test;
    const res = await client(t.app, key)(
      'POST',
      '/v1/orders',
      validOrder({
        requested_date: DAY,
        ...(window ? { time_window: window } : {}),
        delivery_address: { address: 'Calle 1', lat: near.lat + 0.005, lng: near.lng + 0.004 },
      }),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.id as string;
  }

  async function courier(startDepot: string): Promise<string> {
    const res = await client(t.app, op)('POST', '/v1/couriers', { name: 'Rider', start_depot: startDepot });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.id;
  }

  const plan = (couriers: string[], orderIds: string[]) =>
    solvedPlan<Plan>(t, op, {
      date: DAY,
      depot: depot.madrid,
      couriers: couriers.map((id) => ({ courier_id: id })),
      order_ids: orderIds,
      time_limit_ms: 100,
    });

  it('reads each order’s window in its own zone, west and east of UTC', async () => {
    const window = { start: '10:00', end: '13:00' };
    const lima = await order('America/Lima', MADRID, window);
    const tokyo = await order('Asia/Tokyo', MADRID, window);
    const p = await plan([await courier(depot.madrid)], [lima, tokyo]);
    expect(p.unassigned).toEqual([]);
    const at = new Map(p.routes.flatMap((r) => r.stops).map((s) => [s.order_id, Date.parse(s.service_start_at)]));
    // 10:00–13:00 in Lima (-05:00), not in Madrid (09:00–12:00Z).
    expect(at.get(lima)).toBeGreaterThanOrEqual(Date.parse(`${DAY}T15:00:00Z`));
    expect(at.get(lima)).toBeLessThanOrEqual(Date.parse(`${DAY}T18:00:00Z`));
    // 10:00–13:00 in Tokyo (+09:00).
    expect(at.get(tokyo)).toBeGreaterThanOrEqual(Date.parse(`${DAY}T01:00:00Z`));
    expect(at.get(tokyo)).toBeLessThanOrEqual(Date.parse(`${DAY}T04:00:00Z`));
  });

  it('reads a courier’s shift in its start depot’s zone, west and east of UTC', async () => {
    for (const [from, start, end] of [
      // The Lima depot's 09:00–12:00 is 14:00–17:00Z; read in Madrid it would be 08:00–11:00Z.
      [LIMA, `${DAY}T14:00:00Z`, `${DAY}T17:00:00Z`],
      // Tokyo's is 00:00–03:00Z.
      [TOKYO, `${DAY}T00:00:00Z`, `${DAY}T03:00:00Z`],
    ] as const) {
      const id = await order(from.timezone, from);
      const p = await plan([await courier(from === LIMA ? depot.lima : depot.tokyo)], [id]);
      expect(p.unassigned).toEqual([]);
      const route = p.routes[0];
      expect(Date.parse(route?.start_at ?? ''), route?.start_at).toBeGreaterThanOrEqual(Date.parse(start));
      expect(Date.parse(route?.end_at ?? ''), route?.end_at).toBeLessThanOrEqual(Date.parse(end));
    }
  });
});
