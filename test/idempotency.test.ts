import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticators } from '../src/features/people/sessions.js';
import { installAuth } from '../src/shared/auth.js';
import { installErrorHandling } from '../src/shared/error-handler.js';
import { ApiError } from '../src/shared/errors.js';
import { fingerprint, IDEMPOTENCY_LOCK_MS, IDEMPOTENCY_TTL_MS, installIdempotency } from '../src/shared/idempotency.js';
import * as repo from '../src/shared/idempotency-repo.js';
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

describeEach('idempotency', (engine) => {
  let t: TestApp;
  let m: Merchant;
  let other: Merchant;

  beforeAll(async () => {
    t = await startApp(engine);
    m = await newMerchant(t, 'Acme');
    other = await newMerchant(t, 'Other');
  });
  afterAll(async () => t?.close());

  const countOrders = async (accountId: string, ext: string) =>
    (
      await t.ctx.db
        .selectFrom('orders')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('account_id', '=', accountId)
        .where('external_order_id', '=', ext)
        .executeTakeFirstOrThrow()
    ).n;

  it('replays the first response byte for byte and creates only one order', async () => {
    const call = client(t.app, m.test);
    const body = validOrder({ external_order_id: 'IDEM-1' });
    const first = await call('POST', '/v1/orders', body, { 'idempotency-key': 'k-replay' });
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const second = await call('POST', '/v1/orders', body, { 'idempotency-key': 'k-replay' });
    expect(second.status).toBe(201);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.headers['content-type']).toMatch(/^application\/json/);
    expect(second.raw.body).toBe(first.raw.body);
    // Each response still gets its own request id.
    expect(second.headers['request-id']).not.toBe(first.headers['request-id']);
    expect(Number(await countOrders(m.accountId, 'IDEM-1'))).toBe(1);
  });

  it('replays stored error responses too (4xx are results, not failures)', async () => {
    const call = client(t.app, m.test);
    const created = (await call('POST', '/v1/orders', validOrder())).body;
    expect((await call('POST', `/v1/orders/${created.id}/cancel`, {})).status).toBe(200);
    const first = await call('POST', `/v1/orders/${created.id}/cancel`, {}, { 'idempotency-key': 'k-409' });
    expect(first.status).toBe(409);
    expect(first.body.error.code).toBe('order_not_cancellable');
    const again = await call('POST', `/v1/orders/${created.id}/cancel`, {}, { 'idempotency-key': 'k-409' });
    expect(again.status).toBe(409);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.raw.body).toBe(first.raw.body);
  });

  it('rejects the same key with a different body or path: 422 idempotency_key_reused', async () => {
    const call = client(t.app, m.test);
    const h = { 'idempotency-key': 'k-reuse' };
    expect((await call('POST', '/v1/orders', validOrder({ external_order_id: 'R-1' }), h)).status).toBe(201);
    const otherBody = await call('POST', '/v1/orders', validOrder({ external_order_id: 'R-2' }), h);
    expect(otherBody.status).toBe(422);
    expect(otherBody.body.error).toMatchObject({
      type: 'invalid_request_error',
      code: 'idempotency_key_reused',
      param: 'Idempotency-Key',
    });
    const otherPath = await call('POST', '/v1/orders/quote', validOrder({ external_order_id: 'R-1' }), h);
    expect(otherPath.status).toBe(422);
    expect(otherPath.body.error.code).toBe('idempotency_key_reused');
    expect(Number(await countOrders(m.accountId, 'R-2'))).toBe(0);
    expect(Number(await countOrders(m.accountId, 'R-1'))).toBe(1);
  });

  it('answers 409 idempotency_key_in_use while the first request is in flight', async () => {
    const body = JSON.stringify(validOrder({ external_order_id: 'FLIGHT' }));
    const now = Date.now();
    // What a request on another instance holds while it runs.
    await repo.tryInsert(t.ctx.db, {
      owner: m.accountId,
      mode: 'test',
      key: 'k-flight',
      fingerprint: fingerprint('POST', '/v1/orders', body),
      response_status: null,
      response_body: null,
      locked_at: now,
      expires_at: now + IDEMPOTENCY_TTL_MS,
    });
    const res = await client(t.app, m.test)('POST', '/v1/orders', body, {
      'idempotency-key': 'k-flight',
      'content-type': 'application/json',
    });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('idempotency_key_in_use');
    expect(Number(await countOrders(m.accountId, 'FLIGHT'))).toBe(0);
  });

  it('takes over an in-flight claim older than 60 s (a crashed instance)', async () => {
    const body = JSON.stringify(validOrder({ external_order_id: 'STALE' }));
    const then = Date.now() - IDEMPOTENCY_LOCK_MS - 1000;
    await repo.tryInsert(t.ctx.db, {
      owner: m.accountId,
      mode: 'test',
      key: 'k-stale',
      fingerprint: fingerprint('POST', '/v1/orders', body),
      response_status: null,
      response_body: null,
      locked_at: then,
      expires_at: then + IDEMPOTENCY_TTL_MS,
    });
    const call = client(t.app, m.test);
    const h = { 'idempotency-key': 'k-stale', 'content-type': 'application/json' };
    const res = await call('POST', '/v1/orders', body, h);
    expect(res.status).toBe(201);
    const again = await call('POST', '/v1/orders', body, h);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.id).toBe(res.body.id);
  });

  it('treats an expired key as new', async () => {
    const body = JSON.stringify(validOrder({ external_order_id: 'EXPIRED' }));
    const then = Date.now() - IDEMPOTENCY_TTL_MS - 1000;
    await repo.tryInsert(t.ctx.db, {
      owner: m.accountId,
      mode: 'test',
      key: 'k-expired',
      fingerprint: fingerprint('POST', '/v1/other', '{}'),
      response_status: 200,
      response_body: '{"old":true}',
      locked_at: then,
      expires_at: then + IDEMPOTENCY_TTL_MS,
    });
    const res = await client(t.app, m.test)('POST', '/v1/orders', body, {
      'idempotency-key': 'k-expired',
      'content-type': 'application/json',
    });
    expect(res.status).toBe(201);
    expect(res.headers['idempotent-replayed']).toBeUndefined();
    expect(res.body.external_order_id).toBe('EXPIRED');
  });

  it('lets exactly one of many concurrent identical requests run', async () => {
    const call = client(t.app, m.test);
    const body = validOrder({ external_order_id: 'RACE' });
    const results = await Promise.all(
      Array.from({ length: 8 }, () => call('POST', '/v1/orders', body, { 'idempotency-key': 'k-race' })),
    );
    for (const r of results) expect([201, 409]).toContain(r.status);
    const ids = new Set(results.filter((r) => r.status === 201).map((r) => r.body.id));
    expect(ids.size).toBe(1);
    expect(Number(await countOrders(m.accountId, 'RACE'))).toBe(1);
  });

  it('keeps keys per owner and environment', async () => {
    const h = { 'idempotency-key': 'k-shared' };
    const body = validOrder({ external_order_id: 'OWN' });
    const a = await client(t.app, m.test)('POST', '/v1/orders', body, h);
    const b = await client(t.app, other.test)('POST', '/v1/orders', body, h);
    const c = await client(t.app, m.live)('POST', '/v1/orders', body, h);
    for (const r of [a, b, c]) {
      expect(r.status).toBe(201);
      expect(r.headers['idempotent-replayed']).toBeUndefined();
    }
    expect(new Set([a.body.id, b.body.id, c.body.id]).size).toBe(3);
    // The other account cannot read the first account's stored response through the key either.
    expect(b.body.livemode).toBe(false);
    expect(c.body.livemode).toBe(true);
  });

  it('gives each operator key its own key space', async () => {
    const order = (await client(t.app, m.test)('POST', '/v1/orders', validOrder())).body;
    const op1 = client(t.app, await newOperator(t));
    const op2 = client(t.app, await newOperator(t));
    const h = { 'idempotency-key': 'k-op' };
    const first = await op1('POST', `/v1/orders/${order.id}/cancel`, { reason: 'ops' }, h);
    expect(first.status).toBe(200);
    // Not a replay of op1's answer: op2's request really runs and finds the order cancelled.
    const second = await op2('POST', `/v1/orders/${order.id}/cancel`, { reason: 'ops' }, h);
    expect(second.status).toBe(409);
    expect(second.headers['idempotent-replayed']).toBeUndefined();
    const replay = await op1('POST', `/v1/orders/${order.id}/cancel`, { reason: 'ops' }, h);
    expect(replay.status).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
  });

  it('validates the header: empty or over 255 characters is 422', async () => {
    const call = client(t.app, m.test);
    const ok = await call('POST', '/v1/orders/quote', validOrder(), { 'idempotency-key': 'x'.repeat(255) });
    expect(ok.status).toBe(200);
    const long = await call('POST', '/v1/orders', validOrder(), { 'idempotency-key': 'x'.repeat(256) });
    expect(long.status).toBe(422);
    expect(long.body.error).toMatchObject({ code: 'parameter_invalid', param: 'Idempotency-Key' });
    const empty = await call('POST', '/v1/orders', validOrder(), { 'idempotency-key': '' });
    expect(empty.status).toBe(422);
  });

  it('stores nothing for requests that fail authentication or validation', async () => {
    const h = { 'idempotency-key': 'k-invalid' };
    const bad = await client(t.app, m.test)('POST', '/v1/orders', { customer: {} }, h);
    expect(bad.status).toBe(422);
    expect(bad.body.error.code).not.toMatch(/^idempotency/);
    const unauth = await client(t.app, 'sk_test_nope')('POST', '/v1/orders', validOrder(), h);
    expect(unauth.status).toBe(401);
    expect(await repo.find(t.ctx.db, { owner: m.accountId, mode: 'test', key: 'k-invalid' })).toBeUndefined();
    // The client fixes the body and reuses the key.
    const fixed = await client(t.app, m.test)('POST', '/v1/orders', validOrder(), h);
    expect(fixed.status).toBe(201);
    expect(fixed.headers['idempotent-replayed']).toBeUndefined();
  });

  it('ignores the header on GET', async () => {
    const res = await client(t.app, m.test)('GET', '/v1/orders', undefined, { 'idempotency-key': 'x'.repeat(300) });
    expect(res.status).toBe(200);
  });

  it('purges expired keys', async () => {
    const now = Date.now();
    const row = {
      owner: 'acct_purge',
      mode: 'test' as const,
      fingerprint: 'f',
      response_status: 200,
      response_body: '{}',
    };
    await repo.tryInsert(t.ctx.db, { ...row, key: 'old', locked_at: now - 2, expires_at: now - 1 });
    await repo.tryInsert(t.ctx.db, { ...row, key: 'new', locked_at: now, expires_at: now + 1000 });
    expect(await repo.purgeExpired(t.ctx.db, now)).toBeGreaterThanOrEqual(1);
    expect(await repo.find(t.ctx.db, { owner: 'acct_purge', mode: 'test', key: 'old' })).toBeUndefined();
    expect(await repo.find(t.ctx.db, { owner: 'acct_purge', mode: 'test', key: 'new' })).toBeDefined();
  });

  describe('with a failing handler', () => {
    let bare: FastifyInstance;
    let calls = 0;
    beforeAll(async () => {
      // The API has no route that fails on demand, so a minimal app carries the same hooks and a flaky route.
      bare = Fastify();
      installErrorHandling(bare);
      await bare.register(
        async (v1) => {
          installAuth(v1, { authenticators: authenticators(t.ctx), publicOrigin: 'http://localhost:3000' });
          installIdempotency(v1, t.ctx);
          v1.post('/flaky', async () => {
            calls++;
            if (calls === 1) throw new Error('boom');
            if (calls === 2) throw new ApiError('service_unavailable', 'down');
            return { calls };
          });
        },
        { prefix: '/v1' },
      );
      await bare.ready();
    });
    afterAll(async () => bare?.close());

    it('releases the key after a 5xx so the client can retry', async () => {
      const call = client(bare, m.test);
      const h = { 'idempotency-key': 'k-5xx' };
      expect((await call('POST', '/v1/flaky', undefined, h)).status).toBe(500);
      expect(await repo.find(t.ctx.db, { owner: m.accountId, mode: 'test', key: 'k-5xx' })).toBeUndefined();
      expect((await call('POST', '/v1/flaky', undefined, h)).status).toBe(503);
      const ok = await call('POST', '/v1/flaky', undefined, h);
      expect(ok.status).toBe(200);
      expect(ok.body).toEqual({ calls: 3 });
      const replay = await call('POST', '/v1/flaky', undefined, h);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.body).toEqual({ calls: 3 });
      expect(calls).toBe(3);
    });
  });
});
