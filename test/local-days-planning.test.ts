import { afterAll, beforeAll, expect, it } from 'vitest';
import { createAccount } from '../src/features/accounts/service.js';
import { client, describeEach, newOperator, startApp, type TestApp, validOrder } from './helpers.js';
import { csv, drain, upload } from './imports-helpers.js';
import { solvedPlan } from './route-plan-helpers.js';

interface Stop {
  order_id: string;
  service_start_at: string;
}
interface Plan {
  status: string;
  failure_message: string | null;
  order_ids: string[];
  routes: { courier_id: string; start_at: string; stops: Stop[] }[];
}

const PLACES = {
  lima: { lat: -12.1211, lng: -77.0297, timezone: 'America/Lima' },
  tokyo: { lat: 35.6812, lng: 139.7671, timezone: 'Asia/Tokyo' },
  santiago: { lat: -33.4489, lng: -70.6693, timezone: 'America/Santiago' },
};
type Place = keyof typeof PLACES;

/**
 * Issue #18, defect 12, in planning: a plan for a date takes the orders due that local day (each
 * order's day in its zone) and places their time windows on that day in the depot's zone. Found in
 * Lima: a plan for 11/25 found none of the day's 40 imported orders, and a plan for the 24th took
 * them with their windows on the 24th. Checked in Lima (west of UTC), Tokyo (east) and Santiago on
 * both 2026 changes: 2026-04-04 lasts 25 hours (-03:00, then -04:00 from 24:00, which is 23:00
 * again) and 2026-09-06 lasts 23 hours (it starts at 01:00, -03:00).
 */
describeEach('local days in planning', (engine) => {
  let t: TestApp;
  let op: string;
  const depots = {} as Record<Place, string>;

  beforeAll(async () => {
    t = await startApp(engine, { RUTA_DEFAULT_TIMEZONE: 'America/Lima', RUTA_SERVICE_MINUTES_PER_STOP: '5' });
    op = await newOperator(t, 'test');
    for (const place of Object.keys(PLACES) as Place[]) {
      const res = await client(t.app, op)('POST', '/v1/depots', { name: place, ...PLACES[place] });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      depots[place] = res.body.id;
    }
  });
  afterAll(async () => t?.close());

  /**
   * A merchant of its own for each test: Lima's has the carrier's zone; Tokyo's ships from the
   * Tokyo depot (whose zone wins over the account's); Santiago's account names its zone.
   */
  async function merchant(place: Place): Promise<{ place: Place; key: string }> {
    const opts = {
      lima: {},
      tokyo: { timezone: 'America/Lima', depotId: depots.tokyo },
      santiago: { timezone: 'America/Santiago' },
    }[place];
    return { place, key: (await createAccount(t.ctx, { name: 'Shop', ...opts })).keys.test };
  }

  /** An order near the merchant's depot, requested for `requested`, with a 10:00–13:00 window. */
  async function order(m: { place: Place; key: string }, requested: string, i = 0) {
    const p = PLACES[m.place];
    const res = await client(t.app, m.key)(
      'POST',
      '/v1/orders',
      validOrder({
        requested_date: requested,
        time_window: { start: '10:00', end: '13:00' },
        delivery_address: { address: `Calle ${i}`, lat: p.lat + 0.005 * (i + 1), lng: p.lng + 0.004 },
      }),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.id as string;
  }

  /** A plan over the default order set (every order due that day), with one courier of its own. */
  async function plan(place: Place, date: string): Promise<Plan> {
    const call = client(t.app, op);
    const courier = await call('POST', '/v1/couriers', { name: 'Rider', shift_start: '07:00', shift_end: '20:00' });
    return solvedPlan<Plan>(t, op, {
      date,
      depot: depots[place],
      couriers: [{ courier_id: courier.body.id }],
      time_limit_ms: 100,
    });
  }

  /** Each of `ids` is planned and served inside its window, given as instants. */
  function servedWithin(p: Plan, ids: string[], from: string, to: string) {
    const stops = new Map(p.routes.flatMap((r) => r.stops).map((s) => [s.order_id, s]));
    for (const id of ids) {
      const s = stops.get(id);
      expect(s, `${id} is routed`).toBeDefined();
      const at = Date.parse(s?.service_start_at ?? '');
      expect(at, `${id} at ${s?.service_start_at}`).toBeGreaterThanOrEqual(Date.parse(from));
      expect(at, `${id} at ${s?.service_start_at}`).toBeLessThanOrEqual(Date.parse(to));
    }
  }

  it('Lima (UTC-5): an imported day is planned on that day, with its windows on it', async () => {
    const rows = [
      ['external_order_id', 'customer_name', 'address', 'lat', 'lng', 'fecha', 'time_window_start', 'time_window_end'],
    ];
    const days = ['2026-11-25', '2026-11-25', '2026-11-25', '2026-11-24', '2026-11-26'];
    days.forEach((day, i) => {
      rows.push([`LIM-${i}`, 'Ana', `Av. ${i}`, String(-12.1 - 0.01 * i), '-77.03', day, '10:00', '13:00']);
    });
    const lima = await merchant('lima');
    expect((await upload(t, lima.key, csv(rows))).status).toBe(202);
    await drain(t);
    const call = client(t.app, lima.key);
    const ids: string[] = [];
    for (let i = 0; i < days.length; i++) {
      ids.push((await call('GET', `/v1/orders?external_order_id=LIM-${i}`)).body.data[0].id);
    }
    const [before, after] = ids.slice(3) as [string, string];
    const day = ids.slice(0, 3);

    const on25 = await plan('lima', '2026-11-25');
    expect(on25.order_ids).toEqual(expect.arrayContaining(day));
    expect(on25.order_ids).not.toContain(before);
    expect(on25.order_ids).not.toContain(after);
    // 10:00–13:00 in Lima on the 25th.
    servedWithin(on25, day, '2026-11-25T15:00:00Z', '2026-11-25T18:00:00Z');

    const on24 = await plan('lima', '2026-11-24');
    expect(on24.order_ids).toContain(before);
    for (const id of day) expect(on24.order_ids).not.toContain(id);
    servedWithin(on24, [before], '2026-11-24T15:00:00Z', '2026-11-24T18:00:00Z');
    // The board's day says the same.
    const listed = await call('GET', '/v1/orders?due_on=2026-11-25&limit=100');
    expect(listed.body.data.map((o: { id: string }) => o.id).sort()).toEqual([...day].sort());
  });

  it('Tokyo (UTC+9): a day starts the evening before in UTC', async () => {
    const tokyo = await merchant('tokyo');
    const day = [await order(tokyo, '2026-11-27', 0), await order(tokyo, '2026-11-27', 1)];
    // 20:00Z on the 27th is 05:00 on the 28th in Tokyo.
    const next = await order(tokyo, '2026-11-27T20:00:00Z', 2);
    const p = await plan('tokyo', '2026-11-27');
    expect(p.order_ids).toEqual(expect.arrayContaining(day));
    expect(p.order_ids).not.toContain(next);
    servedWithin(p, day, '2026-11-27T01:00:00Z', '2026-11-27T04:00:00Z');
    // The courier's 07:00 start is 22:00Z the evening before.
    const route = p.routes.find((r) => r.stops.some((s) => day.includes(s.order_id)));
    expect(Date.parse(route?.start_at ?? '')).toBeGreaterThanOrEqual(Date.parse('2026-11-26T22:00:00Z'));
  });

  it('Santiago: the 25-hour day the clocks go back, and the day after at the new offset', async () => {
    const santiago = await merchant('santiago');
    const first = await order(santiago, '2026-04-04', 0);
    const second = await order(santiago, '2026-04-05', 1);
    const on4 = await plan('santiago', '2026-04-04');
    expect(on4.order_ids).toContain(first);
    expect(on4.order_ids).not.toContain(second);
    // 10:00–13:00 at -03:00, before the change that evening.
    servedWithin(on4, [first], '2026-04-04T13:00:00Z', '2026-04-04T16:00:00Z');
    const on5 = await plan('santiago', '2026-04-05');
    expect(on5.order_ids).toContain(second);
    expect(on5.order_ids).not.toContain(first);
    // 10:00–13:00 at -04:00.
    servedWithin(on5, [second], '2026-04-05T14:00:00Z', '2026-04-05T17:00:00Z');
  });

  it('Santiago: the 23-hour day that starts at 01:00', async () => {
    const santiago = await merchant('santiago');
    const day = await order(santiago, '2026-09-06', 0);
    const eve = await order(santiago, '2026-09-05', 1);
    const p = await plan('santiago', '2026-09-06');
    expect(p.order_ids).toContain(day);
    expect(p.order_ids).not.toContain(eve);
    servedWithin(p, [day], '2026-09-06T13:00:00Z', '2026-09-06T16:00:00Z');
    // The courier starts at 07:00 -03:00 (10:00Z), not an hour early for the missing midnight.
    const route = p.routes.find((r) => r.stops.some((s) => s.order_id === day));
    expect(Date.parse(route?.start_at ?? '')).toBeGreaterThanOrEqual(Date.parse('2026-09-06T10:00:00Z'));
  });
});
