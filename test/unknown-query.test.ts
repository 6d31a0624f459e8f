import { afterAll, beforeAll, expect, it } from 'vitest';
import { type CorpusApp, callerOf, startCorpusApp } from './corpus-app.js';
import { ENDPOINTS, type Endpoint, type Fixture } from './corpus-table.js';
import { client, describeEach, type Merchant, type Res, type TestApp } from './helpers.js';
import { tinyPng } from './lifecycle-helpers.js';
import { openStream } from './stream-client.js';

/**
 * Nothing is silently dropped (DESIGN.md, docs/errors.md): every route under /v1 answers a query
 * parameter it does not declare with 422 `parameter_unknown` naming it (src/shared/validation.ts,
 * `strictQuery`). The walk goes over every route Fastify has under /v1: the operations of the
 * OpenAPI document through the corpus's rows (test/corpus-table.ts: a well-formed call of each),
 * and the hidden routes (provider callbacks, the unsubscribe link, the document itself) below.
 * Pages and probes outside /v1 ignore unknown parameters (a shop's utm_…, a cache-buster).
 */

const withQuery = (path: string, qs: string) => `${path}${path.includes('?') ? '&' : '?'}${qs}`;
/** `/v1/orders/{id}/cancel` and `/v1/orders/:id/cancel` alike: `METHOD /v1/orders/{}/cancel`. */
const shape = (method: string, path: string) =>
  `${method} ${path
    .split('?')[0]
    .replace(/\{[^}]+\}/g, '{}')
    .replace(/:[^/]+/g, '{}')}`;

/** Every route of the app as `METHOD /path`, from Fastify's own route tree (HEAD left out: it is its GET). */
function routesOf(tree: string): string[] {
  const stack: string[] = [];
  const out: string[] = [];
  for (const line of tree.split('\n')) {
    const at = line.indexOf('── ');
    if (at < 0) continue;
    const depth = (at - 1) / 4;
    const m = /^(.*?)(?: \(([A-Z, ]+)\))?$/.exec(line.slice(at + 3));
    if (!m) continue;
    const path = (depth === 0 ? '' : stack[depth - 1]) + m[1];
    stack[depth] = path;
    for (const method of (m[2] ?? '').split(', ').filter((x) => x && x !== 'HEAD')) out.push(`${method} ${path}`);
  }
  return out;
}

/** The routes under /v1 that the OpenAPI document hides, each with a call that passes everything but the query. */
const HIDDEN: {
  route: string;
  method: 'GET' | 'POST';
  path: string;
  payload?: string;
  type?: string;
  lenient?: boolean;
}[] = [
  { route: 'GET /v1/openapi.json', method: 'GET', path: '/v1/openapi.json' },
  {
    route: 'POST /v1/providers/twilio/status',
    method: 'POST',
    path: '/v1/providers/twilio/status',
    payload: 'MessageSid=SM1&MessageStatus=delivered',
    type: 'application/x-www-form-urlencoded',
  },
  {
    route: 'POST /v1/providers/twilio/inbound',
    method: 'POST',
    path: '/v1/providers/twilio/inbound',
    payload: 'From=%2B51987654321&Body=STOP',
    type: 'application/x-www-form-urlencoded',
  },
  {
    route: 'GET /v1/providers/meta/webhook',
    method: 'GET',
    path: '/v1/providers/meta/webhook?hub.mode=subscribe&hub.verify_token=x&hub.challenge=1',
  },
  { route: 'POST /v1/providers/meta/webhook', method: 'POST', path: '/v1/providers/meta/webhook', payload: '{}' },
  // Opened from an email by a person: lenient, like the pages outside /v1 (validation.ts, LENIENT).
  { route: 'GET /v1/unsubscribe', method: 'GET', path: '/v1/unsubscribe?token=x', lenient: true },
  { route: 'POST /v1/unsubscribe', method: 'POST', path: '/v1/unsubscribe?token=x', lenient: true },
];

function expectUnknown(res: Res, param: string, context: string): void {
  expect(
    [res.status, res.body?.error?.code, res.body?.error?.param],
    `${context}: ${JSON.stringify(res.body)}`,
  ).toEqual([422, 'parameter_unknown', param]);
  expect(res.body.error.type, context).toBe('invalid_request_error');
  expect(res.body.error.message, context).toBe(`Received unknown parameter: ${param}.`);
}

describeEach('unknown query parameters', (engine) => {
  let c: CorpusApp;
  let t: TestApp;
  let m: Merchant;
  let f: Fixture;
  /** The query parameters each operation declares, from the OpenAPI document. */
  const declared = new Map<string, Set<string>>();
  /** The statuses each operation's document lists: 422 on every one, query parameters or not. */
  const statuses = new Map<string, string[]>();

  beforeAll(async () => {
    c = await startCorpusApp(engine);
    ({ t, m, f } = c);
    const doc = (await client(t.app)('GET', '/v1/openapi.json')).body;
    for (const [path, ops] of Object.entries<
      Record<string, { parameters?: { in: string; name: string }[]; responses: Record<string, unknown> }>
    >(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const names = (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
        declared.set(`${method.toUpperCase()} ${path}`, new Set(names));
        statuses.set(`${method.toUpperCase()} ${path}`, Object.keys(op.responses));
      }
    }
  });
  afterAll(async () => {
    await c?.close();
  });

  const as = (ep: Endpoint) => callerOf(c, ep);
  /** The row's well-formed call (body and all), at `path`: only the query can be wrong. */
  const wellFormed = (ep: Endpoint, path: string) => {
    const raw = ep.body === 'raw' ? (ep.rawBody?.() ?? { payload: tinyPng(), type: 'image/png' }) : undefined;
    const payload = raw ? raw.payload : ep.valid ? JSON.stringify(ep.valid(f)) : undefined;
    const type = raw ? raw.type : 'application/json';
    return as(ep)(ep.method, path, payload, payload === undefined ? {} : { 'content-type': type });
  };

  it('the walk covers every route under /v1 that Fastify has', () => {
    const walked = new Set(
      [...ENDPOINTS.map((ep) => ep.route), ...HIDDEN.map((h) => h.route)].map((r) =>
        shape(...(r.split(' ') as [string, string])),
      ),
    );
    const routes = routesOf(t.app.printRoutes({ commonPrefix: false }));
    expect(routes.length).toBeGreaterThan(100);
    const v1 = routes.filter((r) => r.split(' ')[1].startsWith('/v1/'));
    expect(v1.length).toBeGreaterThan(100);
    expect(
      v1.filter((r) => !walked.has(shape(...(r.split(' ') as [string, string])))),
      'routes under /v1 the walk misses',
    ).toEqual([]);
  });

  for (const ep of ENDPOINTS) {
    const api = ep.route.split(' ')[1].startsWith('/v1/');
    if (api) {
      it(`${ep.name} (${ep.route}): an unknown query parameter is 422 parameter_unknown`, async () => {
        const path = ep.path(f);
        expectUnknown(await wellFormed(ep, withQuery(path, 'zzz=1')), 'zzz', `${ep.route} zzz=1`);
        // Whatever its name: one that looks like a body field, a cache-buster, a parameter of another route.
        const takes = declared.get(ep.route);
        expect(takes, `${ep.route} in the OpenAPI document`).toBeDefined();
        // A generated client knows the 422 it may meet (GET /v1/accounts, which takes no query, too).
        expect(statuses.get(ep.route), `${ep.route}'s responses in the OpenAPI document`).toContain('422');
        for (const name of ['priority', '_', 'mode', 'limit', 'account', 'expand[]']) {
          if (takes?.has(name)) continue;
          const res = await wellFormed(ep, withQuery(path, `${encodeURIComponent(name)}=1`));
          expectUnknown(res, name, `${ep.route} ${name}=1`);
        }
      });
    } else if (ep.method === 'GET' && !ep.stream) {
      it(`${ep.name} (${ep.route}): a page outside /v1 ignores unknown parameters`, async () => {
        const res = await as(ep)('GET', withQuery(ep.path(f), 'utm_source=newsletter&zzz=1'));
        expect(res.status, JSON.stringify(res.body)).toBe(ep.ok);
      });
    }
  }

  for (const h of HIDDEN) {
    const call = (path: string) =>
      client(t.app)(h.method, path, h.payload, { 'content-type': h.type ?? 'application/json' });
    if (h.lenient) {
      it(`${h.route} (hidden, opened from an email): an unknown query parameter changes nothing`, async () => {
        const plain = await call(h.path);
        const res = await call(withQuery(h.path, 'utm_source=newsletter&zzz=1'));
        expect(res.status).toBe(plain.status);
        expect(res.status).not.toBe(422);
      });
      continue;
    }
    it(`${h.route} (hidden from the document): an unknown query parameter is 422 parameter_unknown`, async () => {
      expectUnknown(await call(withQuery(h.path, 'zzz=1')), 'zzz', h.route);
    });
  }

  it('the audit’s cases: a create, a cancel and a read no longer drop what they do not take', async () => {
    const call = client(t.app, m.test);
    const before = (await call('GET', '/v1/orders?limit=100')).body.data.length;
    expectUnknown(
      await call('POST', '/v1/orders?priority=3', { customer: { name: 'Ana' }, delivery_address: { address: 'x' } }),
      'priority',
      'create',
    );
    expect((await call('GET', '/v1/orders?limit=100')).body.data.length, 'nothing was created').toBe(before);
    expectUnknown(await call('POST', `/v1/orders/${f.order.id}/cancel?reason=x`, {}), 'reason', 'cancel');
    expect((await call('GET', `/v1/orders/${f.order.id}`)).body.status).not.toBe('cancelled');
    expectUnknown(await call('GET', `/v1/orders/${f.order.id}?foo=1`), 'foo', 'read');
    expectUnknown(await call('GET', '/v1/orders?foo=1'), 'foo', 'list');
    expectUnknown(await call('GET', '/v1/webhook_endpoints?foo=1'), 'foo', 'endpoints');
    // A parameter sent twice is still one unknown parameter.
    expectUnknown(await call('GET', `/v1/orders/${f.order.id}?foo=1&foo=2`), 'foo', 'twice');
  });

  it('declared parameters still work: the stream’s mode, a signed file link, the tracking JSON’s lang', async () => {
    const s = await openStream(t.app, m.test, {}, 10_000, '/v1/stream?mode=test');
    expect(s.status).toBe(200);
    s.close();
    expectUnknown(await client(t.app, m.test)('GET', '/v1/stream?mode=test&zzz=1'), 'zzz', 'stream');

    const link = new URL(f.file.url);
    expect(link.searchParams.has('signature')).toBe(true);
    const content = await t.app.inject({ method: 'GET', url: `${link.pathname}${link.search}` });
    expect(content.statusCode).toBe(200);
    expectUnknown(await client(t.app)('GET', `${link.pathname}${link.search}&zzz=1`), 'zzz', 'file link');

    const code = f.order.tracking_code;
    const json = await client(t.app)('GET', `/v1/public/tracking/${code}?lang=es`);
    expect([json.status, json.body.lang]).toEqual([200, 'es']);
    expectUnknown(
      await client(t.app)('GET', `/v1/public/tracking/${code}?utm_source=x`),
      'utm_source',
      'tracking JSON',
    );

    const call = client(t.app, m.test);
    expect((await call('GET', '/v1/orders?limit=1&status=pending')).status).toBe(200);
    expect((await call('GET', '/v1/order_imports?limit=5')).status).toBe(200);
  });

  it('pages and probes outside /v1 ignore unknown parameters (utm_…, cache-busters)', async () => {
    for (const path of ['/healthz', '/readyz', '/metrics', '/docs/json', '/console/', '/courier/', '/favicon.ico']) {
      const plain = await t.app.inject({ method: 'GET', url: path });
      const busted = await t.app.inject({ method: 'GET', url: `${path}?v=123&utm_source=x&_=1` });
      expect(plain.statusCode, path).toBeLessThan(500);
      expect(busted.statusCode, path).toBe(plain.statusCode);
    }
    const page = await t.app.inject({
      method: 'GET',
      url: `/track/${f.order.tracking_code}?utm_source=shop&utm_campaign=x&lang=en`,
    });
    expect(page.statusCode).toBe(200);
    expect(String(page.headers['content-type'])).toContain('text/html');
  });
});
