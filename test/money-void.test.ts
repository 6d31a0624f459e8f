import { afterAll, beforeAll, expect, it } from 'vitest';
import { client, describeEach, newOperator, type Res, startApp, type TestApp } from './helpers.js';
import { merchantIn, newCourier, orderWith } from './money-helpers.js';
import { courierSession, sessionClient, userSession } from './people-helpers.js';

/**
 * A mistyped cash handover voided (POST /v1/cash_handovers/{id}/void), and the end of day's days:
 * a voided handover stays listed and counts in no balance, day line, end of day or cash exception
 * (a resolved day whose figures it changed is open again); voiding twice is 409; only the carrier
 * of the handover's environment voids it. GET /v1/cash/end_of_day refuses a day after today in the
 * carrier's zone, and exports a day's lines as CSV. Each test makes its own courier and orders.
 */
describeEach('money: voiding a cash handover', (engine) => {
  let t: TestApp;
  // 10:00 in Lima on 2026-11-20; each test sets the time it needs.
  let now = Date.parse('2026-11-20T15:00:00Z');
  beforeAll(async () => {
    t = await startApp(engine, { RUTA_DEFAULT_TIMEZONE: 'America/Lima' }, { clock: () => now });
  });
  afterAll(async () => t?.close());

  const expectCode = (res: Res, status: number, code: string, context: string) => {
    expect(res.status, `${context}: ${JSON.stringify(res.body).slice(0, 300)}`).toBe(status);
    expect(res.body.error.code, context).toBe(code);
  };
  const line = (eod: Res, courier: string) => eod.body.lines.find((l: any) => l.courier.id === courier);

  it('a mistyped handover voided counts nowhere: balance, day line, end of day, exceptions, the next day', async () => {
    now = Date.parse('2026-11-20T15:00:00Z');
    const op = await newOperator(t);
    const call = client(t.app, op);
    const shop = await merchantIn(t, 'Tienda Void', 'PEN');
    const courier = await newCourier(t, op, 'Vera Void');
    await orderWith(t, shop.test, op, courier, 100, { deliver: { collected_amount: 100, payment_method: 'cash' } });

    // 18:30: 1000 typed for 100. The day reads over by 900, an exception.
    now = Date.parse('2026-11-20T23:30:00Z');
    const typo = await call('POST', `/v1/couriers/${courier}/cash_handovers`, {
      amount: 1000,
      currency: 'PEN',
      received_by: 'Caja 1',
    });
    expect(typo.status).toBe(201);
    expect(typo.body).toMatchObject({ amount: 1000, voided_at: null, void_reason: null });
    const before = await call('GET', '/v1/cash/end_of_day?day=2026-11-20');
    expect(line(before, courier)).toMatchObject({ handed_over: 1000, difference: 900, balance: -900, status: 'over' });
    const overs = await call('GET', '/v1/cash/exceptions?from=2026-11-20&to=2026-11-20');
    expect(
      overs.body.data.filter((e: any) => e.courier.id === courier).map((e: any) => [e.kind, e.difference]),
    ).toEqual([['over', 900]]);

    // Voided by a dispatcher (the carrier, as whoever records one), with the reason.
    now += 60_000;
    const dispatcher = sessionClient(t, await userSession(t, 'dispatcher'), 'test');
    const voided = await dispatcher('POST', `/v1/cash_handovers/${typo.body.id}/void`, {
      reason: 'typed 1000 for 100',
    });
    expect(voided.status, JSON.stringify(voided.body)).toBe(200);
    expect(voided.body).toEqual({
      ...typo.body,
      voided_at: new Date(now).toISOString(),
      void_reason: 'typed 1000 for 100',
    });
    const stored = await t.ctx.db
      .selectFrom('cash_handovers')
      .select(['voided_by', 'amount'])
      .where('id', '=', typo.body.id)
      .executeTakeFirstOrThrow();
    // Kept, amount and all (never deleted), with who voided it.
    expect(stored.voided_by).toMatch(/^usr_/);
    expect(Number(stored.amount)).toBe(100_000);

    // The courier holds the 100 again: nothing handed over counts.
    const cash = await call('GET', `/v1/couriers/${courier}/cash`);
    expect(cash.body.balances).toEqual([{ currency: 'PEN', collected: 100, handed_over: 0, balance: 100 }]);
    expect(cash.body.days).toEqual([
      {
        day: '2026-11-20',
        currency: 'PEN',
        deliveries: 1,
        expected: 100,
        collected: 100,
        handed_over: 0,
        difference: -100,
        balance: 100,
        status: 'short',
      },
    ]);
    // Still listed, voided.
    expect(cash.body.handovers.map((h: any) => [h.id, h.amount, h.void_reason])).toEqual([
      [typo.body.id, 1000, 'typed 1000 for 100'],
    ]);
    const after = await call('GET', '/v1/cash/end_of_day?day=2026-11-20');
    expect(line(after, courier)).toMatchObject({ handed_over: 0, difference: -100, balance: 100 });
    expect(after.body.handovers.filter((h: any) => h.courier === courier)).toEqual([
      { ...voided.body, courier_name: 'Vera Void' },
    ]);
    // Nothing handed over today any more: the day is not counted yet, so no exception (the 900 over is gone).
    const none = await call('GET', '/v1/cash/exceptions?from=2026-11-20&to=2026-11-20');
    expect(none.body.data.filter((e: any) => e.courier.id === courier)).toEqual([]);

    // The right amount recorded: balanced, no exception, and the listing holds both.
    now += 60_000;
    const right = await call('POST', `/v1/couriers/${courier}/cash_handovers`, {
      amount: 100,
      currency: 'PEN',
      received_by: 'Caja 1',
    });
    expect(right.status).toBe(201);
    const fixed = await call('GET', '/v1/cash/end_of_day?day=2026-11-20');
    expect(line(fixed, courier)).toMatchObject({
      handed_over: 100,
      difference: 0,
      balance: 0,
      status: 'balanced',
      exception: null,
    });
    expect(fixed.body.handovers.filter((h: any) => h.courier === courier).map((h: any) => [h.id, h.voided_at])).toEqual(
      [
        [right.body.id, null],
        [typo.body.id, voided.body.voided_at],
      ],
    );

    // The next day carries nothing: the voided 1000 would have left a balance of −1000.
    now = Date.parse('2026-11-21T15:00:00Z');
    const next = await call('GET', '/v1/cash/end_of_day?day=2026-11-21');
    expect(line(next, courier)).toBeUndefined();
    const days = await call('GET', '/v1/cash/exceptions?from=2026-11-20&to=2026-11-21');
    expect(days.body.data.filter((e: any) => e.courier.id === courier)).toEqual([]);

    // Voiding again is refused, saying who was first and why; the first reason stays.
    const twice = await call('POST', `/v1/cash_handovers/${typo.body.id}/void`, { reason: 'again' });
    expectCode(twice, 409, 'handover_already_voided', 'void twice');
    expect(twice.body.error.message).toBe(
      `Cash handover ${typo.body.id} is already voided (at ${voided.body.voided_at}): "typed 1000 for 100". A voided handover stays voided; record a new one for the right amount.`,
    );
    const listed = await call('GET', `/v1/couriers/${courier}/cash?from=2026-11-20&to=2026-11-21`);
    expect(listed.body.handovers.find((h: any) => h.id === typo.body.id).void_reason).toBe('typed 1000 for 100');
  });

  it('a resolved day whose handover is voided later is open again, with the difference it now has', async () => {
    now = Date.parse('2026-11-20T15:00:00Z');
    const op = await newOperator(t);
    const call = client(t.app, op);
    const shop = await merchantIn(t, 'Tienda Reabre', 'PEN');
    const courier = await newCourier(t, op, 'Rita Reopen');
    await orderWith(t, shop.test, op, courier, 100, { deliver: { collected_amount: 100, payment_method: 'cash' } });
    now = Date.parse('2026-11-20T23:00:00Z');
    const hand = (amount: number) =>
      call('POST', `/v1/couriers/${courier}/cash_handovers`, { amount, currency: 'PEN', received_by: 'Caja 2' });
    expect((await hand(60)).status).toBe(201);
    const double = await hand(60); // the same 60 entered twice: over 20
    expect(double.status).toBe(201);
    const id = `cex_${courier}_2026-11-20_PEN`;
    const resolved = await call('POST', `/v1/cash/exceptions/${id}/resolve`, { note: 'Rita paid 20 too much?' });
    expect(resolved.body).toMatchObject({ kind: 'over', difference: 20, resolved: true });

    // The next morning the double entry is voided: the day is short 40, and the note explained +20.
    now = Date.parse('2026-11-21T14:00:00Z');
    expect((await call('POST', `/v1/cash_handovers/${double.body.id}/void`, { reason: 'entered twice' })).status).toBe(
      200,
    );
    const open = await call('GET', '/v1/cash/exceptions?status=open&from=2026-11-20&to=2026-11-20');
    expect(
      open.body.data.filter((e: any) => e.courier.id === courier).map((e: any) => [e.id, e.kind, e.difference]),
    ).toEqual([[id, 'short', -40]]);
    const stillResolved = await call('GET', '/v1/cash/exceptions?status=resolved&from=2026-11-20&to=2026-11-20');
    expect(stillResolved.body.data.filter((e: any) => e.courier.id === courier)).toEqual([]);
    const eod = await call('GET', '/v1/cash/end_of_day?day=2026-11-20');
    expect(line(eod, courier)).toMatchObject({ handed_over: 60, difference: -40, balance: 40, exception: id });
  });

  it('refuses a void without a reason, with a reason too long, of no handover, and checks the body', async () => {
    now = Date.parse('2026-11-20T15:00:00Z');
    const op = await newOperator(t);
    const call = client(t.app, op);
    const courier = await newCourier(t, op, 'Eva Errors');
    const h = await call('POST', `/v1/couriers/${courier}/cash_handovers`, {
      amount: 5,
      currency: 'PEN',
      received_by: 'Caja 3',
    });
    const path = `/v1/cash_handovers/${h.body.id}/void`;
    const missing = await call('POST', path, {});
    expectCode(missing, 422, 'parameter_missing', 'no reason');
    expect(missing.body.error.param).toBe('reason');
    const empty = await call('POST', path, { reason: '' });
    expectCode(empty, 422, 'parameter_invalid', 'empty reason');
    expect(empty.body.error.param).toBe('reason');
    expectCode(await call('POST', path, { reason: 'x'.repeat(501) }), 422, 'parameter_invalid', 'long reason');
    expectCode(await call('POST', path, { reason: 'ok', amount: 4 }), 422, 'parameter_unknown', 'other field');
    const unknown = await call('POST', '/v1/cash_handovers/cho_0000000000000000000000/void', { reason: 'x' });
    expectCode(unknown, 404, 'resource_missing', 'unknown id');
    expect(unknown.body.error.message).toBe("No such cash handover: 'cho_0000000000000000000000'");
    // None of it voided the handover.
    const cash = await call('GET', `/v1/couriers/${courier}/cash`);
    expect(cash.body.handovers.map((x: any) => x.voided_at)).toEqual([null]);
    expect(cash.body.balances[0]).toMatchObject({ handed_over: 5 });
    // A 500-character reason is kept whole.
    const long = await call('POST', path, { reason: 'r'.repeat(500) });
    expect(long.status).toBe(200);
    expect(long.body.void_reason).toHaveLength(500);
  });

  it('only the carrier of its environment voids a handover', async () => {
    now = Date.parse('2026-11-20T15:00:00Z');
    const op = await newOperator(t);
    const shop = await merchantIn(t, 'Tienda Ajena', 'PEN');
    const courier = await newCourier(t, op, 'Sara Secure');
    const h = await client(t.app, op)('POST', `/v1/couriers/${courier}/cash_handovers`, {
      amount: 7,
      currency: 'PEN',
      received_by: 'Caja 4',
    });
    const path = `/v1/cash_handovers/${h.body.id}/void`;
    const body = { reason: 'not mine' };
    expectCode(await client(t.app, shop.test)('POST', path, body), 403, 'permission_denied', 'merchant key');
    const merchantUser = sessionClient(t, await userSession(t, 'merchant', shop.accountId), 'test');
    expectCode(await merchantUser('POST', path, body), 403, 'permission_denied', 'merchant user');
    const sara = sessionClient(t, await courierSession(t, op, courier));
    expectCode(await sara('POST', path, body), 403, 'permission_denied', 'the courier itself');
    expectCode(await client(t.app)('POST', path, body), 401, 'api_key_missing', 'no key');
    // The live carrier (a key, a dispatcher in Live) does not see a test handover.
    const live = client(t.app, await newOperator(t, 'live'));
    expectCode(await live('POST', path, body), 404, 'resource_missing', 'live operator');
    const liveDesk = sessionClient(t, await userSession(t, 'dispatcher'), 'live');
    expectCode(await liveDesk('POST', path, body), 404, 'resource_missing', 'live dispatcher');
    // Nothing of it voided the handover; an admin in Test does.
    const cash = await client(t.app, op)('GET', `/v1/couriers/${courier}/cash`);
    expect(cash.body.handovers.map((x: any) => x.voided_at)).toEqual([null]);
    const admin = sessionClient(t, await userSession(t, 'admin'), 'test');
    expect((await admin('POST', path, body)).status).toBe(200);
  });

  it('end of day: today and a past day answer, a day after today in the carrier’s zone is 422, the CSV', async () => {
    // 22:00 on the 20th in Lima, already the 21st in UTC.
    now = Date.parse('2026-11-21T03:00:00Z');
    const op = await newOperator(t);
    const call = client(t.app, op);
    const shop = await merchantIn(t, 'Tienda Dias', 'PEN');
    const courier = await newCourier(t, op, 'Dora Days, "La Rápida"');
    await orderWith(t, shop.test, op, courier, 30, { deliver: { collected_amount: 30, payment_method: 'cash' } });

    const today = await call('GET', '/v1/cash/end_of_day');
    expect(today.status).toBe(200);
    expect(today.body).toMatchObject({ day: '2026-11-20', timezone: 'America/Lima' });
    expect(line(today, courier)).toMatchObject({ expected: 30, collected: 30, balance: 30 });
    expect((await call('GET', '/v1/cash/end_of_day?day=2026-11-20')).status).toBe(200);
    const past = await call('GET', '/v1/cash/end_of_day?day=2026-11-19');
    expect(past.status).toBe(200);
    expect(line(past, courier)).toBeUndefined();

    const future = await call('GET', '/v1/cash/end_of_day?day=2026-11-21');
    expectCode(future, 422, 'parameter_invalid', 'tomorrow in Lima, today in UTC');
    expect(future.body.error).toMatchObject({
      param: 'day',
      message: 'Invalid day: must be today or earlier (today is 2026-11-20 in America/Lima).',
    });
    expectCode(await call('GET', '/v1/cash/end_of_day?day=2099-01-01'), 422, 'parameter_invalid', 'far future');
    expectCode(
      await call('GET', '/v1/cash/end_of_day/export?day=2026-11-21'),
      422,
      'parameter_invalid',
      'future export',
    );

    // The day's table as CSV: a header and one row per line, cells quoted as CSV needs.
    const csv = await call('GET', '/v1/cash/end_of_day/export?day=2026-11-20');
    expect(csv.status).toBe(200);
    expect(csv.raw.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(csv.raw.headers['content-disposition']).toBe('attachment; filename="ruta-cash-2026-11-20.csv"');
    const rows = String(csv.raw.body)
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n');
    expect(rows[0]).toBe(
      'courier,courier_id,currency,deliveries,expected,collected,handed_over,difference,balance,status,exception',
    );
    // Today, nothing handed over yet: the courier holds it, no exception named (docs/money.md).
    expect(rows).toContain(`"Dora Days, ""La Rápida""",${courier},PEN,1,30,30,0,-30,30,short,`);
    expect(rows).toHaveLength(today.body.lines.length + 1);
    const xlsx = await call('GET', '/v1/cash/end_of_day/export?day=2026-11-20&format=xlsx');
    expect(xlsx.status).toBe(200);
    expect(xlsx.raw.rawPayload.subarray(0, 2).toString()).toBe('PK');
    // A merchant reads no courier's cash, in any format.
    expectCode(
      await client(t.app, shop.test)('GET', '/v1/cash/end_of_day/export'),
      403,
      'permission_denied',
      'merchant export',
    );
  });
});
