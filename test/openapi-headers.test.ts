import { expect, it } from 'vitest';
import { RESPONSE_HEADERS } from '../src/shared/openapi-headers.js';
import { client, describeEach, type Res, useApp, useMerchant, useOperator } from './helpers.js';

type Json = Record<string, any>;

/**
 * The document declares the response headers the API sends (src/shared/openapi-headers.ts), so a
 * generated client can read them. The first test reads the declarations; the others send real
 * requests and compare each answer's headers with what the document declares for its operation
 * and status, both ways, so the declarations cannot drift from what the server does.
 */

/** The headers of this family, as a response names them (the two Retry-After components are one header). */
const NAMES = [...new Set(Object.keys(RESPONSE_HEADERS).map((c) => c.replace(/-Shutdown$/, '')))];
/** Sent only in some answers of a status: on a replay, for a compressed body, during shutdown. */
const CONDITIONAL = (name: string, status: string) =>
  name === 'Idempotent-Replayed' || name === 'Accept-Encoding' || (name === 'Retry-After' && status === '503');

function operations(doc: Json): { method: string; path: string; op: Json }[] {
  return Object.entries(doc.paths as Json).flatMap(([path, ops]) =>
    Object.entries(ops as Json).map(([method, op]) => ({ method, path, op })),
  );
}

const declared = (op: Json, status: number | string): string[] =>
  Object.keys(op.responses[String(status)]?.headers ?? {});

/** Every header of the family the answer carries is declared for its status, and every declared one is sent. */
function expectDeclaredHeaders(op: Json, res: Res, where: string): void {
  const status = String(res.status);
  expect(op.responses[status], `${where}: status ${status} is listed`).toBeDefined();
  const names = declared(op, status);
  const sent = NAMES.filter((n) => res.headers[n.toLowerCase()] !== undefined);
  expect(
    sent.filter((n) => !names.includes(n)),
    `${where} ${status}: sent but not declared`,
  ).toEqual([]);
  expect(
    names.filter((n) => NAMES.includes(n) && !CONDITIONAL(n, status) && !sent.includes(n)),
    `${where} ${status}: declared but not sent`,
  ).toEqual([]);
}

describeEach('the OpenAPI document declares the response headers', (engine) => {
  const t = useApp(engine, { RUTA_RATE_LIMIT_PER_MIN: '1000', RUTA_PUBLIC_RATE_LIMIT_PER_MIN: '1000' });
  const merchant = useMerchant(t);
  const operator = useOperator(t);
  const doc = async (): Promise<Json> => (await client(t.app)('GET', '/v1/openapi.json')).body;

  it('on every response, by what sends them', async () => {
    const d = await doc();
    const ops = operations(d);
    expect(ops.length).toBeGreaterThan(100);
    expect(d.components.headers['Request-Id'].required).toBe(true);
    expect(d.components.headers['Retry-After'].required).toBe(true);
    for (const { method, path, op } of ops) {
      const where = `${method} ${path}`;
      const keyless = Array.isArray(op.security) && op.security.length === 0;
      const limited = keyless ? '429' in op.responses : path.startsWith('/v1/');
      const keyed = (op.parameters ?? []).some((p: Json) => p.in === 'header' && p.name === 'Idempotency-Key');
      // The drain's 503 can answer any operation.
      expect(op.responses['503'], `${where} 503`).toBeDefined();
      for (const [status, response] of Object.entries(op.responses as Json)) {
        const h = response.headers ?? {};
        expect(h['Request-Id'], `${where} ${status}`).toEqual({ $ref: '#/components/headers/Request-Id' });
        expect(h['Service-Version'], `${where} ${status}`).toBeDefined();
        for (const name of ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']) {
          expect(name in h, `${where} ${status} ${name}`).toBe(limited);
        }
        if (status === '429') expect(h['Retry-After'], where).toEqual({ $ref: '#/components/headers/Retry-After' });
        if (status === '503') {
          expect(h['Retry-After'], where).toEqual({ $ref: '#/components/headers/Retry-After-Shutdown' });
        }
        if (status.startsWith('2')) expect('Idempotent-Replayed' in h, `${where} ${status}`).toBe(keyed);
        // Never stored, so never replayed: refused before the key is claimed, or a 5xx.
        if (['400', '401', '429', '500', '503'].includes(status)) expect('Idempotent-Replayed' in h, where).toBe(false);
      }
    }
    const byId = Object.fromEntries(ops.map(({ op }) => [op.operationId, op]));
    expect(declared(byId.createOrder, 201)).toContain('Idempotent-Replayed');
    expect(declared(byId.listOrders, 200)).toContain('RateLimit-Remaining');
    expect(declared(byId.getPublicTracking, 200)).toContain('RateLimit-Remaining');
    expect(declared(byId.createSession, 401)).toContain('RateLimit-Remaining');
    // Signed file links are their own credential and are not rate limited.
    expect(declared(byId.getFileContent, 200)).toEqual(['Request-Id', 'Service-Version']);
    expect(declared(byId.createOrder, 415)).toContain('Accept-Encoding');
  });

  it('as every operation really answers one request', async () => {
    const d = await doc();
    const checked: string[] = [];
    for (const { method, path, op } of operations(d)) {
      const keyless = Array.isArray(op.security) && op.security.length === 0;
      // An endless stream never ends for inject: the keyed one is asked without a key (401), the
      // tracking one for a code that does not exist (404).
      const stream = 'text/event-stream' in (op.responses['200']?.content ?? {});
      const key = keyless || stream ? undefined : operator.key;
      const url = path.replace(/\{[^}]+\}/g, 'x');
      const body = method === 'get' || method === 'delete' ? undefined : {};
      const res = await client(t.app, key)(method.toUpperCase() as 'GET', url, body);
      // A status the document does not list is another test's business (openapi.test.ts); here only headers.
      if (op.responses[String(res.status)] === undefined) continue;
      expectDeclaredHeaders(op, res, `${method} ${path}`);
      checked.push(op.operationId);
    }
    expect(checked.length).toBeGreaterThan(100);
    expect(checked).toEqual(expect.arrayContaining(['getPublicTracking', 'createSession', 'getFileContent']));
  });

  it('on a replay, a 4xx replay included, and on a 415 for a compressed body', async () => {
    const d = await doc();
    const call = client(t.app, merchant.test);
    const order = { customer: { name: 'Ana' }, delivery_address: { address: 'Av. Larco 123' } };
    const first = await call('POST', '/v1/orders', order, { 'idempotency-key': 'hdr-1' });
    const again = await call('POST', '/v1/orders', order, { 'idempotency-key': 'hdr-1' });
    expect([first.status, again.status, again.headers['idempotent-replayed']]).toEqual([201, 201, 'true']);
    expectDeclaredHeaders(d.paths['/v1/orders'].post, first, 'createOrder');
    expectDeclaredHeaders(d.paths['/v1/orders'].post, again, 'createOrder replayed');

    // A handler's 404 is stored and replayed like a success (docs/api.md, "Idempotency").
    const cancel = d.paths['/v1/orders/{id}/cancel'].post;
    const missing = await call('POST', '/v1/orders/ord_missing/cancel', undefined, { 'idempotency-key': 'hdr-2' });
    const missingAgain = await call('POST', '/v1/orders/ord_missing/cancel', undefined, { 'idempotency-key': 'hdr-2' });
    expect([missing.status, missingAgain.status, missingAgain.headers['idempotent-replayed']]).toEqual([
      404,
      404,
      'true',
    ]);
    expectDeclaredHeaders(cancel, missingAgain, 'cancelOrder replayed');

    const gzip = await call('POST', '/v1/orders', JSON.stringify(order), {
      'content-type': 'application/json',
      'content-encoding': 'gzip',
    });
    expect([gzip.status, gzip.headers['accept-encoding']]).toEqual([415, 'identity']);
    expectDeclaredHeaders(d.paths['/v1/orders'].post, gzip, 'createOrder gzip');
  });
});

describeEach('the OpenAPI document declares the rate limit headers', (engine) => {
  // A fixed clock: every request below falls in one 60-second window, whenever the test runs.
  const env = { RUTA_RATE_LIMIT_PER_MIN: '1', RUTA_PUBLIC_RATE_LIMIT_PER_MIN: '1', RUTA_RATE_LIMIT_SYNC_MS: '0' };
  const t = useApp(engine, env, { clock: () => Date.parse('2026-12-07T15:00:10Z') });
  const merchant = useMerchant(t);

  it('on a key over its limit, a refused key, and an address over its limit', async () => {
    const d: Json = (await client(t.app)('GET', '/v1/openapi.json')).body;
    const list = d.paths['/v1/orders'].get;
    const call = client(t.app, merchant.test);
    const ok = await call('GET', '/v1/orders');
    const over = await call('GET', '/v1/orders');
    expect([ok.status, over.status]).toEqual([200, 429]);
    expect(over.headers['retry-after']).toBe(over.headers['ratelimit-reset']);
    expectDeclaredHeaders(list, ok, 'listOrders');
    expectDeclaredHeaders(list, over, 'listOrders over');

    const refused = await client(t.app, 'sk_test_wrong')('GET', '/v1/orders');
    expect(refused.status).toBe(401);
    expectDeclaredHeaders(list, refused, 'listOrders refused');

    const track = d.paths['/v1/public/tracking/{tracking_code}'].get;
    const first = await client(t.app)('GET', '/v1/public/tracking/nope');
    const second = await client(t.app)('GET', '/v1/public/tracking/nope');
    expect([first.status, second.status]).toEqual([404, 429]);
    expectDeclaredHeaders(track, first, 'getPublicTracking');
    expectDeclaredHeaders(track, second, 'getPublicTracking over');
  });
});
