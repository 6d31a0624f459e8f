import { afterAll, beforeAll, expect, it } from 'vitest';
import { client, describeEach, newOperator, startApp, type TestApp } from './helpers.js';
import { merchantIn, newCourier, orderWith } from './money-helpers.js';

/** GET /v1/reports/summary: the counts, the groups, and the orders each figure links to. */
describeEach('reports summary', (engine) => {
  let t: TestApp;
  let now = Date.parse('2026-11-20T14:00:00Z'); // 09:00 in Lima
  beforeAll(async () => {
    t = await startApp(engine, { RUTA_DEFAULT_TIMEZONE: 'America/Lima' }, { clock: () => now });
  });
  afterAll(async () => t?.close());

  it('counts a delivery on time by the tap, not by when an offline phone synced it', async () => {
    const op = await newOperator(t);
    const shop = await merchantIn(t, 'Offline', 'PEN');
    const courier = await newCourier(t, op, 'Sin Señal');
    const window = { time_window: { start: '09:00', end: '12:00' } };
    // 11:50 in Lima the courier taps Deliver with no signal; the phone syncs at 12:20, after the window.
    now = Date.parse('2026-11-25T16:20:00Z');
    const tapped = { position: { lat: -12.12, lng: -77.03, recorded_at: '2026-11-25T16:50:00Z' } };
    const late = { position: { lat: -12.12, lng: -77.03, recorded_at: '2026-11-25T17:10:00Z' } };
    now = Date.parse('2026-11-25T17:20:00Z');
    const synced = await orderWith(t, shop.test, op, courier, 0, { deliver: tapped }, window);
    const tooLate = await orderWith(t, shop.test, op, courier, 0, { deliver: late }, window);
    // Without a position the server's time is all there is: late.
    const noFix = await orderWith(t, shop.test, op, courier, 0, { deliver: {} }, window);
    const s = await client(t.app, shop.test)('GET', '/v1/reports/summary?from=2026-11-25&to=2026-11-25');
    expect(s.body.totals).toMatchObject({ delivered: 3, on_time: 1 });
    const onTime = await client(t.app, shop.test)('GET', s.body.totals.links.on_time);
    expect(onTime.body.data.map((o: any) => o.id)).toEqual([synced.id]);
    // The delivery itself is recorded when the server took it: money is bucketed by it, and a
    // settlement already issued for the tap's day is never reopened.
    const proof = (await client(t.app, shop.test)('GET', `/v1/orders/${synced.id}/proof`)).body;
    expect(proof.delivered_at).toBe('2026-11-25T17:20:00.000Z');
    expect([tooLate.id, noFix.id]).not.toContain(onTime.body.data[0].id);
  });

  it('counts volume, outcomes, on-time, first-attempt and delivery time, and links each figure to its orders', async () => {
    now = Date.parse('2026-11-20T14:00:00Z');
    const op = await newOperator(t);
    const call = client(t.app, op);
    const a = await merchantIn(t, 'Alpha', 'PEN');
    const b = await merchantIn(t, 'Beta', 'USD');
    const c1 = await newCourier(t, op, 'Ana');
    const c2 = await newCourier(t, op, 'Beto');
    const window = { time_window: { start: '09:00', end: '12:00' } };
    const miraflores = { delivery_address: { address: 'Av. Larco 1', district: 'Miraflores', city: 'Lima' } };
    const surco = { delivery_address: { address: 'Av. Surco 2', district: 'Surco', city: 'Lima' } };
    // Created 09:00; on time inside 09:00-12:00 (delivered 09:30), late (delivered 13:00), no window.
    await orderWith(t, a.test, op, c1, 0, { fail: true }, { ...window, ...miraflores });
    now += 30 * 60_000;
    const o2 = await orderWith(t, a.test, op, c1, 0, { deliver: {} }, { ...window, ...miraflores });
    now = Date.parse('2026-11-20T18:00:00Z');
    const o3 = await orderWith(t, a.test, op, c2, 0, { deliver: {} }, { ...window, ...surco });
    await orderWith(t, b.test, op, c2, 0, { cancel: true }, surco);

    const s = await call('GET', '/v1/reports/summary?from=2026-11-20&to=2026-11-20&group_by=courier');
    expect(s.status).toBe(200);
    expect(s.body.totals).toMatchObject({
      orders: 4,
      delivered: 2,
      failed: 1,
      cancelled: 1,
      on_time: 1,
      on_time_rate: 0.5,
      first_attempt: 2,
      first_attempt_rate: 1,
    });
    // o2: created 09:30, delivered 09:30 (clock held): bucket 0 → at most 5 minutes.
    expect(s.body.totals.delivery_minutes.p50).toBe(5);
    const byCourier = Object.fromEntries(
      s.body.groups.map((g: any) => [g.label, [g.orders, g.delivered, g.failed, g.cancelled]]),
    );
    expect(byCourier).toEqual({ Ana: [2, 1, 1, 0], Beto: [1, 1, 0, 0], Unassigned: [1, 0, 0, 1] });

    // Each figure's link lists exactly its orders.
    const ana = s.body.groups.find((g: any) => g.label === 'Ana');
    const delivered = await call('GET', ana.links.delivered);
    expect(delivered.status).toBe(200);
    expect(delivered.body.data.map((o: any) => o.id)).toEqual([o2.id]);
    const onTime = await call('GET', s.body.totals.links.on_time);
    expect(onTime.body.data.map((o: any) => o.id)).toEqual([o2.id]);
    expect((await call('GET', s.body.totals.links.orders)).body.data).toHaveLength(4);

    const byDistrict = await call('GET', '/v1/reports/summary?from=2026-11-20&to=2026-11-20&group_by=district');
    const surcoRow = byDistrict.body.groups.find((g: any) => g.key === 'Surco');
    expect(surcoRow.orders).toBe(2);
    expect((await call('GET', surcoRow.links.delivered)).body.data.map((o: any) => o.id)).toEqual([o3.id]);

    const byMerchant = await call('GET', '/v1/reports/summary?from=2026-11-20&to=2026-11-20&group_by=merchant');
    expect(byMerchant.body.groups.map((g: any) => [g.label, g.orders])).toEqual([
      ['Alpha', 3],
      ['Beta', 1],
    ]);
    const byDay = await call('GET', '/v1/reports/summary?from=2026-11-19&to=2026-11-21&group_by=day');
    expect(byDay.body.groups.map((g: any) => [g.key, g.orders])).toEqual([['2026-11-20', 4]]);

    // A merchant sees its own only, and its links carry no account.
    const mine = await client(t.app, a.test)('GET', '/v1/reports/summary?from=2026-11-20&to=2026-11-20');
    expect(mine.body.totals.orders).toBe(3);
    expect(mine.body.totals.links.orders).not.toContain('account=');
    expect((await client(t.app, a.test)('GET', mine.body.totals.links.orders)).body.data).toHaveLength(3);
    expect((await client(t.app, a.test)('GET', `/v1/reports/summary?account=${b.accountId}`)).status).toBe(403);
    expect((await client(t.app, a.test)('GET', '/v1/reports/summary?group_by=merchant')).status).toBe(422);

    // The export: the same rows, CSV and XLSX.
    const csv = await call(
      'GET',
      '/v1/reports/summary/export?from=2026-11-20&to=2026-11-20&group_by=courier&format=csv',
    );
    expect(csv.status).toBe(200);
    const lines = String(csv.raw.body)
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n');
    expect(lines[0]).toBe(
      'courier,orders,delivered,failed,cancelled,on_time_rate,first_attempt_rate,delivery_minutes_p50,delivery_minutes_p90,ratings,rating_average',
    );
    expect(lines.at(-1)).toMatch(/^total 2026-11-20\.\.2026-11-20,4,2,1,1,0\.5,1,/);
    const xlsx = await call('GET', '/v1/reports/summary/export?format=xlsx');
    expect(xlsx.raw.rawPayload.subarray(0, 2).toString()).toBe('PK');
    expect((await call('GET', '/v1/reports/summary?from=2026-11-21&to=2026-11-20')).status).toBe(422);
  });
});
