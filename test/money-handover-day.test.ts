import { afterAll, beforeAll, expect, it } from 'vitest';
import { client, describeEach, newOperator, type Res, startApp, type TestApp } from './helpers.js';
import { merchantIn, newCourier, orderWith } from './money-helpers.js';

/**
 * A handover recorded for an earlier day (`POST /v1/couriers/{id}/cash_handovers {day}`): yesterday's
 * cash corrected today counts for yesterday, in its end of day, its export, the courier's day lines
 * and the exceptions, and today is left as it was (it read yesterday short and today over). A day
 * after today in the carrier's zone is 422, as end_of_day says it. Each test makes its own courier.
 */
describeEach('money: a handover for a past day', (engine) => {
  let t: TestApp;
  // Each test sets the time it needs; the carrier's days are Lima's.
  let now = Date.parse('2026-11-20T15:00:00Z');
  beforeAll(async () => {
    t = await startApp(engine, { RUTA_DEFAULT_TIMEZONE: 'America/Lima' }, { clock: () => now });
  });
  afterAll(async () => t?.close());

  const mine = (courier: string) => (rows: any[]) => rows.filter((r: any) => (r.courier?.id ?? r.courier) === courier);
  const line = (eod: Res, courier: string) => eod.body.lines.find((l: any) => l.courier.id === courier);
  const expectInvalidDay = (res: Res, message: RegExp | string, context: string) => {
    expect(res.status, `${context}: ${JSON.stringify(res.body).slice(0, 300)}`).toBe(422);
    expect(res.body.error.code, context).toBe('parameter_invalid');
    expect(res.body.error.param, context).toBe('day');
    expect(res.body.error.message, context).toMatch(message);
  };

  /** A courier who collected 25 on the 19th and handed over 20 that evening (5 short), and 40 on the 20th. */
  async function shortYesterday(name: string) {
    const op = await newOperator(t);
    const call = client(t.app, op);
    const shop = await merchantIn(t, `Tienda ${name}`, 'PEN');
    const courier = await newCourier(t, op, name);
    now = Date.parse('2026-11-19T15:00:00Z');
    await orderWith(t, shop.test, op, courier, 25, { deliver: { collected_amount: 25, payment_method: 'cash' } });
    now = Date.parse('2026-11-19T23:30:00Z'); // 18:30 in Lima
    const first = await call('POST', `/v1/couriers/${courier}/cash_handovers`, {
      amount: 20,
      currency: 'PEN',
      received_by: 'Caja 1',
    });
    expect(first.body.day).toBe('2026-11-19');
    now = Date.parse('2026-11-20T15:00:00Z'); // 10:00 in Lima
    await orderWith(t, shop.test, op, courier, 40, { deliver: { collected_amount: 40, payment_method: 'cash' } });
    return { call, courier, first };
  }

  it('counts for the day it names: that end of day, its export, the day lines and exceptions; today untouched', async () => {
    const { call, courier, first } = await shortYesterday('Yola Yesterday');
    expect(line(await call('GET', '/v1/cash/end_of_day?day=2026-11-19'), courier)).toMatchObject({
      handed_over: 20,
      difference: -5,
      status: 'short',
    });

    // The next day at 11:00, the missing 5 found and recorded for the 19th.
    now = Date.parse('2026-11-20T16:00:00Z');
    const late = await call('POST', `/v1/couriers/${courier}/cash_handovers`, {
      amount: 5,
      currency: 'PEN',
      received_by: 'Caja 1',
      notes: 'found in the van',
      day: '2026-11-19',
    });
    expect(late.status, JSON.stringify(late.body)).toBe(201);
    expect(late.body).toMatchObject({
      object: 'cash_handover',
      amount: 5,
      day: '2026-11-19',
      created_at: new Date(now).toISOString(),
      voided_at: null,
    });

    // The 19th balanced, with both handovers listed; nothing of it on the 20th.
    const nineteenth = await call('GET', '/v1/cash/end_of_day?day=2026-11-19');
    expect(line(nineteenth, courier)).toMatchObject({
      handed_over: 25,
      difference: 0,
      balance: 0,
      status: 'balanced',
      exception: null,
    });
    expect(mine(courier)(nineteenth.body.handovers).map((h: any) => [h.id, h.day, h.courier_name])).toEqual([
      [late.body.id, '2026-11-19', 'Yola Yesterday'],
      [first.body.id, '2026-11-19', 'Yola Yesterday'],
    ]);
    const twentieth = await call('GET', '/v1/cash/end_of_day');
    expect(twentieth.body.day).toBe('2026-11-20');
    // Today: 40 collected, nothing handed over, nothing carried in (5 would have been). The courier
    // still holds it: no exception yet (GET /v1/cash/exceptions lists none), in the export neither.
    expect(line(twentieth, courier)).toMatchObject({ handed_over: 0, collected: 40, balance: 40, exception: null });
    const todayCsv = await call('GET', '/v1/cash/end_of_day/export');
    expect(String(todayCsv.raw.body)).toContain(`Yola Yesterday,${courier},PEN,1,40,40,0,-40,40,short,\r\n`);
    expect(mine(courier)(twentieth.body.handovers)).toEqual([]);

    // The export of the 19th says the same.
    const csv = await call('GET', '/v1/cash/end_of_day/export?day=2026-11-19');
    expect(String(csv.raw.body)).toContain(`Yola Yesterday,${courier},PEN,1,25,25,25,0,0,balanced,`);

    // The courier's day lines: the 19th balanced, the 20th holding only its own 40.
    const cash = await call('GET', `/v1/couriers/${courier}/cash?from=2026-11-19&to=2026-11-20`);
    expect(cash.body.days.map((d: any) => [d.day, d.handed_over, d.difference, d.balance, d.status])).toEqual([
      ['2026-11-20', 0, -40, 40, 'short'],
      ['2026-11-19', 25, 0, 0, 'balanced'],
    ]);
    expect(cash.body.balances).toEqual([{ currency: 'PEN', collected: 65, handed_over: 25, balance: 40 }]);
    expect(cash.body.handovers.map((h: any) => [h.id, h.day])).toEqual([
      [late.body.id, '2026-11-19'],
      [first.body.id, '2026-11-19'],
    ]);
    // A span of today alone leaves it out: it is the 19th's.
    const today = await call('GET', `/v1/couriers/${courier}/cash?from=2026-11-20&to=2026-11-20`);
    expect(today.body.handovers).toEqual([]);

    // No exception either day: the 19th is balanced, the 20th not counted yet (nothing handed over today).
    const exceptions = await call('GET', '/v1/cash/exceptions?from=2026-11-19&to=2026-11-20');
    expect(mine(courier)(exceptions.body.data)).toEqual([]);
  });

  it('a resolved day a late handover changes is open again, with the difference it now has', async () => {
    const { call, courier } = await shortYesterday('Rosa Reopened');
    const id = `cex_${courier}_2026-11-19_PEN`;
    const resolved = await call('POST', `/v1/cash/exceptions/${id}/resolve`, { note: 'counting it tomorrow' });
    expect(resolved.body).toMatchObject({ kind: 'short', difference: -5, resolved: true });

    // 3 of the 5 found: the 19th is short 2, which the note did not explain.
    const late = await call('POST', `/v1/couriers/${courier}/cash_handovers`, {
      amount: 3,
      currency: 'PEN',
      received_by: 'Caja 2',
      day: '2026-11-19',
    });
    expect(late.status).toBe(201);
    const open = await call('GET', '/v1/cash/exceptions?status=open&from=2026-11-19&to=2026-11-20');
    expect(mine(courier)(open.body.data).map((e: any) => [e.id, e.kind, e.difference, e.handed_over])).toEqual([
      [id, 'short', -2, 23],
    ]);

    // Voided, it counts for nothing again: back to the 5 short the note explained.
    expect((await call('POST', `/v1/cash_handovers/${late.body.id}/void`, { reason: 'it was 5' })).status).toBe(200);
    const back = await call('GET', '/v1/cash/exceptions?status=resolved&from=2026-11-19&to=2026-11-19');
    expect(mine(courier)(back.body.data).map((e: any) => [e.id, e.difference])).toEqual([[id, -5]]);
  });

  it('defaults to today in the carrier’s zone; a day after it is 422 and records nothing', async () => {
    const op = await newOperator(t);
    const call = client(t.app, op);
    const courier = await newCourier(t, op, 'Dina Days');
    // 22:00 on the 20th in Lima, already the 21st in UTC.
    now = Date.parse('2026-11-21T03:00:00Z');
    const hand = (day?: string) =>
      call('POST', `/v1/couriers/${courier}/cash_handovers`, {
        amount: 1,
        currency: 'PEN',
        received_by: 'Caja 3',
        ...(day === undefined ? {} : { day }),
      });

    expect((await hand()).body.day).toBe('2026-11-20');
    expect((await hand('2026-11-20')).body.day).toBe('2026-11-20');
    expect((await hand('2025-12-31')).body.day).toBe('2025-12-31');

    expectInvalidDay(
      await hand('2026-11-21'),
      'Invalid day: must be today or earlier (today is 2026-11-20 in America/Lima).',
      'tomorrow in Lima, today in UTC',
    );
    // The same words as the end of day's refusal of that day.
    const eod = await call('GET', '/v1/cash/end_of_day?day=2026-11-21');
    expect(eod.body.error.message).toBe((await hand('2026-11-21')).body.error.message);
    expectInvalidDay(await hand('2099-01-01'), /^Invalid day: must be today or earlier/, 'far future');
    for (const bad of ['yesterday', '2026-02-30', '2026-11-20T10:00:00Z', '20261120', '']) {
      expectInvalidDay(await hand(bad), /day/, JSON.stringify(bad));
    }

    // Only the three accepted ones were recorded.
    const cash = await call('GET', `/v1/couriers/${courier}/cash`);
    expect(cash.body.balances).toEqual([{ currency: 'PEN', collected: 0, handed_over: 3, balance: -3 }]);
  });
});
