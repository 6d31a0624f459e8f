import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { claimDue } from '../src/features/webhooks/claim-repo.js';
import { WebhookMetrics } from '../src/features/webhooks/metrics.js';
import type { DeliveryRow } from '../src/features/webhooks/repo.js';
import type { SendResult } from '../src/features/webhooks/sender.js';
import { cancellation, DISABLE_AFTER_MS, Settler, settlementOf } from '../src/features/webhooks/settle.js';
import { client, describeEach, type Merchant, newMerchant, startApp, type TestApp, validOrder } from './helpers.js';

// The batched settle (settle.ts, settle-repo.ts) against the real database: outcomes recorded in one
// turn are written as one batch, and each keeps the meaning it had when written alone.

const OWNER = 'wkr_settle_test';

const ok = (): SendResult => ({
  ok: true,
  status: 200,
  errorClass: null,
  error: null,
  body: 'ok',
  retryAfterMs: null,
  durationMs: 3,
});
const http = (status: number, body = 'no'): SendResult => ({
  ok: false,
  status,
  errorClass: 'http',
  error: `HTTP ${status}`,
  body,
  retryAfterMs: null,
  durationMs: 4,
});

describeEach('webhook batched settle', (engine) => {
  let t: TestApp;
  let m: Merchant;
  let settler: Settler;

  beforeAll(async () => {
    t = await startApp(engine, { RUTA_WEBHOOK_ALLOW_INSECURE: '1', RUTA_WEBHOOK_RETRY_SCHEDULE: '0.05,0.05,0.1' });
  });
  beforeEach(async () => {
    m = await newMerchant(t);
    settler = new Settler(t.ctx.db, t.ctx.engine, OWNER, new WebhookMetrics(t.ctx.metrics));
  });
  afterAll(async () => {
    await t?.close();
  });

  /** `n` endpoints subscribed to everything, then `orders` orders: one delivery per (endpoint, order). */
  async function setup(n: number, orders: number) {
    const call = client(t.app, m.test);
    const endpoints: string[] = [];
    for (let i = 0; i < n; i++) {
      const res = await call('POST', '/v1/webhook_endpoints', { url: `http://127.0.0.1:9/e${i}`, events: ['*'] });
      expect(res.status).toBe(201);
      endpoints.push(res.body.id);
    }
    for (let i = 0; i < orders; i++) expect((await call('POST', '/v1/orders', validOrder())).status).toBe(201);
    return endpoints;
  }

  /** Claims this test's deliveries as OWNER, grouped by endpoint in the order of `endpoints`, oldest first. */
  async function claim(endpoints: string[]): Promise<DeliveryRow[][]> {
    const now = Date.now();
    const rows = await claimDue(t.ctx.db, engine, {
      owner: OWNER,
      now,
      leaseUntil: now + 60_000,
      limit: 1000,
      excludeEndpoints: [],
    });
    const mine = rows.map((r) => r.delivery).sort((a, b) => (a.id < b.id ? -1 : 1));
    return endpoints.map((e) => mine.filter((d) => d.endpoint_id === e));
  }

  const delivery = (id: string) =>
    t.ctx.db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const endpointRow = (id: string) =>
    t.ctx.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const attemptsOf = (deliveryId: string) =>
    t.ctx.db.selectFrom('webhook_attempts').selectAll().where('delivery_id', '=', deliveryId).execute();
  const setEndpoint = (id: string, set: { first_failure_at: number | null }) =>
    t.ctx.db.updateTable('webhook_endpoints').set(set).where('id', '=', id).execute();
  const settle = (d: DeliveryRow, at: number, r: SendResult) =>
    settler.settle(settlementOf(t.config, d, d.attempts, at - 10, at, r));

  it('writes mixed outcomes of one turn in one batch, each as it would be alone', async () => {
    const [e] = await setup(1, 4);
    // The third delivery is on its last attempt: the claim makes it the 4th of a 3-retry schedule.
    const ids = await t.ctx.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('endpoint_id', '=', e!)
      .orderBy('id')
      .execute();
    await t.ctx.db
      .updateTable('webhook_deliveries')
      .set({ attempts: 3, first_attempt_at: Date.now() - 1000 })
      .where('id', '=', ids[2]!.id)
      .execute();
    const [[d1, d2, d3, d4]] = (await claim([e!])) as [DeliveryRow[]];
    expect(d3!.attempts).toBe(4);
    const t0 = Date.now();
    await Promise.all([
      settle(d1!, t0, ok()),
      settle(d2!, t0 + 1, http(500)),
      settle(d3!, t0 + 2, http(500)),
      settler.settle(cancellation(d4!, t0 + 3, 'endpoint deleted')),
    ]);
    expect(settler.batches).toBe(1);
    expect(await delivery(d1!.id)).toMatchObject({
      status: 'succeeded',
      attempts: 1,
      lease_owner: null,
      lease_expires_at: null,
      completed_at: t0,
      last_status_code: 200,
      last_error: null,
      first_attempt_at: t0 - 10,
    });
    const retry = await delivery(d2!.id);
    expect(retry).toMatchObject({ status: 'pending', attempts: 1, lease_owner: null, last_error: 'HTTP 500' });
    expect(retry.next_attempt_at).toBeGreaterThanOrEqual(t0 + 1 + 50);
    expect(retry.completed_at).toBeNull();
    expect(await delivery(d3!.id)).toMatchObject({ status: 'failed', attempts: 4, completed_at: t0 + 2 });
    expect(await delivery(d4!.id)).toMatchObject({
      status: 'failed',
      attempts: 0,
      last_error: 'endpoint deleted',
      completed_at: t0 + 3,
      lease_owner: null,
    });
    // One log row per attempt sent; none for the delivery cancelled unsent.
    expect((await attemptsOf(d1!.id)).map((a) => [a.attempt, a.succeeded, a.response_status])).toEqual([[1, 1, 200]]);
    expect((await attemptsOf(d3!.id))[0]).toMatchObject({ attempt: 4, succeeded: 0, error_class: 'http' });
    expect(await attemptsOf(d4!.id)).toHaveLength(0);
    // The endpoint saw a success, then failures: a failure run open since the first of them.
    expect(await endpointRow(e!)).toMatchObject({ status: 'enabled', last_success_at: t0, first_failure_at: t0 + 1 });
  });

  it("a delivery whose lease was taken over keeps the new holder's state; its attempt is still logged", async () => {
    const [e] = await setup(1, 3);
    const [[d1, d2, d3]] = (await claim([e!])) as [DeliveryRow[]];
    const theirs = Date.now() + 120_000;
    await t.ctx.db
      .updateTable('webhook_deliveries')
      .set({ lease_owner: 'wkr_other', lease_expires_at: theirs })
      .where('id', '=', d2!.id)
      .execute();
    const t0 = Date.now();
    await Promise.all([settle(d1!, t0, ok()), settle(d2!, t0, ok()), settle(d3!, t0, http(503))]);
    expect(settler.batches).toBe(1);
    expect(await delivery(d1!.id)).toMatchObject({ status: 'succeeded', lease_owner: null });
    expect(await delivery(d2!.id)).toMatchObject({
      status: 'pending',
      lease_owner: 'wkr_other',
      lease_expires_at: theirs,
      completed_at: null,
    });
    expect(await delivery(d3!.id)).toMatchObject({ status: 'pending', lease_owner: null, last_status_code: 503 });
    expect(await attemptsOf(d2!.id)).toHaveLength(1);
  });

  it('disables within a batch: a 410 at once, an old failure run at 72 h, a success in the same batch saves it', async () => {
    const [gone, dead, saved, reopened] = (await setup(4, 2)) as [string, string, string, string];
    const t0 = Date.now();
    const old = t0 - DISABLE_AFTER_MS - 60_000;
    for (const id of [dead, saved, reopened]) await setEndpoint(id, { first_failure_at: old });
    const [g, d, s, r] = await claim([gone, dead, saved, reopened]);
    await Promise.all([
      settle(g![0]!, t0, ok()),
      settle(g![1]!, t0 + 1, http(410)),
      settle(d![0]!, t0 + 2, http(500)),
      settle(s![0]!, t0 + 3, http(500)),
      settle(s![1]!, t0 + 4, ok()),
      settle(r![0]!, t0 + 5, ok()),
      settle(r![1]!, t0 + 6, http(500)),
    ]);
    expect(settler.batches).toBe(1);
    expect(await endpointRow(gone)).toMatchObject({
      status: 'disabled',
      disabled_reason: 'http_410',
      disabled_at: t0 + 1,
      updated_at: t0 + 1,
    });
    expect(await delivery(g![0]!.id)).toMatchObject({ status: 'succeeded' });
    expect(await delivery(g![1]!.id)).toMatchObject({ status: 'failed', last_status_code: 410 });
    expect(await endpointRow(dead)).toMatchObject({
      status: 'disabled',
      disabled_reason: 'failing_72h',
      disabled_at: t0 + 2,
      first_failure_at: old,
    });
    expect(await endpointRow(saved)).toMatchObject({
      status: 'enabled',
      first_failure_at: null,
      last_success_at: t0 + 4,
    });
    expect(await endpointRow(reopened)).toMatchObject({
      status: 'enabled',
      first_failure_at: t0 + 6,
      last_success_at: t0 + 5,
    });
  });

  it('a failure within an open run changes nothing on the endpoint; a recent success is not rewritten', async () => {
    const [e] = await setup(1, 3);
    const t0 = Date.now();
    const [[d1, d2, d3]] = (await claim([e!])) as [DeliveryRow[]];
    await settle(d1!, t0, ok());
    expect((await endpointRow(e!)).last_success_at).toBe(t0);
    // Within a minute of the last one, a success leaves the row alone (no write, no row lock).
    await settle(d2!, t0 + 30_000, ok());
    expect((await endpointRow(e!)).last_success_at).toBe(t0);
    await settle(d3!, t0 + 40_000, http(500));
    expect(await endpointRow(e!)).toMatchObject({ first_failure_at: t0 + 40_000, last_success_at: t0 });
  });

  it('a batch that fails is written outcome by outcome, so one bad outcome does not sink the others', async () => {
    const [e] = await setup(1, 3);
    const [[d1, d2, d3]] = (await claim([e!])) as [DeliveryRow[]];
    const t0 = Date.now();
    const s1 = settlementOf(t.config, d1!, 1, t0, t0, ok());
    const s2 = settlementOf(t.config, d2!, 1, t0, t0, ok());
    // The same log row id twice: the batch's INSERT fails, then the second write alone does.
    s2.attempt!.id = s1.attempt!.id;
    const s3 = settlementOf(t.config, d3!, 1, t0, t0, http(500, 'nul \0 in the body'));
    const results = await Promise.allSettled([settler.settle(s1), settler.settle(s2), settler.settle(s3)]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(settler.batches).toBe(4);
    expect(await delivery(d1!.id)).toMatchObject({ status: 'succeeded', lease_owner: null });
    // Its lease is left to expire, and the delivery is sent again (at least once).
    expect(await delivery(d2!.id)).toMatchObject({ status: 'pending', lease_owner: OWNER });
    expect(await delivery(d3!.id)).toMatchObject({ status: 'pending', lease_owner: null });
    // A NUL byte in a receiver's answer (which PostgreSQL text cannot hold) is stored as U+FFFD.
    expect((await attemptsOf(d3!.id))[0]?.response_body).toBe('nul \uFFFD in the body');
  });
});
