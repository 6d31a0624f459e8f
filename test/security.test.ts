import { afterAll, beforeAll, expect, it } from 'vitest';
import { createKey, revoke } from '../src/features/accounts/service.js';
import {
  client,
  describeEach,
  type Merchant,
  newMerchant,
  newOperator,
  startApp,
  type TestApp,
  validOrder,
} from './helpers.js';

interface Created {
  id: string;
  tracking_code: string;
}

/** Every way of naming one order: its id, its tracking code, and its sub-resources. */
const reads = (o: Created): [string, string][] => [
  ['GET', `/v1/orders/${o.id}`],
  ['GET', `/v1/orders/${o.tracking_code}`],
  ['GET', `/v1/orders/${o.tracking_code.toLowerCase()}`],
  ['GET', `/v1/orders/${o.id}/tracking`],
  ['GET', `/v1/orders/${o.tracking_code}/tracking`],
  ['GET', `/v1/orders/${o.id}/proof`],
  ['POST', `/v1/orders/${o.id}/cancel`],
];

describeEach('security', (engine) => {
  let t: TestApp;
  let a: Merchant;
  let b: Merchant;
  let aTest: Created;
  let aLive: Created;
  let bTest: Created;

  beforeAll(async () => {
    t = await startApp(engine);
    a = await newMerchant(t, 'A');
    b = await newMerchant(t, 'B');
    aTest = (await client(t.app, a.test)('POST', '/v1/orders', validOrder({ external_order_id: 'A-T' }))).body;
    aLive = (await client(t.app, a.live)('POST', '/v1/orders', validOrder({ external_order_id: 'A-L' }))).body;
    bTest = (await client(t.app, b.test)('POST', '/v1/orders', validOrder({ external_order_id: 'B-T' }))).body;
  });
  afterAll(async () => t?.close());

  it('wrong keys get 401 on every endpoint, and the key never echoes back', async () => {
    const wrong = [
      'sk_test_0000000000000000000000000000000',
      `${a.test}x`,
      a.test.replace('sk_test_', 'sk_live_'),
      a.test.replace('sk_', 'ok_'),
      a.test.toUpperCase(),
      ` ${a.test} extra`,
    ];
    for (const key of wrong) {
      for (const [method, url] of [...reads(aTest), ['GET', '/v1/orders'], ['POST', '/v1/orders']]) {
        const res = await client(t.app, key)(method as 'GET', url, method === 'POST' ? validOrder() : undefined);
        expect(res.status, `${key} ${method} ${url}`).toBe(401);
        expect(res.body.error.type).toBe('authentication_error');
        expect(JSON.stringify(res.body)).not.toContain(a.test.slice(8));
      }
    }
    // The scheme name is case-insensitive, as HTTP says.
    const lower = await t.app.inject({
      method: 'GET',
      url: '/v1/orders',
      headers: { authorization: `bearer ${a.test}` },
    });
    expect(lower.statusCode).toBe(200);
    // The key without its scheme, or as Basic: refused with the header's form in the message, never the key.
    for (const authorization of [a.test, `Basic ${Buffer.from(`${a.test}:`).toString('base64')}`, 'Bearer']) {
      const res = await t.app.inject({ method: 'GET', url: '/v1/orders', headers: { authorization } });
      expect(res.statusCode, authorization).toBe(401);
      const body = res.json();
      expect(body.error).toMatchObject({ type: 'authentication_error', code: 'api_key_invalid' });
      expect(body.error.message).toContain('"Authorization: Bearer <API_KEY>"');
      expect(JSON.stringify(body)).not.toContain(a.test.slice(8));
    }
  });

  it("another account's order is 404 everywhere, and absent from its list", async () => {
    for (const [method, url] of reads(aTest)) {
      const res = await client(t.app, b.test)(method as 'GET', url);
      expect(res.status, url).toBe(404);
      expect(res.body.error.code).toBe('resource_missing');
    }
    // B's list holds its own order and never A's (other tests of this file may add more of B's).
    const list = await client(t.app, b.test)('GET', '/v1/orders?limit=100');
    const ids = list.body.data.map((o: Created) => o.id);
    expect(ids).toContain(bTest.id);
    expect(ids).not.toContain(aTest.id);
    const byExt = await client(t.app, b.test)('GET', '/v1/orders?external_order_id=A-T');
    expect(byExt.body.data).toEqual([]);
    expect((await client(t.app, a.test)('GET', `/v1/orders/${aTest.id}`)).body.status).toBe('pending');
  });

  it('live and test never mix: each key gets 404 for the other environment', async () => {
    for (const [key, order] of [
      [a.live, aTest],
      [a.test, aLive],
    ] as const) {
      for (const [method, url] of reads(order)) {
        const res = await client(t.app, key)(method as 'GET', url);
        expect(res.status, url).toBe(404);
      }
    }
    const live = await client(t.app, a.live)('GET', '/v1/orders?limit=100');
    expect(live.body.data.map((o: Created & { livemode: boolean }) => [o.id, o.livemode])).toEqual([[aLive.id, true]]);
  });

  it('a revoked key gets 401 at once; the account’s other keys keep working', async () => {
    const spare = await createKey(t.ctx, { role: 'merchant', mode: 'test', accountId: a.accountId });
    const call = client(t.app, spare.secret);
    expect((await call('GET', `/v1/orders/${aTest.id}`)).status).toBe(200);
    expect(await revoke(t.ctx, spare.id)).toBe(true);
    expect(await revoke(t.ctx, spare.id)).toBe(false);
    for (const [method, url] of [...reads(aTest), ['GET', '/v1/orders']]) {
      const res = await call(method as 'GET', url);
      expect(res.status, url).toBe(401);
      expect(res.body.error.code).toBe('api_key_invalid');
    }
    expect((await call('POST', '/v1/orders', validOrder())).status).toBe(401);
    expect((await client(t.app, a.test)('GET', `/v1/orders/${aTest.id}`)).status).toBe(200);
  });

  it('operator keys cannot create or quote orders (403 permission_denied)', async () => {
    const count = async () =>
      Number(
        (
          await t.ctx.db
            .selectFrom('orders')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    // Counted here rather than assumed: other tests may add orders, in any order.
    const before = await count();
    for (const mode of ['test', 'live'] as const) {
      const op = client(t.app, await newOperator(t, mode));
      for (const url of ['/v1/orders', '/v1/orders/quote']) {
        const res = await op('POST', url, validOrder());
        expect(res.status, url).toBe(403);
        expect(res.body.error).toMatchObject({ type: 'permission_error', code: 'permission_denied' });
      }
    }
    expect(await count()).toBe(before);
  });

  it('an operator reads every account’s orders in its environment, filters by account, never crosses modes', async () => {
    const op = client(t.app, await newOperator(t, 'test'));
    for (const order of [aTest, bTest]) {
      expect((await op('GET', `/v1/orders/${order.id}`)).body.id).toBe(order.id);
      expect((await op('GET', `/v1/orders/${order.tracking_code}`)).body.id).toBe(order.id);
      expect((await op('GET', `/v1/orders/${order.id}/tracking`)).status).toBe(200);
      const proof = await op('GET', `/v1/orders/${order.id}/proof`);
      expect(proof.status).toBe(404);
      expect(proof.body.error.message).toContain('pending');
    }
    // Other tests of this file make orders too: the carrier's lists are compared with the merchants' own.
    const ids = async (key: string, query = '') =>
      ((await client(t.app, key)('GET', `/v1/orders?limit=100${query}`)).body.data as Created[])
        .map((o) => o.id)
        .sort();
    const all = await op('GET', '/v1/orders?limit=100');
    expect(all.body.data.map((o: Created) => o.id).sort()).toEqual(
      [...(await ids(a.test)), ...(await ids(b.test))].sort(),
    );
    expect(all.body.data.map((o: Created) => o.id)).toEqual(expect.arrayContaining([aTest.id, bTest.id]));
    const onlyA = await op('GET', `/v1/orders?limit=100&account=${a.accountId}`);
    expect(onlyA.body.data.map((o: Created) => o.id).sort()).toEqual(await ids(a.test));
    expect(onlyA.body.data.map((o: Created) => o.id)).not.toContain(bTest.id);
    const nobody = await op('GET', '/v1/orders?account=acct_unknown');
    expect(nobody.body).toMatchObject({ data: [], has_more: false });
    // The test operator never sees the live order, by any name.
    for (const [method, url] of reads(aLive).filter(([m]) => m === 'GET')) {
      expect((await op(method as 'GET', url)).status, url).toBe(404);
    }
    const liveOp = client(t.app, await newOperator(t, 'live'));
    const live = (await liveOp('GET', '/v1/orders?limit=100')).body.data.map((o: Created) => o.id).sort();
    expect(live).toEqual([...(await ids(a.live)), ...(await ids(b.live))].sort());
    expect(live).toContain(aLive.id);
    expect(live).not.toContain(aTest.id);
    expect((await liveOp('GET', `/v1/orders/${aTest.id}`)).status).toBe(404);
  });

  it('a merchant passing account: its own is the same as none, another is 403', async () => {
    const own = await client(t.app, a.test)('GET', `/v1/orders?limit=100&account=${a.accountId}`);
    expect(own.status).toBe(200);
    expect(own.body).toEqual((await client(t.app, a.test)('GET', '/v1/orders?limit=100')).body);
    const res = await client(t.app, a.test)('GET', `/v1/orders?account=${b.accountId}`);
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ code: 'permission_denied', param: 'account' });
  });

  it('an operator can cancel any account’s order of its environment (a lifecycle move)', async () => {
    const o = (await client(t.app, b.test)('POST', '/v1/orders', validOrder())).body;
    expect((await client(t.app, await newOperator(t, 'live'))('POST', `/v1/orders/${o.id}/cancel`)).status).toBe(404);
    const res = await client(t.app, await newOperator(t, 'test'))('POST', `/v1/orders/${o.id}/cancel`, {
      reason: 'carrier',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'cancelled', cancellation_reason: 'carrier' });
  });

  it('keys are stored only as hashes', async () => {
    const rows = await t.ctx.db.selectFrom('api_keys').selectAll().execute();
    const dump = JSON.stringify(rows);
    for (const secret of [a.test, a.live, b.test, b.live]) expect(dump).not.toContain(secret);
    for (const r of rows) expect(r.key_hash).toMatch(/^[0-9a-f]{64}$/);
  });
});
