import { afterAll, beforeAll, expect, it } from 'vitest';
import { client, describeEach, newOperator, startApp, type TestApp } from './helpers.js';
import { merchantIn, newCourier, orderWith } from './money-helpers.js';

/**
 * One whole day (issue #22 "Done when"): cash and no-cash deliveries, a failure, a cancellation,
 * in PEN and USD; the courier's balance, the end-of-day report, the exception it raises and its
 * resolution, and each merchant's settlement, checked line by line; then a correction after the
 * settlement was issued, which the next one carries as an adjustment.
 */
describeEach('money: a whole day', (engine) => {
  let t: TestApp;
  let now = Date.parse('2026-11-20T15:00:00Z'); // 10:00 in Lima
  beforeAll(async () => {
    t = await startApp(engine, { RUTA_DEFAULT_TIMEZONE: 'America/Lima' }, { clock: () => now });
  });
  afterAll(async () => t?.close());

  it('balances, the end-of-day report and the settlements add up line by line', async () => {
    const op = await newOperator(t);
    const call = client(t.app, op);
    const pen = await merchantIn(t, 'Tienda Lima', 'PEN');
    const usd = await merchantIn(t, 'Shop Miami', 'USD');
    const courier = await newCourier(t, op, 'Rosa');

    const a1 = await orderWith(t, pen.test, op, courier, 120.5, {
      deliver: { collected_amount: 120.5, payment_method: 'cash' },
    });
    const a2 = await orderWith(t, pen.test, op, courier, 0, { deliver: {} });
    await orderWith(t, pen.test, op, courier, 50, { fail: true });
    await orderWith(t, pen.test, op, courier, 30, { cancel: true });
    now += 3600_000;
    const a5 = await orderWith(t, pen.test, op, courier, 80, {
      deliver: { collected_amount: 75, payment_method: 'cash' },
    });
    const b1 = await orderWith(t, usd.test, op, courier, 20, {
      deliver: { collected_amount: 20, payment_method: 'cash' },
    });
    const b2 = await orderWith(t, usd.test, op, courier, 10, {
      deliver: { collected_amount: 10, payment_method: 'card' },
    });

    // The courier hands over at the depot in the evening: 10.50 PEN short, USD exact.
    now = Date.parse('2026-11-20T23:30:00Z'); // 18:30 in Lima
    const h1 = await call('POST', `/v1/couriers/${courier}/cash_handovers`, {
      amount: 190,
      currency: 'PEN',
      received_by: 'Caja 1',
    });
    expect(h1.status).toBe(201);
    expect(h1.body).toMatchObject({ object: 'cash_handover', amount: 190, currency: 'PEN', day: '2026-11-20' });
    expect(
      (
        await call('POST', `/v1/couriers/${courier}/cash_handovers`, {
          amount: 20,
          currency: 'USD',
          received_by: 'Caja 1',
        })
      ).status,
    ).toBe(201);

    const cash = await call('GET', `/v1/couriers/${courier}/cash`);
    expect(cash.status).toBe(200);
    expect(cash.body.balances).toEqual([
      { currency: 'PEN', collected: 195.5, handed_over: 190, balance: 5.5 },
      { currency: 'USD', collected: 20, handed_over: 20, balance: 0 },
    ]);
    expect(cash.body.days).toEqual([
      {
        day: '2026-11-20',
        currency: 'PEN',
        deliveries: 2,
        expected: 200.5,
        collected: 195.5,
        handed_over: 190,
        difference: -10.5,
        balance: 5.5,
        status: 'short',
      },
      {
        day: '2026-11-20',
        currency: 'USD',
        deliveries: 1,
        expected: 20,
        collected: 20,
        handed_over: 20,
        difference: 0,
        balance: 0,
        status: 'balanced',
      },
    ]);

    const eod = await call('GET', '/v1/cash/end_of_day?day=2026-11-20');
    expect(eod.status).toBe(200);
    expect(
      eod.body.lines.map((l: any) => [
        l.courier.name,
        l.currency,
        l.expected,
        l.collected,
        l.handed_over,
        l.difference,
        l.exception,
      ]),
    ).toEqual([
      ['Rosa', 'PEN', 200.5, 195.5, 190, -10.5, `cex_${courier}_2026-11-20_PEN`],
      ['Rosa', 'USD', 20, 20, 20, 0, null],
    ]);

    const open = await call('GET', '/v1/cash/exceptions?status=open&from=2026-11-20&to=2026-11-20');
    expect(open.body.data).toHaveLength(1);
    expect(open.body.data[0]).toMatchObject({
      kind: 'short',
      difference: -10.5,
      resolved: false,
      courier: { id: courier },
    });
    const resolved = await call('POST', `/v1/cash/exceptions/${open.body.data[0].id}/resolve`, {
      note: 'A5 paid 5 less; 5.50 owed tomorrow',
    });
    expect(resolved.status).toBe(200);
    expect(resolved.body).toMatchObject({
      resolved: true,
      resolution: { note: 'A5 paid 5 less; 5.50 owed tomorrow', difference: -10.5 },
    });
    expect((await call('GET', '/v1/cash/exceptions?status=open&from=2026-11-20&to=2026-11-20')).body.data).toEqual([]);
    expect(
      (await call('POST', `/v1/cash/exceptions/cex_${courier}_2026-11-20_USD/resolve`, { note: 'x' })).status,
    ).toBe(409);

    // The settlements: one line per delivered order, in the merchant's currency.
    const ship = (o: { shipping_cost: number }) => o.shipping_cost;
    const sp = await call('POST', '/v1/settlements', {
      account_id: pen.accountId,
      period_start: '2026-11-20',
      period_end: '2026-11-20',
    });
    expect(sp.status).toBe(201);
    expect(sp.body.status).toBe('draft');
    expect(
      sp.body.lines.map((l: any) => [l.kind, l.order, l.currency, l.cod_collected, l.shipping_cost, l.net_payable]),
    ).toEqual([
      ['order', a1.id, 'PEN', 120.5, ship(a1), round(120.5 - ship(a1))],
      ['order', a2.id, 'PEN', 0, ship(a2), round(-ship(a2))],
      ['order', a5.id, 'PEN', 75, ship(a5), round(75 - ship(a5))],
    ]);
    expect(sp.body.totals).toEqual([
      {
        currency: 'PEN',
        lines: 3,
        cod_collected: 195.5,
        shipping_costs: round(ship(a1) + ship(a2) + ship(a5)),
        adjustments: 0,
        net_payable: round(195.5 - ship(a1) - ship(a2) - ship(a5)),
      },
    ]);
    const su = await call('POST', '/v1/settlements', {
      account_id: usd.accountId,
      period_start: '2026-11-20',
      period_end: '2026-11-20',
    });
    expect(su.body.lines.map((l: any) => [l.order, l.currency, l.cod_collected])).toEqual([
      [b1.id, 'USD', 20],
      [b2.id, 'USD', 10],
    ]);
    expect(su.body.totals.map((x: any) => x.currency)).toEqual(['USD']);

    // An order is in at most one settlement.
    const again = await call('POST', '/v1/settlements', {
      account_id: pen.accountId,
      period_start: '2026-11-20',
      period_end: '2026-11-20',
    });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('nothing_to_settle');

    // draft → issued → paid; settlement.issued in the merchant's events.
    const issued = await call('POST', `/v1/settlements/${sp.body.id}/issue`);
    expect(issued.status).toBe(200);
    expect(issued.body.status).toBe('issued');
    const twice = await call('POST', `/v1/settlements/${sp.body.id}/issue`);
    expect(twice.status).toBe(409);
    expect(twice.body.error).toMatchObject({
      code: 'settlement_not_editable',
      message: `Settlement ${sp.body.id} cannot be issued: it is issued, and only a draft settlement can be.`,
    });
    const events = await t.ctx.db.selectFrom('events').selectAll().where('type', '=', 'settlement.issued').execute();
    expect(events.map((e) => e.account_id)).toEqual([pen.accountId]);
    expect(JSON.parse(events[0]!.payload).data).toMatchObject({
      id: sp.body.id,
      object: 'settlement',
      status: 'issued',
    });
    expect((await call('POST', `/v1/settlements/${sp.body.id}/pay`)).body.status).toBe('paid');

    // A correction after issue: A5 had in fact paid 80. The next settlement carries +5 for it.
    await t.ctx.db.updateTable('proofs').set({ collected_amount: 8000 }).where('order_id', '=', a5.id).execute();
    now = Date.parse('2026-11-21T15:00:00Z');
    const next = await call('POST', '/v1/settlements', {
      account_id: pen.accountId,
      period_start: '2026-11-21',
      period_end: '2026-11-21',
    });
    expect(next.status).toBe(201);
    expect(next.body.lines.map((l: any) => [l.kind, l.order, l.cod_collected, l.shipping_cost, l.net_payable])).toEqual(
      [['adjustment', a5.id, 5, 0, 5]],
    );
    expect(next.body.totals[0]).toMatchObject({ currency: 'PEN', adjustments: 5, net_payable: 5 });

    // The CSV holds the same lines, formula-safe, and the XLSX is a workbook.
    const csv = await client(t.app, pen.test)('GET', `/v1/settlements/${sp.body.id}/export?format=csv`);
    expect(csv.status).toBe(200);
    const rows = String(csv.raw.body)
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n');
    expect(rows[0]).toBe(
      'kind,order,tracking_code,external_order_id,order_status,delivered_at,currency,cod_collected,shipping_cost,net_payable',
    );
    expect(rows.slice(1, 4).map((r) => r.split(',')[1])).toEqual([a1.id, a2.id, a5.id]);
    // Delivered at 10:00 in Lima, written as such: the settlement's zone, with its offset.
    expect(rows[1]?.split(',')[5]).toBe('2026-11-20T10:00:00-05:00');
    expect(rows[4]).toBe(
      `total,,,,,,PEN,195.5,${round(ship(a1) + ship(a2) + ship(a5))},${round(195.5 - ship(a1) - ship(a2) - ship(a5))}`,
    );
    const xlsx = await client(t.app, pen.test)('GET', `/v1/settlements/${sp.body.id}/export?format=xlsx`);
    expect(xlsx.status).toBe(200);
    expect(xlsx.raw.rawPayload.subarray(0, 2).toString()).toBe('PK');
  });
});

const round = (x: number) => Math.round(x * 100) / 100;
