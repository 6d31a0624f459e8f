import { afterAll, beforeAll, expect, it } from 'vitest';
import { client, describeEach, type Merchant, newMerchant, newOperator, startApp, type TestApp } from './helpers.js';
import { csv, drain, good, HEADER } from './imports-helpers.js';
import { courierSession, sessionClient, userSession } from './people-helpers.js';

// The carrier imports on behalf of a merchant it picks (issue 24): operator keys, admins and
// dispatchers name the account; merchants import only for themselves; couriers never.

describeEach('imports on behalf of a merchant', (engine) => {
  let t: TestApp;
  let shop: Merchant;
  let other: Merchant;
  let op: ReturnType<typeof client>;
  let opKey: string;
  beforeAll(async () => {
    t = await startApp(engine);
    shop = await newMerchant(t, 'Behalf Shop');
    other = await newMerchant(t, 'Other Shop');
    opKey = await newOperator(t, 'test');
    op = client(t.app, opKey);
  });
  afterAll(async () => t?.close());

  const file = (...n: number[]) => csv([HEADER, ...n.map((i) => good(i))]);
  const post = (c: ReturnType<typeof client>, qs: string, body: string) =>
    c('POST', `/v1/order_imports${qs}`, body, { 'content-type': 'text/csv' });

  it('an operator key imports for the account it names: the orders are that merchant’s, who sees the import', async () => {
    const res = await post(op, `?account=${shop.accountId}`, file(901, 902));
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    await drain(t);
    const done = await op('GET', `/v1/order_imports/${res.body.id}?account=${shop.accountId}`);
    expect(done.body).toMatchObject({ status: 'succeeded', created: 2, livemode: false });
    const mine = await client(t.app, shop.test)('GET', '/v1/orders?external_order_id=EXT-901');
    expect(mine.body.data).toHaveLength(1);
    // The merchant lists it among its own imports; the other merchant does not see it.
    const list = (await client(t.app, shop.test)('GET', '/v1/order_imports')).body.data;
    expect(list.map((i: { id: string }) => i.id)).toContain(res.body.id);
    expect((await client(t.app, other.test)('GET', `/v1/order_imports/${res.body.id}`)).status).toBe(404);
    // Read under another account's name: as missing.
    expect((await op('GET', `/v1/order_imports/${res.body.id}?account=${other.accountId}`)).status).toBe(404);
    const listed = await op('GET', `/v1/order_imports?account=${shop.accountId}&limit=5`);
    expect(listed.body.data.map((i: { id: string }) => i.id)).toContain(res.body.id);
  });

  it('the carrier must name the account, an existing one; a merchant cannot name another', async () => {
    const missing = await post(op, '', file(903));
    expect(missing.status).toBe(422);
    expect(missing.body.error).toMatchObject({ code: 'parameter_missing', param: 'account' });
    const unknown = await post(op, '?account=acct_nope', file(903));
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.param).toBe('account');
    const malformed = await post(op, '?account=ord_1', file(903));
    expect(malformed.status).toBe(422);
    const merchant = await post(client(t.app, shop.test), `?account=${other.accountId}`, file(904));
    expect(merchant.status).toBe(403);
    expect(merchant.body.error).toMatchObject({ code: 'permission_denied', param: 'account' });
    // Its own account named is fine.
    expect((await post(client(t.app, shop.test), `?account=${shop.accountId}`, file(905))).status).toBe(202);
    expect((await op('GET', '/v1/order_imports')).status).toBe(422);
  });

  it('a live operator key imports in live; a dispatcher session imports too; a courier phone cannot', async () => {
    const live = client(t.app, await newOperator(t, 'live'));
    const res = await post(live, `?account=${shop.accountId}`, file(906));
    expect(res.status).toBe(202);
    expect(res.body.livemode).toBe(true);
    await drain(t);
    expect((await client(t.app, shop.live)('GET', '/v1/orders?external_order_id=EXT-906')).body.data).toHaveLength(1);
    expect((await client(t.app, shop.test)('GET', '/v1/orders?external_order_id=EXT-906')).body.data).toHaveLength(0);

    const dispatcher = sessionClient(t, await userSession(t, 'dispatcher'));
    const byPerson = await dispatcher('POST', `/v1/order_imports?account=${other.accountId}`, file(907), {
      'content-type': 'text/csv',
    });
    expect(byPerson.status, JSON.stringify(byPerson.body)).toBe(202);

    const courier = (await op('POST', '/v1/couriers', { name: 'Import Courier' })).body;
    const phone = sessionClient(t, await courierSession(t, opKey, courier.id));
    const refused = await phone('POST', `/v1/order_imports?account=${shop.accountId}`, file(908), {
      'content-type': 'text/csv',
    });
    expect(refused.status).toBe(403);
    expect((await phone('GET', '/v1/order_imports/template.csv')).status).toBe(403);
    // Templates are for anyone who imports.
    expect((await op('GET', '/v1/order_imports/template.csv')).status).toBe(200);
  });
});
