import { afterAll, beforeAll, expect, it } from 'vitest';
import { ENDPOINTS, type Endpoint, type Fixture, makeFixture, partsRead } from './corpus-table.js';
import {
  client,
  describeEach,
  type Merchant,
  newMerchant,
  newOperator,
  type Res,
  startApp,
  type TestApp,
  validOrder,
} from './helpers.js';
import { tinyPng } from './lifecycle-helpers.js';
import { courierSession, type Session, sessionClient, userSession } from './people-helpers.js';
import { openStream, type SseMessage } from './stream-client.js';

/**
 * Sessions go through the same authorisation code as keys (DESIGN §8), so each session principal
 * must answer every keyed operation exactly as the key it stands for: a dispatcher as an operator
 * key of the chosen environment, a merchant user as its account's secret key of that environment.
 * A courier session may run only its short list (DESIGN §9), and only on what is assigned to it.
 */

// The stream never ends, so it cannot be called like the rest: its own cases are at the end.
const KEYED = ENDPOINTS.filter((ep) => ep.auth === 'key' && !ep.stream);

/** DESIGN §9: what a courier's phone may call; everything else is 403. */
const COURIER_OPS = new Set([
  'GET /v1/orders',
  'GET /v1/orders/{id}',
  'GET /v1/orders/{id}/tracking',
  'GET /v1/orders/{id}/proof',
  'POST /v1/orders/{id}/ready',
  'POST /v1/orders/{id}/pickup',
  'POST /v1/orders/{id}/depart',
  'POST /v1/orders/{id}/approach',
  'POST /v1/orders/{id}/arrive',
  'POST /v1/orders/{id}/deliver',
  'POST /v1/orders/{id}/fail',
  'POST /v1/files',
  'GET /v1/couriers/{id}',
  'POST /v1/couriers/{id}/location',
  'POST /v1/couriers/{id}/locations',
  'GET /v1/couriers/{id}/locations',
  'GET /v1/couriers/{id}/done_today',
  'GET /v1/routes',
  'GET /v1/routes/{id}',
  // The carrier's operations a courier runs on itself: its own sign-out everywhere, its own cash (DESIGN §17).
  'POST /v1/couriers/{id}/sign_out_everywhere',
  'GET /v1/couriers/{id}/cash',
  'GET /v1/routes/{id}/labels.pdf',
  'GET /v1/orders/{id}/label.pdf',
  'POST /v1/orders/{id}/load',
]);

/** Whether the row's path and body need only the fixture's objects, not its people. */
function readsOnly(ep: Endpoint, f: Fixture): boolean {
  try {
    return !partsRead(ep, f).has('people');
  } catch {
    return false;
  }
}

/** The carrier's operations (an admin's session in the corpus), whose courier rule is the same list. */
const CARRIER = ENDPOINTS.filter((ep) => ep.auth === 'admin');

describeEach('isolation matrix: sessions answer as the keys they stand for', (engine) => {
  let t: TestApp;
  let a: Merchant;
  let b: Merchant;
  let opTest: string;
  let opLive: string;
  let dispatcher: Session;
  let merchantA: Session;
  let merchantB: Session;
  let base: Fixture;

  beforeAll(async () => {
    // Thousands of calls with one key within a minute: limits are tested in rate-limit.test.ts.
    t = await startApp(engine, { RUTA_WEBHOOK_ALLOW_INSECURE: '1', RUTA_RATE_LIMIT_PER_MIN: '0' });
    a = await newMerchant(t, 'A');
    b = await newMerchant(t, 'B');
    opTest = await newOperator(t, 'test');
    opLive = await newOperator(t, 'live');
    dispatcher = await userSession(t, 'dispatcher');
    merchantA = await userSession(t, 'merchant', a.accountId);
    merchantB = await userSession(t, 'merchant', b.accountId);
    base = await makeFixture(t, a.test);
  });
  afterAll(async () => t?.close());

  type Caller = ReturnType<typeof client>;
  const call = (who: Caller, ep: Endpoint, f: Fixture): Promise<Res> =>
    ep.body === 'raw'
      ? who(ep.method, ep.path(f), tinyPng(), { 'content-type': 'image/png' })
      : who(ep.method, ep.path(f), ep.valid?.(f));
  /** New objects for the parts the row reads (a call may change them). */
  const fresh = (ep: Endpoint) => makeFixture(t, a.test, base, ep);
  const brief = (r: Res) => `${r.status} ${JSON.stringify(r.body).slice(0, 200)}`;

  // One phone for every row: sign-ins are rate-limited per address, and nothing is ever assigned to it.
  let phoneSession: Promise<Session> | undefined;
  const phone = async () => {
    phoneSession ??= client(t.app, opTest)('POST', '/v1/couriers', { name: 'Phone' }).then((r) =>
      courierSession(t, opTest, r.body.id),
    );
    return sessionClient(t, await phoneSession);
  };
  it('covers every keyed operation', () => {
    expect(KEYED.length).toBeGreaterThanOrEqual(36);
  });

  for (const ep of KEYED) {
    it(`${ep.name}: a dispatcher answers as ok_test, and in live mode as ok_live`, async () => {
      const byKey = await call(client(t.app, opTest), ep, await fresh(ep));
      const bySession = await call(sessionClient(t, dispatcher), ep, await fresh(ep));
      expect(bySession.status, `key ${brief(byKey)} / session ${brief(bySession)}`).toBe(byKey.status);
      const liveKey = await call(client(t.app, opLive), ep, await fresh(ep));
      const liveSession = await call(sessionClient(t, dispatcher, 'live'), ep, await fresh(ep));
      expect(liveSession.status, `key ${brief(liveKey)} / session ${brief(liveSession)}`).toBe(liveKey.status);
      if (liveKey.status >= 400) expect(liveSession.body.error.code).toBe(liveKey.body.error.code);
    });

    it(`${ep.name}: a merchant user answers as its sk_test and sk_live; another account\u2019s as theirs`, async () => {
      for (const [key, session, mode] of [
        [a.test, merchantA, 'test'],
        [a.live, merchantA, 'live'],
        [b.test, merchantB, 'test'],
      ] as const) {
        const byKey = await call(client(t.app, key), ep, await fresh(ep));
        const bySession = await call(sessionClient(t, session, mode), ep, await fresh(ep));
        expect(bySession.status, `${key.slice(0, 8)}: key ${brief(byKey)} / session ${brief(bySession)}`).toBe(
          byKey.status,
        );
        if (byKey.status >= 400) expect(bySession.body.error.code).toBe(byKey.body.error.code);
      }
    });

    it(`${ep.name}: a courier session ${COURIER_OPS.has(ep.route) ? 'sees nothing not assigned to it (404)' : 'is refused (403)'}`, async () => {
      // A courier of the carrier with nothing assigned: the fixture's objects are not its own.
      const res = await call(await phone(), ep, await fresh(ep));
      if (!COURIER_OPS.has(ep.route)) {
        expect(res.status, brief(res)).toBe(403);
        expect(res.body.error.code).toBe('permission_denied');
      } else if (ep.id) {
        expect(res.status, brief(res)).toBe(404);
        expect(res.body.error.code).toBe('resource_missing');
      } else {
        // The list and the upload: an empty list, and a file of its own.
        expect(res.status, brief(res)).toBe(ep.route === 'POST /v1/files' ? 201 : 200);
        if (ep.method === 'GET') expect(res.body.data).toEqual([]);
      }
    });
  }

  for (const ep of CARRIER) {
    it(`${ep.name}: a courier session ${COURIER_OPS.has(ep.route) ? 'reads its own only (404)' : 'is refused (403)'}`, async (test) => {
      // Rows naming people are the admin's own pages (users, invitations): the corpus covers them.
      if (!readsOnly(ep, base)) return test.skip();
      // Refused calls change nothing, so the shared fixture does.
      const res = await call(await phone(), ep, base);
      const [status, code] = COURIER_OPS.has(ep.route) ? [404, 'resource_missing'] : [403, 'permission_denied'];
      expect(res.status, brief(res)).toBe(status);
      expect(res.body.error.code).toBe(code);
    });
  }

  it('a merchant user\u2019s objects belong to its account: B never sees A\u2019s, in either direction', async () => {
    const made = await sessionClient(t, merchantA)('POST', '/v1/orders', validOrder());
    expect(made.status).toBe(201);
    expect((await client(t.app, a.test)('GET', `/v1/orders/${made.body.id}`)).status).toBe(200);
    expect((await sessionClient(t, merchantB)('GET', `/v1/orders/${made.body.id}`)).status).toBe(404);
    expect((await client(t.app, b.test)('GET', `/v1/orders/${made.body.id}`)).status).toBe(404);
    const hook = await sessionClient(t, merchantA, 'live')('POST', '/v1/webhook_endpoints', {
      url: 'http://127.0.0.1:9/h',
      events: ['*'],
    });
    expect(hook.status).toBe(201);
    expect((await client(t.app, a.live)('GET', `/v1/webhook_endpoints/${hook.body.id}`)).status).toBe(200);
    expect((await client(t.app, a.test)('GET', `/v1/webhook_endpoints/${hook.body.id}`)).status).toBe(404);
  });
  // The live stream (DESIGN §13) through a session: each principal sees what its key would, and the
  // environment follows Ruta-Mode. Orders are created after the streams open, so what a stream has
  // once the widest one (the dispatcher's) has the last order is everything it will ever get.
  it('live stream: a dispatcher sees its environment, a merchant user its account, a courier itself', async () => {
    const headers = (s: Session, mode?: 'test' | 'live') => ({
      cookie: s.cookie,
      ...(mode ? { 'ruta-mode': mode } : {}),
    });
    const [disp, dispLive, mA, mALive, mB] = await Promise.all([
      openStream(t.app, undefined, headers(dispatcher)),
      openStream(t.app, undefined, headers(dispatcher, 'live')),
      openStream(t.app, undefined, headers(merchantA)),
      openStream(t.app, undefined, headers(merchantA, 'live')),
      openStream(t.app, undefined, headers(merchantB)),
    ]);
    for (const s of [disp, dispLive, mA, mALive, mB]) expect(s.status).toBe(200);
    const made = async (key: string) =>
      (await client(t.app, key)('POST', '/v1/orders', validOrder())).body.id as string;
    const ob = await made(b.test);
    const oaLive = await made(a.live);
    const oa = await made(a.test);
    const created = (id: string) => (m: SseMessage) =>
      m.event === 'order' && m.data.event === 'order.created' && m.data.data.id === id;
    await disp.next(created(oa));
    await dispLive.next(created(oaLive));
    await mA.next(created(oa));
    await mALive.next(created(oaLive));
    await mB.next(created(ob));
    // Other tests of this file made orders for A and B just before: count only this test's three
    // (the hub may still publish what was committed before a stream opened), and check the
    // environment of everything.
    const ours = new Set([ob, oaLive, oa]);
    const orders = (s: typeof disp) => s.messages.filter((m) => m.event === 'order');
    const ids = (s: typeof disp) =>
      orders(s)
        .map((m) => m.data.data.id as string)
        .filter((id) => ours.has(id));
    for (const s of [disp, mA, mB]) expect(orders(s).every((m) => m.data.livemode === false)).toBe(true);
    for (const s of [dispLive, mALive]) expect(orders(s).every((m) => m.data.livemode === true)).toBe(true);
    expect(ids(disp)).toEqual(expect.arrayContaining([ob, oa]));
    expect(ids(disp)).not.toContain(oaLive);
    expect(ids(dispLive)).toEqual([oaLive]);
    expect(ids(mA)).toEqual([oa]);
    expect(ids(mALive)).toEqual([oaLive]);
    expect(ids(mB)).toEqual([ob]);
    for (const s of [disp, dispLive, mA, mALive, mB]) s.close();

    // A courier's phone follows only itself: its own position, nobody else's, and no order of others.
    const op = client(t.app, opTest);
    const courier = (await op('POST', '/v1/couriers', { name: 'Phone' })).body;
    const other = (await op('POST', '/v1/couriers', { name: 'Other' })).body;
    const phone = await courierSession(t, opTest, courier.id);
    const own = await openStream(t.app, undefined, { cookie: phone.cookie });
    expect(own.status).toBe(200);
    await op('POST', `/v1/couriers/${other.id}/location`, { lat: -12.2, lng: -77.2 });
    await made(a.test);
    await op('POST', `/v1/couriers/${courier.id}/location`, { lat: -12.1, lng: -77.1 });
    const mine = await own.next((m) => m.event === 'courier.location' && m.data.courier === courier.id);
    expect(mine.data).toMatchObject({ lat: -12.1, lng: -77.1 });
    expect(own.messages.map((m) => `${m.event} ${m.data.courier ?? ''}`)).toEqual([`courier.location ${courier.id}`]);
    own.close();
    const nobody = await openStream(t.app, undefined, { cookie: 'ruta_session=forged' });
    expect(nobody.status).toBe(401);
  });

  // EventSource sends the cookie but no header: `?mode=` picks a session's environment instead of
  // Ruta-Mode, through the same authorisation code; a key's (or a phone's) environment is its own.
  it('live stream: ?mode=live gives a session its live environment, and never the test one', async () => {
    const at = (s: Session, mode: string, headers: Record<string, string> = {}) =>
      openStream(t.app, undefined, { cookie: s.cookie, ...headers }, 10_000, `/v1/stream?mode=${mode}`);
    const [dispLive, dispTest, mALive, mBLive] = await Promise.all([
      at(dispatcher, 'live'),
      at(dispatcher, 'test'),
      at(merchantA, 'live'),
      at(merchantB, 'live'),
    ]);
    for (const s of [dispLive, dispTest, mALive, mBLive]) expect(s.status).toBe(200);
    const made = async (key: string) =>
      (await client(t.app, key)('POST', '/v1/orders', validOrder())).body.id as string;
    const oaTest = await made(a.test);
    const obLive = await made(b.live);
    const oaLive = await made(a.live);
    const created = (id: string) => (m: SseMessage) =>
      m.event === 'order' && m.data.event === 'order.created' && m.data.data.id === id;
    // Created last: once the dispatcher's live stream has it, every stream has had its chance.
    const last = await dispLive.next(created(oaLive));
    expect(last.data.livemode).toBe(true);
    await dispTest.next(created(oaTest));
    await mALive.next(created(oaLive));
    await mBLive.next(created(obLive));
    // The carrier's streams also carry the orders other tests of this file made just before (the
    // hub publishes what was committed before a stream opened); count only this test's three, and
    // check the environment of everything.
    const ours = new Set([oaTest, obLive, oaLive]);
    const orders = (s: typeof dispLive) => s.messages.filter((m) => m.event === 'order');
    const ids = (s: typeof dispLive) =>
      orders(s)
        .map((m) => m.data.data.id as string)
        .filter((id) => ours.has(id));
    for (const s of [dispLive, mALive, mBLive]) expect(orders(s).every((m) => m.data.livemode === true)).toBe(true);
    expect(orders(dispTest).every((m) => m.data.livemode === false)).toBe(true);
    expect(ids(dispLive)).toEqual([obLive, oaLive]);
    expect(ids(dispTest)).toEqual([oaTest]);
    expect(ids(mALive)).toEqual([oaLive]);
    expect(ids(mBLive)).toEqual([obLive]);
    for (const s of [dispLive, dispTest, mALive, mBLive]) s.close();

    // The parameter and the header must agree; anything but test|live is refused with its param.
    const clash = await at(dispatcher, 'live', { 'ruta-mode': 'test' });
    expect(clash.status).toBe(422);
    expect(clash.body.error).toMatchObject({ code: 'parameter_invalid', param: 'mode' });
    const agreed = await at(dispatcher, 'live', { 'ruta-mode': 'live' });
    expect(agreed.status).toBe(200);
    agreed.close();
    const bad = await at(dispatcher, 'LIVE');
    expect(bad.status).toBe(422);
    expect(bad.body.error).toMatchObject({ code: 'parameter_invalid', param: 'mode' });

    // A key is bound to its environment: naming the other one is 422, naming its own is fine.
    const path = (mode: string) => `/v1/stream?mode=${mode}`;
    const wrongKey = await openStream(t.app, a.test, {}, 10_000, path('live'));
    expect(wrongKey.status).toBe(422);
    expect(wrongKey.body.error).toMatchObject({ code: 'parameter_invalid', param: 'mode' });
    const wrongOp = await openStream(t.app, opLive, {}, 10_000, path('test'));
    expect(wrongOp.status).toBe(422);
    const ownKey = await openStream(t.app, a.live, {}, 10_000, path('live'));
    expect(ownKey.status).toBe(200);
    ownKey.close();
    // So is a courier's phone (its courier's environment).
    const courier = (await client(t.app, opTest)('POST', '/v1/couriers', { name: 'Phone 2' })).body;
    const phone = await courierSession(t, opTest, courier.id);
    const phoneLive = await openStream(t.app, undefined, { cookie: phone.cookie }, 10_000, path('live'));
    expect(phoneLive.status).toBe(422);
    expect(phoneLive.body.error.param).toBe('mode');
  });
});
