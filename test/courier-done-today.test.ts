import { afterAll, beforeAll, expect, it } from 'vitest';
import { client, describeEach, type Merchant, newMerchant, newOperator, startApp, type TestApp } from './helpers.js';
import { orderIn } from './lifecycle-helpers.js';
import { courierSession, sessionClient } from './people-helpers.js';

// Lima is UTC−5 all year: 10:00 on 4 December there is 15:00 UTC.
const MORNING = Date.parse('2026-12-04T15:00:00Z');
const LATE_YESTERDAY = Date.parse('2026-12-04T04:00:00Z'); // 23:00 on the 3rd in Lima, the 4th in UTC
const YESTERDAY = Date.parse('2026-12-03T15:00:00Z');

/**
 * GET /v1/couriers/{id}/done_today: what the courier finished today, each order's day read in its
 * own zone, for a phone that did not make the moves (docs/api.md "Couriers and routes").
 */
describeEach('a courier’s orders finished today', (engine) => {
  let t: TestApp;
  let a: Merchant;
  let op: string;
  let now = MORNING;

  beforeAll(async () => {
    t = await startApp(engine, { RUTA_DEFAULT_TIMEZONE: 'America/Lima' }, { clock: () => now });
    a = await newMerchant(t, 'A');
    op = await newOperator(t, 'test');
  });
  afterAll(async () => t?.close());

  const newCourier = async (name: string) => (await client(t.app, op)('POST', '/v1/couriers', { name })).body.id;

  it('lists today’s delivered, partial, failed, returned and cancelled orders of the courier, oldest first, without phone or street', async () => {
    const luis = await newCourier('Luis');
    const other = await newCourier('Rosa');
    const at = async (ms: number, status: string, courier = luis, over: Record<string, unknown> = {}) => {
      now = ms;
      return orderIn(t, a.test, op, courier, status, over);
    };
    await at(YESTERDAY, 'delivered');
    await at(LATE_YESTERDAY, 'delivered');
    const delivered = await at(MORNING, 'delivered', luis, { customer: { name: 'Ana Torres', phone: '+51987654321' } });
    const partial = await at(MORNING + 1000, 'partially_delivered');
    const failed = await at(MORNING + 2000, 'failed');
    const returned = await at(MORNING + 3000, 'returned');
    const cancelled = await at(MORNING + 4000, 'assigned');
    expect((await client(t.app, op)('POST', `/v1/orders/${cancelled.id}/cancel`)).status).toBe(200);
    await at(MORNING + 5000, 'in_transit'); // still to do: the order list has it
    await at(MORNING + 6000, 'delivered', other); // another courier's
    now = MORNING + 60_000;

    const phone = sessionClient(t, await courierSession(t, op, luis));
    const res = await phone('GET', `/v1/couriers/${luis}/done_today`);
    expect(res.status).toBe(200);
    expect(res.body.object).toBe('list');
    expect(res.body.data.map((d: { order: string; status: string }) => [d.order, d.status])).toEqual([
      [delivered.id, 'delivered'],
      [partial.id, 'partially_delivered'],
      [failed.id, 'failed'],
      [returned.id, 'returned'],
      [cancelled.id, 'cancelled'],
    ]);
    expect(res.body.data[0]).toEqual({
      object: 'done_stop',
      order: delivered.id,
      tracking_code: delivered.tracking_code,
      status: 'delivered',
      customer_name: 'Ana Torres',
      place: 'Miraflores',
      route: null,
      finished_at: new Date(MORNING).toISOString(),
      timezone: 'America/Lima',
    });
    // DESIGN §9: a courier sees a customer's phone and street only while the stop is active.
    expect(JSON.stringify(res.body)).not.toMatch(/\+51987654321|Av\. Larco/);

    // The carrier reads it too; another courier's phone does not see it.
    expect((await client(t.app, op)('GET', `/v1/couriers/${luis}/done_today`)).body.data).toHaveLength(5);
    const rosa = sessionClient(t, await courierSession(t, op, other));
    expect((await rosa('GET', `/v1/couriers/${luis}/done_today`)).status).toBe(404);
    expect((await rosa('GET', `/v1/couriers/${other}/done_today`)).body.data).toHaveLength(1);
    // A merchant's key moves no parcels (requireMover).
    expect((await client(t.app, a.live)('GET', `/v1/couriers/${luis}/done_today`)).status).toBe(403);

    // The next day in Lima starts empty.
    now = Date.parse('2026-12-05T05:00:00Z');
    expect((await phone('GET', `/v1/couriers/${luis}/done_today`)).body.data).toEqual([]);
  });
});
