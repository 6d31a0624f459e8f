import { afterAll, beforeAll, expect, it } from 'vitest';
import { Dispatcher } from '../src/features/webhooks/dispatcher.js';
import { QUEUED } from '../src/features/webhooks/outbox.js';
import { client, describeEach, type Merchant, newMerchant, startApp, type TestApp, validOrder } from './helpers.js';
import { Receiver, verifyRutaV2, waitFor } from './webhook-receiver.js';

/**
 * Two apps in one process (as tests and embedders run them), each with its own database and
 * dispatcher: nothing either holds is process-wide, so neither hears, counts or closes the other's.
 */
describeEach('webhook instances in one process', (engine) => {
  const apps: { t: TestApp; m: Merchant; d: Dispatcher }[] = [];
  let rx: Receiver;

  beforeAll(async () => {
    rx = await new Receiver().start();
    for (let i = 0; i < 2; i++) {
      const t = await startApp(engine, { RUTA_WEBHOOK_ALLOW_INSECURE: '1' });
      // No fallback poll in this test's time: only this instance's own signal can wake it.
      const d = new Dispatcher(t.ctx, { pollMs: 600_000 }).start();
      apps.push({ t, m: await newMerchant(t), d });
    }
  });
  afterAll(async () => {
    for (const a of apps) {
      await a.d.stop(1000);
      await a.t.close();
    }
    await rx?.close();
  });

  const metric = async (t: TestApp, line: RegExp) => {
    const body = (await client(t.app)('GET', '/metrics')).raw.body as string;
    return Number(body.match(line)?.[1] ?? 0);
  };
  const successes = /^ruta_webhook_attempts_total\{outcome="success"\} (\d+)$/m;
  const failures = /^ruta_webhook_attempt_failures_total\{class="http"\} (\d+)$/m;
  const failed = /^ruta_webhook_deliveries_total\{outcome="failed"\} (\d+)$/m;

  it('each dispatcher is woken by its own app, counts on its own /metrics, and owns its own connections', async () => {
    const [a, b] = apps as [(typeof apps)[0], (typeof apps)[0]];
    expect(a.t.ctx.signals.listenerCount(QUEUED)).toBe(1);
    expect(b.t.ctx.signals.listenerCount(QUEUED)).toBe(1);
    const endpoints = [];
    for (const [i, x] of [a, b].entries()) {
      const res = await client(x.t.app, x.m.test)('POST', '/v1/webhook_endpoints', {
        url: rx.url(`/app${i}`),
        events: ['order.created'],
      });
      expect(res.status).toBe(201);
      endpoints.push(res.body as { id: string; secret: string });
    }
    // An order on A reaches A's receiver path only; B's dispatcher stays asleep with nothing counted.
    await client(a.t.app, a.m.test)('POST', '/v1/orders', validOrder());
    await waitFor(() => rx.on('/app0').length === 1);
    await waitFor(async () => (await metric(a.t, successes)) === 1);
    expect(await metric(b.t, successes)).toBe(0);
    expect(rx.on('/app1')).toHaveLength(0);
    expect(
      verifyRutaV2(
        rx.on('/app0')[0]?.body ?? '',
        String(rx.on('/app0')[0]?.headers['service-signature']),
        endpoints[0]?.secret ?? '',
      ),
    ).toBe(true);

    // A 410 on B: B counts the failure; A's figures do not move.
    rx.respond = (r) => (r.path === '/app1' ? { status: 410 } : { status: 200 });
    await client(b.t.app, b.m.test)('POST', '/v1/orders', validOrder());
    await waitFor(async () => (await metric(b.t, failed)) === 1);
    expect(await metric(b.t, failures)).toBe(1);
    expect(await metric(a.t, failures)).toBe(0);
    expect(await metric(a.t, failed)).toBe(0);
    expect(await metric(a.t, successes)).toBe(1);

    // Stopping B closes B's connection pools and unsubscribes B only; A keeps delivering on its own.
    expect(a.d.poolCount).toBe(1);
    expect(b.d.poolCount).toBe(1);
    await b.d.stop(1000);
    expect(b.d.poolCount).toBe(0);
    expect(b.t.ctx.signals.listenerCount(QUEUED)).toBe(0);
    expect(a.t.ctx.signals.listenerCount(QUEUED)).toBe(1);
    expect(a.d.poolCount).toBe(1);
    await client(a.t.app, a.m.test)('POST', '/v1/orders', validOrder());
    await waitFor(() => rx.on('/app0').length === 2);
    await waitFor(async () => (await metric(a.t, successes)) === 2);
  });
});
