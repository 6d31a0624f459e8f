import { expect, it } from 'vitest';
import {
  client,
  describeEach,
  newMerchant,
  type Res,
  type TestApp,
  useApp,
  useMerchant,
  validOrder,
} from './helpers.js';
import { csv, good, HEADER } from './imports-helpers.js';
import { sessionClient, userSession } from './people-helpers.js';

/**
 * A merchant that names an account in the query string (docs/api.md, "Naming an account"): one
 * answer on every endpoint that takes `?account=`, given by one helper (shared/access.ts,
 * accountNamed). Its own account is the same as leaving `account` out; any other is 403 naming
 * `account`, whether it exists or not (the same message, so nothing leaks); a malformed id is 422
 * naming `account`. An endpoint a merchant may not use at all keeps its own 403 (a merchant's key
 * on GET /v1/api_keys). The carrier's answers are account-naming.test.ts's and isolation.test.ts's.
 */

type Call = (
  method: 'GET' | 'PUT' | 'POST',
  url: string,
  body?: unknown,
  headers?: Record<string, string>,
) => Promise<Res>;

interface Endpoint {
  /** As the OpenAPI document names the operation: `GET /v1/order_imports/{id}`. */
  op: string;
  method: 'GET' | 'PUT' | 'POST';
  /** The URL without `account`; `imp` is an import of the caller's own. */
  url: (imp: string) => string;
  body?: () => unknown;
  headers?: Record<string, string>;
  /** Merchant users only (merchant keys get the endpoint's own 403 whatever they name). */
  usersOnly?: boolean;
}

const ENDPOINTS: Endpoint[] = [
  { op: 'GET /v1/orders', method: 'GET', url: () => '/v1/orders?limit=100' },
  { op: 'GET /v1/orders/counts', method: 'GET', url: () => '/v1/orders/counts' },
  { op: 'GET /v1/proof_settings', method: 'GET', url: () => '/v1/proof_settings' },
  { op: 'PUT /v1/proof_settings', method: 'PUT', url: () => '/v1/proof_settings', body: () => ({}) },
  { op: 'GET /v1/notification_settings', method: 'GET', url: () => '/v1/notification_settings' },
  { op: 'PUT /v1/notification_settings', method: 'PUT', url: () => '/v1/notification_settings', body: () => ({}) },
  {
    op: 'POST /v1/notification_settings/preview',
    method: 'POST',
    url: () => '/v1/notification_settings/preview',
    body: () => ({ trigger: 'delivered', channel: 'sms' }),
  },
  {
    op: 'POST /v1/order_imports',
    method: 'POST',
    url: () => '/v1/order_imports',
    body: () => csv([HEADER, good(1)]),
    headers: { 'content-type': 'text/csv' },
  },
  { op: 'GET /v1/order_imports', method: 'GET', url: () => '/v1/order_imports?limit=100' },
  { op: 'GET /v1/order_imports/{id}', method: 'GET', url: (imp) => `/v1/order_imports/${imp}` },
  {
    op: 'GET /v1/order_imports/{id}/failed_rows.csv',
    method: 'GET',
    url: (imp) => `/v1/order_imports/${imp}/failed_rows.csv`,
  },
  { op: 'GET /v1/webhook_endpoints', method: 'GET', url: () => '/v1/webhook_endpoints' },
  { op: 'GET /v1/webhook_deliveries', method: 'GET', url: () => '/v1/webhook_deliveries?status=failed' },
  { op: 'GET /v1/settlements', method: 'GET', url: () => '/v1/settlements' },
  { op: 'GET /v1/reports/summary', method: 'GET', url: () => '/v1/reports/summary' },
  { op: 'GET /v1/reports/summary/export', method: 'GET', url: () => '/v1/reports/summary/export?format=csv' },
  { op: 'GET /v1/messages', method: 'GET', url: () => '/v1/messages?limit=100' },
  { op: 'GET /v1/api_keys', method: 'GET', url: () => '/v1/api_keys', usersOnly: true },
];

/** An error body without its request_id (which differs on every request). */
const errorOf = (res: Res) => {
  const { request_id: _id, ...rest } = res.body?.error ?? {};
  return rest;
};

const withAccount = (url: string, account: string) =>
  `${url}${url.includes('?') ? '&' : '?'}account=${encodeURIComponent(account)}`;

describeEach('a merchant naming an account in the query string', (engine) => {
  // No background jobs: a message's send or a plan would change a list between two reads compared here.
  const t: TestApp = useApp(engine, {}, { jobs: false });
  const shop = useMerchant(t, 'Own Shop');
  const NOBODY = 'acct_0000000000nobody';

  /** The merchant's callers: both keys, and a merchant user in each environment. */
  async function callers(accountId: string, keys: { test: string; live: string }) {
    const session = await userSession(t, 'merchant', accountId);
    return [
      { name: 'test key', key: true, call: client(t.app, keys.test) as Call },
      { name: 'live key', key: true, call: client(t.app, keys.live) as Call },
      { name: 'user (test)', key: false, call: sessionClient(t, session, 'test') as Call },
      { name: 'user (live)', key: false, call: sessionClient(t, session, 'live') as Call },
    ];
  }

  /** An import of the caller's own in its environment (for the routes of one import). */
  async function ownImport(call: Call): Promise<string> {
    const res = await call('POST', '/v1/order_imports', csv([HEADER, good(7)]), { 'content-type': 'text/csv' });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    return res.body.id;
  }

  const send = (e: Endpoint, call: Call, url: string) => call(e.method, url, e.body?.(), e.headers ?? {});

  it('covers every operation of the OpenAPI document that takes account in the query string', async () => {
    const doc = (await client(t.app)('GET', '/v1/openapi.json')).body;
    const taking: string[] = [];
    for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        const params: any[] = [...(item.parameters ?? []), ...(op?.parameters ?? [])];
        if (params.some((p) => p.in === 'query' && p.name === 'account'))
          taking.push(`${method.toUpperCase()} ${path}`);
      }
    }
    expect(taking.sort()).toEqual(ENDPOINTS.map((e) => e.op).sort());
  });

  it('its own account is the same as leaving account out, on every endpoint', async () => {
    for (const c of await callers(shop.accountId, shop)) {
      // Something of its own in each list, so that "the same" is not two empty lists.
      expect((await c.call('POST', '/v1/orders', validOrder({ external_order_id: `OWN-${c.name}` }))).status).toBe(201);
      const imp = await ownImport(c.call);
      for (const e of ENDPOINTS) {
        const context = `${c.name}: ${e.op}`;
        const without = await send(e, c.call, e.url(imp));
        const own = await send(e, c.call, withAccount(e.url(imp), shop.accountId));
        expect(own.status, `${context}: ${JSON.stringify(own.body)}`).toBe(without.status);
        if (e.usersOnly && c.key) {
          expect(own.status, context).toBe(403);
          expect(errorOf(own), context).toEqual(errorOf(without));
          continue;
        }
        expect(without.status, `${context}: ${JSON.stringify(without.body)}`).toBeLessThan(300);
        // Reads answer the same thing; writes (a settings PUT, an upload) succeed alike.
        if (e.method === 'GET' || e.op.endsWith('/preview')) expect(own.body, context).toEqual(without.body);
      }
    }
  });

  it('any other account, existing (in either environment) or not: 403 naming account, the same answer', async () => {
    const other = await newMerchant(t, 'Other Shop');
    // The other account has things of its own in both environments; none of them may show.
    await client(t.app, other.test)('POST', '/v1/orders', validOrder({ external_order_id: 'OTHER-T' }));
    await client(t.app, other.live)('POST', '/v1/orders', validOrder({ external_order_id: 'OTHER-L' }));
    for (const c of await callers(shop.accountId, shop)) {
      const imp = await ownImport(c.call);
      for (const e of ENDPOINTS) {
        const context = `${c.name}: ${e.op}`;
        const existing = await send(e, c.call, withAccount(e.url(imp), other.accountId));
        const missing = await send(e, c.call, withAccount(e.url(imp), NOBODY));
        if (e.usersOnly && c.key) {
          // A merchant's key may not list API keys at all: that 403 stands, whatever it names.
          const without = await send(e, c.call, e.url(imp));
          expect(without.status, context).toBe(403);
          expect(errorOf(existing), context).toEqual(errorOf(without));
          expect(errorOf(missing), context).toEqual(errorOf(without));
          continue;
        }
        expect(existing.status, `${context}: ${JSON.stringify(existing.body)}`).toBe(403);
        expect(existing.body.error, context).toMatchObject({
          type: 'permission_error',
          code: 'permission_denied',
          param: 'account',
        });
        expect(existing.body.error.message, context).toContain(shop.accountId);
        expect(existing.body.error.message, context).not.toContain(other.accountId);
        // Whether the account exists is not told: the same status and body.
        expect(missing.status, context).toBe(403);
        expect(errorOf(missing), context).toEqual(errorOf(existing));
      }
    }
    // Nothing the refusals reached changed the other account's settings.
    expect((await client(t.app, other.test)('GET', '/v1/proof_settings')).body.inherited).toBe(true);
    expect((await client(t.app, other.test)('GET', '/v1/notification_settings')).body.inherited).toBe(true);
  });

  it('a malformed account id: 422 naming account, as for every caller', async () => {
    for (const c of await callers(shop.accountId, shop)) {
      const imp = await ownImport(c.call);
      for (const e of ENDPOINTS) {
        for (const bad of ['ord_1', 'acct_a-b', `acct_${'x'.repeat(100)}`]) {
          const context = `${c.name}: ${e.op} account=${bad}`;
          const res = await send(e, c.call, withAccount(e.url(imp), bad));
          expect(res.status, `${context}: ${JSON.stringify(res.body)}`).toBe(422);
          expect(res.body.error, context).toMatchObject({ code: 'parameter_invalid', param: 'account' });
        }
      }
    }
  });
});
