import { expect, it } from 'vitest';
import { client, describeEach, useApp, useMerchant, useOperator } from './helpers.js';

type Json = Record<string, any>;

/**
 * docs/api.md: every POST under /v1 that takes a key or a session accepts an Idempotency-Key and
 * may answer 409 with it (idempotency_key_in_use, idempotent_secret_withheld). The OpenAPI document
 * says so on each such operation, so a generated client can send the header and expects the 409;
 * the keyless sign-in routes, which ignore the header, do not list it.
 */
describeEach('the OpenAPI document and Idempotency-Key', (engine) => {
  const t = useApp(engine);
  const merchant = useMerchant(t);
  const operator = useOperator(t);

  it('lists the header and the 409 on every keyed POST under /v1, and on nothing else', async () => {
    const doc: Json = (await client(t.app)('GET', '/v1/openapi.json')).body;
    const keyed: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths as Json)) {
      for (const [method, op] of Object.entries(ops as Json)) {
        const header = (op.parameters ?? []).find((p: Json) => p.in === 'header' && p.name === 'Idempotency-Key');
        const expected = method === 'post' && path.startsWith('/v1/') && op.security?.length !== 0;
        expect(Boolean(header), `${method} ${path}`).toBe(expected);
        if (!expected) continue;
        keyed.push(`${method} ${path}`);
        expect(header.required ?? false, path).toBe(false);
        expect(header.schema).toMatchObject({ type: 'string', minLength: 1, maxLength: 255 });
        expect(op.responses['409'], `${path} 409`).toBeDefined();
      }
    }
    expect(keyed).toContain('post /v1/orders');
    expect(keyed).toContain('post /v1/couriers/{id}/sign_in_codes');
    expect(keyed).not.toContain('post /v1/session');
  });

  it('answers the 409 it documents for a withheld secret, and replays a keyed order', async () => {
    const courier = await client(t.app, operator.key)('POST', '/v1/couriers', { name: 'Idem' });
    const call = client(t.app, operator.key);
    const path = `/v1/couriers/${courier.body.id}/sign_in_codes`;
    const first = await call('POST', path, undefined, { 'idempotency-key': 'code-1' });
    expect(first.status).toBe(201);
    const again = await call('POST', path, undefined, { 'idempotency-key': 'code-1' });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('idempotent_secret_withheld');
    // And a merchant's POST /v1/orders with a key is replayed, not refused.
    const order = { customer: { name: 'Ana' }, delivery_address: { address: 'Av. Larco 123' } };
    const m = client(t.app, merchant.test);
    const a = await m('POST', '/v1/orders', order, { 'idempotency-key': 'order-1' });
    const b = await m('POST', '/v1/orders', order, { 'idempotency-key': 'order-1' });
    expect([a.status, b.status, b.headers['idempotent-replayed']]).toEqual([201, 201, 'true']);
    expect(b.body.id).toBe(a.body.id);
  });
});

/**
 * Every keyed operation under /v1 is counted per key (docs/api.md, "Rate limits") and may answer
 * 429: the document lists it on each, not only on the keyless routes.
 */
describeEach('the OpenAPI document and the per-key rate limit', (engine) => {
  // A fixed clock: the three requests below fall in one 60-second window, whenever the test runs.
  const t = useApp(engine, { RUTA_RATE_LIMIT_PER_MIN: '2' }, { clock: () => Date.parse('2026-12-07T15:00:10Z') });
  const merchant = useMerchant(t);

  it('lists 429 on every operation under /v1 that takes a key, and a key over its limit gets it', async () => {
    const doc: Json = (await client(t.app)('GET', '/v1/openapi.json')).body;
    const missing: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths as Json)) {
      for (const [method, op] of Object.entries(ops as Json)) {
        if (path.startsWith('/v1/') && op.security?.length !== 0 && !op.responses?.['429']) {
          missing.push(`${method} ${path}`);
        }
      }
    }
    expect(missing).toEqual([]);
    expect(doc.paths['/v1/orders'].post.responses['429']).toBeDefined();
    const call = client(t.app, merchant.test);
    const order = { customer: { name: 'Ana' }, delivery_address: { address: 'Av. Larco 123' } };
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await call('POST', '/v1/orders', order)).status);
    expect(statuses).toEqual([201, 201, 429]);
  });
});
