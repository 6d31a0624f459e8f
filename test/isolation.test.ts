import { afterAll, beforeAll, expect, it } from 'vitest';
import { createKey, revoke } from '../src/features/accounts/service.js';
import { ENDPOINTS, type Endpoint, type Fixture, IMPORT_CSV, makeFixture } from './corpus-table.js';
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
import { orderIn, tinyPng, upload } from './lifecycle-helpers.js';
import { sessionClient, userSession } from './people-helpers.js';

/**
 * The key × object matrix for every authenticated operation outside the orders API (whose matrix
 * is test/security.test.ts): lifecycle moves, couriers, routes, files, webhook endpoints, events, order imports.
 * Objects are real, made through the API; each operation is driven from the corpus table.
 */

type Kind = 'mover' | 'merchant' | 'reader' | 'webhookReader';

/**
 * DESIGN §1: who may call what. Movers: operators and sandbox test keys. Merchant: secret keys only.
 * Webhook readers: the merchant's own, and the carrier's across accounts (the Exceptions page, §8).
 */
function kindOf(ep: Endpoint): Kind {
  if (/^GET \/v1\/(webhook_endpoints(\/\{id\})?|webhook_deliveries)$/.test(ep.route)) return 'webhookReader';
  if (/\/(webhook_endpoints|events|order_imports)/.test(ep.route)) return 'merchant';
  if (ep.route === 'GET /v1/files/{id}') return 'reader';
  return 'mover';
}

const ORDERS_API = new Set([
  'POST /v1/orders',
  'POST /v1/orders/quote',
  'GET /v1/orders',
  'GET /v1/orders/counts',
  'GET /v1/orders/{id}',
  'GET /v1/orders/{id}/tracking',
  'GET /v1/orders/{id}/proof',
  // Read like the order (a live merchant key prints its own labels): test/labels.test.ts checks who may.
  'GET /v1/orders/{id}/label.pdf',
  'POST /v1/orders/{id}/cancel',
]);
// The stream never ends, so it cannot be called like the rest; its scopes are tested in test/stream.test.ts.
// Customer messages and their settings are read by merchants (both environments) and the carrier
// alike, a shape this matrix's kinds do not have: test/messages.test.ts checks their isolation, and
// test/delivery-pin.test.ts the proof settings' (the same owners), and test/settings-on-behalf.test.ts
// the carrier's `?account=` on both and the log's `account` filter (other accounts, roles, bad ids).
const MESSAGES_API = /^(GET|PUT|POST) \/v1\/(notification_settings|messages|proof_settings)/;
// Order imports are a merchant's, and also the carrier's on a merchant's behalf (`?account=`, issue
// #24): test/imports-on-behalf.test.ts checks that shape (roles, other accounts and environments).
const IMPORTS_API = /\/v1\/order_imports/;
const OPS = ENDPOINTS.filter(
  (ep) =>
    ep.auth === 'key' &&
    !ORDERS_API.has(ep.route) &&
    !ep.stream &&
    !MESSAGES_API.test(ep.route) &&
    !IMPORTS_API.test(ep.route) &&
    // Address search touches no account's objects; who may call it is in test/geocoding.test.ts.
    ep.route !== 'GET /v1/geocode',
);

/** The object a list must (or must not) show, for the lists of this matrix. */
const LISTED: Record<string, (f: Fixture) => string> = {
  'GET /v1/couriers': (f) => f.courier.id,
  'GET /v1/webhook_endpoints': (f) => f.endpoint.id,
  'GET /v1/events': (f) => f.event.id,
};

describeEach('isolation matrix', (engine) => {
  let t: TestApp;
  let a: Merchant;
  let b: Merchant;
  let keys: Record<'opTest' | 'opLive' | 'revoked' | 'revokedOp' | 'tampered', string>;
  let aTestObjects: Fixture;
  let liveObjects: Fixture;

  /** Live objects of account A: its order, endpoint and event; the live carrier's courier, route and file. */
  async function liveFixture(owner: Merchant = a): Promise<Fixture> {
    const merchant = client(t.app, owner.live);
    const op = client(t.app, keys.opLive);
    const endpoint = (await merchant('POST', '/v1/webhook_endpoints', { url: 'http://127.0.0.1:9/h', events: ['*'] }))
      .body;
    const order = (await merchant('POST', '/v1/orders', validOrder())).body;
    const unfit = (await merchant('POST', '/v1/orders', validOrder({ requirements: ['corpus-never'] }))).body;
    const routed = (await merchant('POST', '/v1/orders', validOrder())).body;
    const courier = (await op('POST', '/v1/couriers', { name: 'Live Luis' })).body;
    const route = (await op('POST', '/v1/routes', { courier_id: courier.id, order_ids: [routed.id] })).body;
    const file = (await upload(t, keys.opLive, 'photo', tinyPng())).body;
    const event = (await merchant('GET', `/v1/events?order=${order.id}`)).body.data[0];
    const orderImport = (await merchant('POST', '/v1/order_imports', IMPORT_CSV, { 'content-type': 'text/csv' })).body;
    const depot = (await op('POST', '/v1/depots', { name: 'Live depot', lat: -12.1, lng: -77 })).body;
    const routePlan = (
      await op('POST', '/v1/route_plans', {
        date: '2030-01-02',
        depot: depot.id,
        couriers: [{ courier_id: courier.id }],
        order_ids: [order.id],
        time_limit_ms: 100,
      })
    ).body;
    const objects = { endpoint, order, unfit, courier, route, file, event, orderImport, depot, routePlan };
    for (const [what, o] of Object.entries(objects)) {
      expect(o?.id, `live ${what}`).toBeTypeOf('string');
    }
    // The money rows are the carrier's (an admin's session): test/money-isolation.test.ts has their matrix.
    return {
      ...objects,
      account: { id: owner.accountId },
      settlement: { id: 'stl_unused' },
      handover: { id: 'cho_unused' },
    };
  }

  beforeAll(async () => {
    t = await startApp(engine, { RUTA_WEBHOOK_ALLOW_INSECURE: '1' });
    a = await newMerchant(t, 'A');
    b = await newMerchant(t, 'B');
    const spare = await createKey(t.ctx, { role: 'merchant', mode: 'test', accountId: a.accountId });
    const spareOp = await createKey(t.ctx, { role: 'operator', mode: 'test', accountId: null });
    keys = {
      opTest: await newOperator(t, 'test'),
      opLive: await newOperator(t, 'live'),
      revoked: spare.secret,
      revokedOp: spareOp.secret,
      tampered: `${a.test.slice(0, -1)}${a.test.endsWith('A') ? 'B' : 'A'}`,
    };
    // The revoked keys worked before they were revoked.
    expect((await client(t.app, spare.secret)('GET', '/v1/couriers')).status).toBe(200);
    expect((await client(t.app, spareOp.secret)('GET', '/v1/couriers')).status).toBe(200);
    await revoke(t.ctx, spare.id);
    await revoke(t.ctx, spareOp.id);
    aTestObjects = await makeFixture(t, a.test);
    liveObjects = await liveFixture();
  });
  afterAll(async () => t?.close());

  const call = (ep: Endpoint, key: string, f: Fixture): Promise<Res> => {
    if (ep.rawBody) {
      const { payload, type } = ep.rawBody();
      return client(t.app, key)(ep.method, ep.path(f), payload, { 'content-type': type });
    }
    if (ep.body === 'raw') {
      return client(t.app, key)(ep.method, ep.path(f), tinyPng(), { 'content-type': 'image/png' });
    }
    return client(t.app, key)(ep.method, ep.path(f), ep.valid?.(f));
  };
  const expectStatus = (res: Res, status: number, context: string) => {
    expect(res.status, `${context}: ${JSON.stringify(res.body).slice(0, 300)}`).toBe(status);
    const code = { 401: 'api_key_invalid', 403: 'permission_denied', 404: 'resource_missing' }[status];
    if (code) expect(res.body.error.code, context).toBe(code);
  };

  it('covers every authenticated operation outside the orders API', () => {
    expect(OPS.length).toBeGreaterThanOrEqual(30);
    expect(OPS.map(kindOf).filter((k) => k === 'merchant')).toHaveLength(9);
    expect(OPS.map(kindOf).filter((k) => k === 'webhookReader')).toHaveLength(3);
  });

  for (const ep of OPS) {
    const kind = kindOf(ep);

    it(`${ep.name}: revoked and tampered keys are 401`, async () => {
      for (const key of [keys.revoked, keys.revokedOp, keys.tampered]) {
        expectStatus(await call(ep, key, aTestObjects), 401, `${ep.name} ${key.slice(0, 8)}`);
      }
    });

    it(`${ep.name}: roles (DESIGN §1): ${kind === 'merchant' ? 'operators get 403' : kind === 'mover' ? 'sk_live gets 403' : 'every key of the scope reads'}`, async () => {
      if (kind === 'merchant') {
        for (const key of [keys.opTest, keys.opLive]) expectStatus(await call(ep, key, aTestObjects), 403, 'operator');
      }
      if (kind === 'mover') {
        for (const key of [a.live, b.live]) expectStatus(await call(ep, key, liveObjects), 403, 'sk_live');
      }
      // The allowed keys, on fresh objects of their own scope: the operation answers as the table says.
      const allowed: [string, () => Promise<Fixture>][] =
        kind === 'merchant'
          ? [[a.test, () => makeFixture(t, a.test, aTestObjects, ep)]]
          : [
              [a.test, () => makeFixture(t, a.test, aTestObjects, ep)],
              [keys.opTest, () => makeFixture(t, a.test, aTestObjects, ep)],
            ];
      for (const [key, fresh] of allowed) {
        const res = await call(ep, key, await fresh());
        expect(res.status, `${key.slice(0, 8)}: ${JSON.stringify(res.body).slice(0, 300)}`).toBe(ep.ok);
      }
    });

    if (ep.id) {
      it(`${ep.name}: another account's object and the other environment's objects are 404`, async () => {
        // Another merchant, test and live: never 403 for an object of someone else (merchant ops and reads).
        expectStatus(await call(ep, b.test, aTestObjects), 404, 'other account, test');
        if (kind !== 'mover') expectStatus(await call(ep, b.live, liveObjects), 404, 'other account, live');
        // A live key on a test object; test keys on live objects.
        if (kind !== 'mover') expectStatus(await call(ep, a.live, aTestObjects), 404, 'sk_live on test');
        expectStatus(await call(ep, a.test, liveObjects), 404, 'sk_test on live');
        if (kind !== 'merchant') {
          expectStatus(await call(ep, keys.opLive, aTestObjects), 404, 'ok_live on test');
          expectStatus(await call(ep, keys.opTest, liveObjects), 404, 'ok_test on live');
        }
        // The live objects are there for their own keys. Fresh ones for each operation (some delete
        // or rotate them), of a fresh account, so no account reaches the endpoint limit.
        const fresh = await newMerchant(t, 'Fresh');
        const owner = kind === 'merchant' ? fresh.live : keys.opLive;
        const res = await call(ep, owner, await liveFixture(fresh));
        expect(res.status, `live owner: ${JSON.stringify(res.body).slice(0, 300)}`).toBe(ep.ok);
      });
    }

    const listed = LISTED[ep.route];
    if (listed) {
      it(`${ep.name}: other accounts and environments never list the object`, async () => {
        // Operators get 403 on merchant lists (their role, pinned here too); every other key gets its own list.
        const lists: [string, Fixture, 200 | 403][] = [
          [b.test, aTestObjects, 200],
          [keys.opLive, aTestObjects, kind === 'merchant' ? 403 : 200],
          [a.test, liveObjects, 200],
        ];
        if (kind !== 'mover') lists.push([a.live, aTestObjects, 200], [b.live, liveObjects, 200]);
        if (kind !== 'merchant') lists.push([keys.opTest, liveObjects, 200]);
        for (const [key, f, status] of lists) {
          const res = await client(t.app, key)('GET', `${ep.path(f)}?limit=100`);
          expectStatus(res, status, key.slice(0, 8));
          if (status === 200) {
            expect(
              res.body.data.map((x: { id: string }) => x.id),
              key.slice(0, 8),
            ).not.toContain(listed(f));
          }
        }
        // The owner finds it, on whichever page (other fixtures of this file add to the same lists).
        const seen: string[] = [];
        let after = '';
        for (let page = 0; page < 50 && !seen.includes(listed(aTestObjects)); page++) {
          const own = await client(t.app, a.test)('GET', `${ep.path(aTestObjects)}?limit=100${after}`);
          const ids = own.body.data.map((x: { id: string }) => x.id);
          seen.push(...ids);
          if (!own.body.has_more) break;
          after = `&starting_after=${ids.at(-1)}`;
        }
        expect(seen).toContain(listed(aTestObjects));
      });
    }
  }

  it("depots and route plans: the other environment's carrier gets 404, merchants 403", async () => {
    // A well-formed edit, so that the 403/404 is about who calls, not the body.
    const edit = { routes: [{ courier_id: liveObjects.courier.id, order_ids: [liveObjects.order.id] }] };
    const paths: ['GET' | 'PATCH' | 'POST', string, unknown?][] = [
      ['GET', `/v1/depots/${liveObjects.depot.id}`],
      ['GET', `/v1/route_plans/${liveObjects.routePlan.id}`],
      ['PATCH', `/v1/route_plans/${liveObjects.routePlan.id}`, edit],
      ['POST', `/v1/route_plans/${liveObjects.routePlan.id}/commit`],
    ];
    for (const [method, path, body] of paths) {
      const call = (key: string) => client(t.app, key)(method, path, body);
      expect((await call(keys.opTest)).status, `${method} ${path} test operator`).toBe(404);
      for (const key of [a.live, a.test, b.live]) {
        expect((await call(key)).status, `${method} ${path} merchant`).toBe(403);
      }
    }
    expect((await client(t.app, keys.opLive)('GET', `/v1/depots/${liveObjects.depot.id}`)).status).toBe(200);
    const seen = (await client(t.app, keys.opTest)('GET', '/v1/depots?limit=100')).body.data.map(
      (d: { id: string }) => d.id,
    );
    expect(seen).not.toContain(liveObjects.depot.id);
  });

  it("bodies cannot name another account's or environment's objects", async () => {
    const bCourier = (await client(t.app, b.test)('POST', '/v1/couriers', { name: 'B' })).body;
    const bCall = client(t.app, b.test);
    const expect422 = (res: Res, param: string) => {
      expect(res.status, `${param}: ${JSON.stringify(res.body)}`).toBe(422);
      expect(res.body.error.param).toBe(param);
    };
    // Routes: A's courier or A's orders.
    const bOrder = (await bCall('POST', '/v1/orders', validOrder())).body;
    expect422(
      await bCall('POST', '/v1/routes', { courier_id: aTestObjects.courier.id, order_ids: [bOrder.id] }),
      'courier_id',
    );
    expect422(
      await bCall('POST', '/v1/routes', { courier_id: bCourier.id, order_ids: [bOrder.id, aTestObjects.order.id] }),
      'order_ids[1]',
    );
    expect422(
      await client(t.app, keys.opLive)('POST', '/v1/routes', {
        courier_id: liveObjects.courier.id,
        order_ids: [aTestObjects.order.id],
      }),
      'order_ids[0]',
    );
    // Assign: A's route; the live carrier's courier.
    expect422(
      await bCall('POST', `/v1/orders/${bOrder.id}/assign`, {
        courier_id: bCourier.id,
        route_id: aTestObjects.route.id,
      }),
      'route_id',
    );
    expect422(
      await client(t.app, keys.opTest)('POST', `/v1/orders/${bOrder.id}/assign`, {
        courier_id: liveObjects.courier.id,
      }),
      'courier_id',
    );
    // Deliver: A's file as B's signature or photo, or the live carrier's file on a test order.
    for (const [key, body, param] of [
      [b.test, { receiver_name: 'X', signature_file: aTestObjects.file.id }, 'signature_file'],
      [b.test, { receiver_name: 'X', photo_files: [aTestObjects.file.id] }, 'photo_files[0]'],
      [keys.opTest, { receiver_name: 'X', signature_file: liveObjects.file.id }, 'signature_file'],
    ] as const) {
      const o = await orderIn(t, b.test, b.test, bCourier.id, 'in_transit');
      expect422(await client(t.app, key)('POST', `/v1/orders/${o.id}/deliver`, body), param);
      expect((await bCall('GET', `/v1/orders/${o.id}`)).body.status).toBe('in_transit');
    }
    // Redeliver to A's endpoint, or to A's live endpoint from the test key.
    const bEvent = (await bCall('GET', `/v1/events?order=${bOrder.id}`)).body.data[0];
    for (const [key, event, endpoint] of [
      [b.test, bEvent.id, aTestObjects.endpoint.id],
      [a.test, aTestObjects.event.id, liveObjects.endpoint.id],
    ] as const) {
      // The event is the caller's own; the endpoint is not theirs: the body names nothing it may use.
      expect422(await client(t.app, key)('POST', `/v1/events/${event}/redeliver`, { endpoint }), 'endpoint');
    }
  });
});

/**
 * `?account=` on the carrier's lists (docs/api.md, "Naming an account"): an id of the wrong
 * shape is 422 naming `account` on every list that takes it; a well-formed id of no account is a
 * filter that matches nothing (an empty list), as a merchant's own would be with no objects yet.
 */
describeEach("the carrier's account filter", (engine) => {
  let t: TestApp;
  let op: string;
  let admin: ReturnType<typeof sessionClient>;
  beforeAll(async () => {
    t = await startApp(engine);
    op = await newOperator(t);
    admin = sessionClient(t, await userSession(t, 'admin'));
  });
  afterAll(() => t?.close());

  const LISTS = [
    '/v1/orders',
    '/v1/orders/counts',
    '/v1/webhook_endpoints',
    '/v1/webhook_deliveries?status=failed',
    '/v1/settlements',
    '/v1/reports/summary',
    '/v1/reports/summary/export',
    '/v1/messages',
    '/v1/api_keys',
  ];
  const callerOf = (path: string) =>
    path.startsWith('/v1/api_keys') ? admin : (method: 'GET', url: string) => client(t.app, op)(method, url);
  const withAccount = (path: string, account: string) =>
    `${path}${path.includes('?') ? '&' : '?'}account=${encodeURIComponent(account)}`;

  it('refuses an account id of the wrong shape with 422 naming account, on every list', async () => {
    for (const path of LISTS) {
      for (const bad of ['ord_1', 'acct_', 'acct_a-b', "acct_x'", '12', `acct_${'x'.repeat(100)}`]) {
        const res = await callerOf(path)('GET', withAccount(path, bad));
        expect(res.status, `${path} account=${bad}`).toBe(422);
        expect(res.body.error, `${path} account=${bad}`).toMatchObject({ code: 'parameter_invalid', param: 'account' });
      }
    }
  });

  it('answers a well-formed id of no account with what matches it: nothing (API keys: 404)', async () => {
    for (const path of LISTS) {
      const res = await callerOf(path)('GET', withAccount(path, 'acct_0000000000nope'));
      // An admin's key list names the account whose keys it manages, as a key's creation does.
      if (path === '/v1/api_keys') {
        expect(res.status, path).toBe(404);
        continue;
      }
      expect(res.status, path).toBe(200);
      if (Array.isArray(res.body?.data)) expect(res.body.data, path).toEqual([]);
    }
  });
});
