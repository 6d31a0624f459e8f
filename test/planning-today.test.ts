import { afterAll, beforeAll, expect, it } from 'vitest';
import { createAccount } from '../src/features/accounts/service.js';
import { client, describeEach, newOperator, startApp, type TestApp, validOrder } from './helpers.js';
import { solvedPlan } from './route-plan-helpers.js';

interface Plan {
  status: string;
  failure_message: string | null;
  routes: { start_at: string; stops: { order_id: string; arrival_at: string }[] }[];
  unassigned: { order_id: string; reason: string }[];
}

const PLACES = {
  lima: { lat: -12.1211, lng: -77.0297, timezone: 'America/Lima' },
  tokyo: { lat: 35.6812, lng: 139.7671, timezone: 'Asia/Tokyo' },
};
type Place = keyof typeof PLACES;

/**
 * A plan for the day it is made on leaves no earlier than it was made (the server's clock, held
 * here): planned at 11:00, a route does not leave at its 08:30 shift start, a window already over
 * cannot be kept, and after the shift's end nothing can be carried. Another day plans the whole
 * shift. West of UTC (Lima) and east (Tokyo, whose day starts on the previous UTC date).
 */
describeEach('planning today', (engine) => {
  let t: TestApp;
  let now = 0;
  let op: string;
  // A merchant in each depot's zone: an order's window is read in the order's zone (its account's).
  const shops = {} as Record<Place, string>;
  const depots = {} as Record<Place, string>;

  beforeAll(async () => {
    t = await startApp(engine, { RUTA_SERVICE_MINUTES_PER_STOP: '5' }, { clock: () => now });
    op = await newOperator(t, 'test');
    for (const place of Object.keys(PLACES) as Place[]) {
      const res = await client(t.app, op)('POST', '/v1/depots', { name: place, ...PLACES[place] });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      depots[place] = res.body.id;
      shops[place] = (await createAccount(t.ctx, { name: 'Tienda', timezone: PLACES[place].timezone })).keys.test;
    }
  });
  afterAll(async () => t?.close());

  /** Orders near the depot, one per window. */
  async function orders(place: Place, windows: [string, string][]): Promise<string[]> {
    const p = PLACES[place];
    const ids: string[] = [];
    for (const [i, [start, end]] of windows.entries()) {
      const res = await client(t.app, shops[place])(
        'POST',
        '/v1/orders',
        validOrder({
          time_window: { start, end },
          delivery_address: { address: `Calle ${i}`, lat: p.lat + 0.004 * (i + 1), lng: p.lng + 0.003 },
        }),
      );
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      ids.push(res.body.id);
    }
    return ids;
  }

  /** One courier of its own, 08:30–18:00 with the break given, planned at the clock's `now`. */
  async function plan(place: Place, date: string, orderIds: string[], brk?: object): Promise<Plan> {
    const call = client(t.app, op);
    const courier = await call('POST', '/v1/couriers', { name: 'Rider', shift_start: '08:30', shift_end: '18:00' });
    return solvedPlan<Plan>(t, op, {
      date,
      depot: depots[place],
      couriers: [{ courier_id: courier.body.id, ...(brk ? { break: brk } : {}) }],
      order_ids: orderIds,
      time_limit_ms: 100,
    });
  }

  const reasons = (p: Plan) => Object.fromEntries(p.unassigned.map((u) => [u.order_id, u.reason]));

  it('Lima (UTC-5) at 11:00: the route leaves at 11:00, not 08:30; a window over by then is unassigned', async () => {
    now = Date.parse('2031-05-06T16:00:00Z'); // 11:00 in Lima
    const [missed, later] = (await orders('lima', [
      ['09:00', '10:00'],
      ['14:00', '16:00'],
    ])) as [string, string];
    const today = await plan('lima', '2031-05-06', [missed, later]);
    expect(today.routes).toHaveLength(1);
    expect(Date.parse(today.routes[0]!.start_at)).toBeGreaterThanOrEqual(now);
    expect(today.routes[0]!.stops.map((s) => s.order_id)).toEqual([later]);
    expect(reasons(today)).toEqual({ [missed]: 'time_window' });

    // Tomorrow is a whole shift ahead: out at 08:30 (13:30Z), and both windows kept.
    const tomorrow = await plan('lima', '2031-05-07', [missed, later]);
    expect(tomorrow.routes[0]!.start_at).toBe('2031-05-07T13:30:00.000Z');
    expect(tomorrow.unassigned).toEqual([]);
  });

  it('Tokyo (UTC+9) at 11:00, a date ahead of UTC: the same; and a break already past is no obstacle', async () => {
    now = Date.parse('2031-05-07T02:00:00Z'); // 11:00 on the 7th in Tokyo, the 6th in UTC
    const [missed, later] = (await orders('tokyo', [
      ['08:30', '10:30'],
      ['13:00', '15:00'],
    ])) as [string, string];
    const today = await plan('tokyo', '2031-05-07', [missed, later], {
      earliest: '09:00',
      latest: '10:00',
      duration_min: 30,
    });
    expect(Date.parse(today.routes[0]!.start_at)).toBeGreaterThanOrEqual(now);
    expect(today.routes[0]!.stops.map((s) => s.order_id)).toEqual([later]);
    expect(reasons(today)).toEqual({ [missed]: 'time_window' });
  });

  it('after the shift has ended, a plan for today carries nothing: every order unassigned, reason shift', async () => {
    now = Date.parse('2031-05-07T00:30:00Z'); // 19:30 on the 6th in Lima, after the 18:00 end
    const ids = await orders('lima', [['08:00', '23:00']]);
    const late = await plan('lima', '2031-05-06', ids);
    expect(late.routes).toEqual([]);
    expect(reasons(late)).toEqual({ [ids[0]!]: 'shift' });
  });
});
