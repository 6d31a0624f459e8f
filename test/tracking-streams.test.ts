import http from 'node:http';
import { afterEach, expect, it } from 'vitest';
import { TRACKING_HUB } from '../src/features/tracking/live-hub.js';
import { DRAIN_TIMEOUT_MS } from '../src/shared/drain.js';
import { client, describeEach, type Merchant, newMerchant, newOperator, startApp, type TestApp } from './helpers.js';
import { orderIn } from './lifecycle-helpers.js';
import { listening, openStream } from './stream-client.js';

/**
 * The server side of `/track/{code}/events` (src/features/tracking/live-hub.ts): the hub writes to
 * the response itself (the route hijacks the reply), so what Fastify would otherwise do for a
 * streamed body is checked here: the headers, the release of a stream whose page went away, and
 * a shutdown that neither waits on an open stream nor on one that is gone.
 */
describeEach('tracking streams, server side', (engine) => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  async function setUp(): Promise<{ t: TestApp; m: Merchant; code: string }> {
    const app = await startApp(engine, { RUTA_PUBLIC_RATE_LIMIT_PER_MIN: '0', RUTA_TRACK_STREAMS_PER_CLIENT: '50' });
    t = app;
    const m = await newMerchant(app, 'Acme Shoes');
    const opKey = await newOperator(app, 'live');
    const courier = (await client(app.app, opKey)('POST', '/v1/couriers', { name: 'Rosa' })).body.id;
    const o = await orderIn(app, m.live, opKey, courier, 'pending');
    return { t: app, m, code: o.tracking_code };
  }

  /** app.close() within half the drain's timeout: a stream it waited on would hold it for all of it. */
  const closesWithoutWaiting = (app: TestApp) =>
    Promise.race([
      app.app.close().then(() => 'closed'),
      new Promise((r) => setTimeout(() => r('still waiting for a request'), DRAIN_TIMEOUT_MS / 2)),
    ]);

  it('answers with the headers Fastify would have sent, then the retry delay and the first state', async () => {
    const { t, code } = await setUp();
    const s = await openStream(t.app, undefined, { 'accept-language': 'es' }, 10_000, `/track/${code}/events`);
    try {
      expect(s.status).toBe(200);
      expect(s.headers['content-type']).toBe('text/event-stream; charset=utf-8');
      expect(s.headers['cache-control']).toBe('no-store, no-transform');
      expect(s.headers['x-accel-buffering']).toBe('no');
      // From the app's onRequest hooks and the route's private headers, set before the hijack.
      expect(s.headers['request-id']).toMatch(/^req_/);
      expect(s.headers['service-version']).toBeTruthy();
      expect(s.headers['referrer-policy']).toBe('no-referrer');
      expect(s.headers['x-content-type-options']).toBe('nosniff');
      expect(s.headers['x-robots-tag']).toBe('noindex, nofollow');
      const first = await s.next((x) => x.event === 'tracking', 'the first state');
      expect(first.data).toMatchObject({ status: 'pending', courier: null });
      expect(t.ctx.instance.get(TRACKING_HUB).size).toBe(1);
    } finally {
      s.close();
    }
  });

  it('refuses before writing anything: an unknown code, the per-code cap', async () => {
    const { t, code } = await setUp();
    const unknown = await openStream(t.app, undefined, {}, 10_000, '/track/ZZZZZZZZZZZZ/events');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('resource_missing');
    const open = [];
    try {
      for (let i = 0; i < 5; i++) open.push(await openStream(t.app, undefined, {}, 10_000, `/track/${code}/events`));
      const sixth = await openStream(t.app, undefined, {}, 10_000, `/track/${code}/events`);
      expect(sixth.status).toBe(429);
      expect(sixth.headers['content-type']).toContain('application/json');
      expect(sixth.body.error.code).toBe('rate_limited');
    } finally {
      for (const s of open) s.close();
    }
  });

  it('releases a stream whose page went away, even one that left before its first frame', async () => {
    const { t, code } = await setUp();
    const hub = t.ctx.instance.get(TRACKING_HUB);
    const s = await openStream(t.app, undefined, {}, 10_000, `/track/${code}/events`);
    await s.next((x) => x.event === 'tracking', 'the first state');
    s.close();
    await expect.poll(() => hub.size).toBe(0);
    // Hung up right after asking: some leave while the order is read, some once the stream is open.
    const port = await listening(t.app);
    for (let i = 0; i < 10; i++) {
      const req = http.get({ host: '127.0.0.1', port, path: `/track/${code}/events` });
      req.on('error', () => {});
      setImmediate(() => req.destroy());
    }
    // Every slot of the per-code cap is free again, once the server has seen the last of them (on a
    // loaded machine a hung-up request can still be on its way in when the hub first reads empty).
    const fiveAtOnce = async () => {
      const again = [];
      try {
        for (let i = 0; i < 5; i++) again.push(await openStream(t.app, undefined, {}, 10_000, `/track/${code}/events`));
        return again.map((x) => x.status);
      } finally {
        for (const x of again) x.close();
        await expect.poll(() => hub.size).toBe(0);
      }
    };
    await expect.poll(fiveAtOnce).toEqual([200, 200, 200, 200, 200]);
    // None of them is a request the shutdown still waits for.
    expect(await closesWithoutWaiting(t)).toBe('closed');
  });

  it('a refresh that changed nothing builds no frame; a change is built and sent', async () => {
    const { t, m, code } = await setUp();
    const hub = t.ctx.instance.get(TRACKING_HUB);
    const s = await openStream(t.app, undefined, {}, 10_000, `/track/${code}/events`);
    try {
      await s.next((x) => x.event === 'tracking', 'the first state');
      await hub.refresh();
      const built = hub.framesBuilt;
      await hub.refresh();
      await hub.refresh();
      expect(hub.framesBuilt).toBe(built);
      const order = (await client(t.app, m.live)('GET', '/v1/orders?limit=1')).body.data[0];
      expect((await client(t.app, m.live)('POST', `/v1/orders/${order.id}/cancel`, {})).status).toBe(200);
      await hub.refresh();
      expect(hub.framesBuilt).toBe(built + 1);
      const moved = await s.next((x) => x.event === 'tracking' && x.data.status === 'cancelled', 'the cancelled state');
      expect(moved.data.courier).toBeNull();
    } finally {
      s.close();
    }
  });

  it('ends open streams at shutdown, without waiting for them', async () => {
    const { t, code } = await setUp();
    const s = await openStream(t.app, undefined, {}, 10_000, `/track/${code}/events`);
    await s.next((x) => x.event === 'tracking', 'the first state');
    expect(await closesWithoutWaiting(t)).toBe('closed');
    await s.ended;
  });
});
