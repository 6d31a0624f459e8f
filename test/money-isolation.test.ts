import { afterAll, beforeAll, expect, it } from 'vitest';
import { client, describeEach, newOperator, type Res, startApp, type TestApp } from './helpers.js';
import { merchantIn, newCourier, orderWith } from './money-helpers.js';
import { courierSession, sessionClient, userSession } from './people-helpers.js';

/**
 * Who sees which money (DESIGN §1, §17): a merchant never sees another's settlement, nor any
 * courier's cash; a courier reads its own cash only; live and test never mix; only the carrier
 * records handovers, resolves exceptions, and drafts, issues or pays settlements.
 */
describeEach('money isolation', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(engine);
  });
  afterAll(async () => t?.close());

  const expectCode = (res: Res, status: number, code: string, context: string) => {
    expect(res.status, `${context}: ${JSON.stringify(res.body).slice(0, 200)}`).toBe(status);
    expect(res.body.error.code, context).toBe(code);
  };

  it('every new endpoint, for every caller', async () => {
    const op = await newOperator(t);
    const opLive = await newOperator(t, 'live');
    const a = await merchantIn(t, 'A', 'PEN');
    const b = await merchantIn(t, 'B', 'PEN');
    const courier = await newCourier(t, op, 'Rosa');
    const other = await newCourier(t, op, 'Otto');
    await orderWith(t, a.test, op, courier, 10, { deliver: { collected_amount: 10, payment_method: 'cash' } });
    const carrier = client(t.app, op);
    const today = new Date(t.ctx.clock()).toISOString().slice(0, 10);
    const draft = await carrier('POST', '/v1/settlements', {
      account_id: a.accountId,
      period_start: '2000-01-01',
      period_end: '2100-01-01',
    });
    expect(draft.status).toBe(201);
    const stl = draft.body.id;

    const aKey = client(t.app, a.test);
    const bKey = client(t.app, b.test);
    const aLive = client(t.app, a.live);
    const merchantUser = sessionClient(t, await userSession(t, 'merchant', a.accountId), 'test');
    const dispatcher = sessionClient(t, await userSession(t, 'dispatcher'), 'test');
    const rosa = sessionClient(t, await courierSession(t, op, courier));
    const live = client(t.app, opLive);

    // A courier's cash: the carrier (keys and people), the courier itself; never a merchant.
    expect((await carrier('GET', `/v1/couriers/${courier}/cash`)).status).toBe(200);
    expect((await dispatcher('GET', `/v1/couriers/${courier}/cash`)).status).toBe(200);
    const own = await rosa('GET', `/v1/couriers/${courier}/cash`);
    expect(own.status).toBe(200);
    expect(own.body.balances).toEqual([{ currency: 'PEN', collected: 10, handed_over: 0, balance: 10 }]);
    expectCode(await rosa('GET', `/v1/couriers/${other}/cash`), 404, 'resource_missing', 'another courier');
    for (const [who, call] of [
      ['sk_test', aKey],
      ['sk_live', aLive],
      ['merchant user', merchantUser],
    ] as const) {
      expectCode(await call('GET', `/v1/couriers/${courier}/cash`), 403, 'permission_denied', `${who} courier cash`);
      expectCode(await call('GET', '/v1/cash/end_of_day'), 403, 'permission_denied', `${who} end of day`);
      expectCode(await call('GET', '/v1/cash/exceptions'), 403, 'permission_denied', `${who} exceptions`);
      expectCode(
        await call('POST', `/v1/couriers/${courier}/cash_handovers`, { amount: 1, currency: 'PEN', received_by: 'x' }),
        403,
        'permission_denied',
        `${who} handover`,
      );
      expectCode(
        await call('POST', `/v1/cash/exceptions/cex_${courier}_${today}_PEN/resolve`, { note: 'x' }),
        403,
        'permission_denied',
        `${who} resolve`,
      );
      expectCode(
        await call('POST', '/v1/settlements', { account_id: a.accountId, period_start: today, period_end: today }),
        403,
        'permission_denied',
        `${who} draft`,
      );
      expectCode(await call('POST', `/v1/settlements/${stl}/issue`), 403, 'permission_denied', `${who} issue`);
      expectCode(await call('POST', `/v1/settlements/${stl}/pay`), 403, 'permission_denied', `${who} pay`);
      expectCode(await call('DELETE', `/v1/settlements/${stl}`), 403, 'permission_denied', `${who} delete`);
    }
    // A courier session records nothing, reads no settlement and no report.
    expectCode(
      await rosa('POST', `/v1/couriers/${courier}/cash_handovers`, { amount: 1, currency: 'PEN', received_by: 'x' }),
      403,
      'permission_denied',
      'courier handover',
    );
    expectCode(await rosa('GET', '/v1/cash/end_of_day'), 403, 'permission_denied', 'courier end of day');
    expectCode(await rosa('GET', '/v1/settlements'), 403, 'permission_denied', 'courier settlements');
    expectCode(await rosa('GET', `/v1/settlements/${stl}`), 403, 'permission_denied', 'courier settlement');
    expectCode(await rosa('GET', '/v1/reports/summary'), 403, 'permission_denied', 'courier report');

    // The live carrier sees neither the test courier's cash nor the test settlement.
    expectCode(await live('GET', `/v1/couriers/${courier}/cash`), 404, 'resource_missing', 'live courier cash');
    expectCode(
      await live('POST', `/v1/couriers/${courier}/cash_handovers`, { amount: 1, currency: 'PEN', received_by: 'x' }),
      404,
      'resource_missing',
      'live handover',
    );
    expectCode(await live('GET', `/v1/settlements/${stl}`), 404, 'resource_missing', 'live settlement');
    expectCode(await live('POST', `/v1/settlements/${stl}/issue`), 404, 'resource_missing', 'live issue');
    expect((await live('GET', '/v1/settlements')).body.data).toEqual([]);
    expect((await live('GET', '/v1/cash/end_of_day')).body.lines).toEqual([]);

    // Settlements: the merchant reads its own (key and user), another merchant gets 404 and an empty list.
    expect((await aKey('GET', `/v1/settlements/${stl}`)).status).toBe(200);
    expect((await merchantUser('GET', `/v1/settlements/${stl}`)).status).toBe(200);
    expect((await aKey('GET', `/v1/settlements/${stl}/export?format=csv`)).status).toBe(200);
    expect((await aKey('GET', '/v1/settlements')).body.data.map((s: any) => s.id)).toEqual([stl]);
    expectCode(await bKey('GET', `/v1/settlements/${stl}`), 404, 'resource_missing', 'other merchant read');
    expectCode(await bKey('GET', `/v1/settlements/${stl}/export`), 404, 'resource_missing', 'other merchant export');
    expect((await bKey('GET', '/v1/settlements')).body.data).toEqual([]);
    expectCode(await bKey('GET', `/v1/settlements?account=${a.accountId}`), 403, 'permission_denied', 'other filter');
    expectCode(await aLive('GET', `/v1/settlements/${stl}`), 404, 'resource_missing', 'own live key on test');

    // Reports: a merchant's own orders only; naming another account is 403.
    expect((await aKey('GET', '/v1/reports/summary')).body.totals.orders).toBe(1);
    expect((await bKey('GET', '/v1/reports/summary')).body.totals.orders).toBe(0);
    expectCode(
      await bKey('GET', `/v1/reports/summary?account=${a.accountId}`),
      403,
      'permission_denied',
      'other account report',
    );
    expectCode(
      await bKey('GET', `/v1/reports/summary/export?account=${a.accountId}`),
      403,
      'permission_denied',
      'other account export',
    );
    expect((await carrier('GET', `/v1/reports/summary?account=${a.accountId}`)).body.totals.orders).toBe(1);
    expect((await live('GET', '/v1/reports/summary')).body.totals.orders).toBe(0);

    // Revoked or unknown keys: 401 everywhere.
    const nobody = client(t.app, 'sk_test_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
    for (const url of [
      `/v1/couriers/${courier}/cash`,
      '/v1/cash/end_of_day',
      '/v1/settlements',
      '/v1/reports/summary',
    ]) {
      expect((await nobody('GET', url)).status, url).toBe(401);
    }
  });
});
