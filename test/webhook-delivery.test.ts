import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it, vi } from 'vitest';
import { Dispatcher } from '../src/features/webhooks/dispatcher.js';
import { nodeRecipe, pythonRecipe } from './docs-recipes.js';
import { client, describeEach, type Merchant, newMerchant, startApp, type TestApp, validOrder } from './helpers.js';
import { Clock, expectSigned, Receiver, verifyRuta, verifyRutaV2, waitFor } from './webhook-receiver.js';

describeEach('webhook delivery', (engine) => {
  let t: TestApp;
  let rx: Receiver;
  let m: Merchant;
  let running: Dispatcher[] = [];

  beforeAll(async () => {
    t = await startApp(engine, { RUTA_WEBHOOK_ALLOW_INSECURE: '1', RUTA_WEBHOOK_RETRY_SCHEDULE: '0.05,0.05,0.1' });
    rx = await new Receiver().start();
  });
  // A fresh merchant per test, so one test's endpoints never receive another's events.
  beforeEach(async () => {
    m = await newMerchant(t);
  });
  afterEach(async () => {
    await Promise.all(running.map((d) => d.stop(1000)));
    running = [];
    rx.respond = () => ({ status: 200, body: 'ok' });
  });
  afterAll(async () => {
    await rx?.close();
    await t?.close();
  });

  function dispatcher(opts: { clock?: Clock; insecure?: boolean } = {}): Dispatcher {
    const config = { ...t.config, webhookAllowInsecure: opts.insecure ?? true };
    // The app's own context, seen with this test's setting and clock (writes still wake it).
    const d = new Dispatcher({ ...t.ctx, config, clock: opts.clock?.now ?? t.ctx.clock }, { pollMs: 50 });
    running.push(d);
    return d.start();
  }

  async function endpoint(key: string, path: string, events: string[] = ['*']) {
    const res = await client(t.app, key)('POST', '/v1/webhook_endpoints', { url: rx.url(path), events });
    expect(res.status).toBe(201);
    return res.body as { id: string; secret: string };
  }

  const order = async (key: string) => (await client(t.app, key)('POST', '/v1/orders', validOrder())).body;
  /** The API as `key` (for a test whose own `t` is a timestamp). */
  const api = (key: string) => client(t.app, key);
  const delivery = (eventId: string, endpointId: string) =>
    t.ctx.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('event_id', '=', eventId)
      .where('endpoint_id', '=', endpointId)
      .executeTakeFirstOrThrow();

  /** The delivery as the receiver's `standardwebhooks` library sees it, at `nowMs` on the receiver's clock. */
  function verifyStandard(r: { body: string; headers: Record<string, unknown> }, secret: string, nowMs?: number) {
    const spy = nowMs === undefined ? undefined : vi.spyOn(Date, 'now').mockReturnValue(nowMs);
    try {
      return new Webhook(secret).verify(r.body, r.headers as Record<string, string>);
    } finally {
      spy?.mockRestore();
    }
  }

  /** Settled: the attempt's outcome is written and the lease handed back (the claim already counted it). */
  const settled = (eventId: string, endpointId: string, attempts: number) =>
    waitFor(async () => {
      const d = await delivery(eventId, endpointId);
      expect(d).toMatchObject({ attempts, lease_owner: null });
      return d;
    });

  it('sends every header, signed over the raw body, which a README-recipe receiver accepts', async () => {
    const e = await endpoint(m.test, '/headers');
    dispatcher();
    const o = await order(m.test);
    const [r] = await waitFor(() => rx.on('/headers').length === 1 && rx.on('/headers'));
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.headers['user-agent']).toBe('Ruta-Webhooks/1.0');
    expect(r.headers['service-event']).toBe('order.created');
    expect(r.headers['service-order-id']).toBe(o.id);
    expect(r.headers['service-attempt']).toBe('1');
    expect(r.headers['service-event-id']).toMatch(/^evt_/);
    const sig = String(r.headers['service-signature']);
    expect(sig).toMatch(/^t=\d{10},v1=[0-9a-f]{64},v2=[0-9a-f]{64}$/);
    const t = Number(sig.slice(2, 12));
    expect(Math.abs(t - Date.now() / 1000)).toBeLessThan(600);
    expectSigned(r, e.secret);
    expect(verifyRuta(r.body, sig, 'whsec_wrong')).toBe(false);
    expect(verifyRuta(`${r.body} `, sig, e.secret)).toBe(false);
    // v2 and Standard Webhooks, as a receiver checks them.
    expect(verifyRutaV2(r.body, sig, e.secret)).toBe(true);
    expect(verifyRutaV2(`${r.body} `, sig, e.secret)).toBe(false);
    expect(r.headers['webhook-id']).toBe(r.headers['service-event-id']);
    expect(r.headers['webhook-timestamp']).toBe(String(t));
    expect(verifyStandard(r, e.secret)).toMatchObject({ id: r.headers['service-event-id'], event: 'order.created' });
    expect(() => verifyStandard({ ...r, body: `${r.body} ` }, e.secret)).toThrow(/No matching signature/);
    // A captured delivery replayed more than 5 minutes later is refused by both recipes.
    expect(verifyRutaV2(r.body, sig, e.secret, t + 301)).toBe(false);
    expect(() => verifyStandard(r, e.secret, (t + 301) * 1000)).toThrow(/too old/);
    expect(verifyRutaV2(r.body, sig, e.secret, t + 299)).toBe(true);
    expect(verifyStandard(r, e.secret, (t + 299) * 1000)).toMatchObject({ event: 'order.created' });
    const body = JSON.parse(r.body);
    expect(body).toMatchObject({
      id: r.headers['service-event-id'],
      object: 'event',
      event: 'order.created',
      livemode: false,
      api_version: '2025-07-01',
      data: { id: o.id, object: 'order', tracking_code: o.tracking_code, status: 'pending', sequence: 1 },
    });
    await waitFor(async () => expect((await delivery(body.id, e.id)).status).toBe('succeeded'));
    // An order's events with their deliveries, for its page in the console; without the flag, none.
    const call = api(m.test);
    const withThem = await call('GET', `/v1/events?order=${o.id}&include_deliveries=true`);
    expect(withThem.body.data[0].deliveries).toEqual([
      expect.objectContaining({ endpoint: e.id, status: 'succeeded', attempts: 1 }),
    ]);
    const plain = await call('GET', `/v1/events?order=${o.id}`);
    expect(plain.body.data[0].deliveries).toBeUndefined();
    expect((await call('GET', `/v1/events?order=${o.id}&include_deliveries=maybe`)).status).toBe(422);
  });

  it("the docs' Node and Python v2 recipes accept a real delivery, with either secret in a rotation, and refuse replays", async () => {
    const e = await endpoint(m.test, '/recipes', ['order.returned']);
    dispatcher();
    const call = client(t.app, m.test);
    const rotated = (await call('POST', `/v1/webhook_endpoints/${e.id}/rotate_secret`)).body;
    await call('POST', `/v1/webhook_endpoints/${e.id}/test`);
    const [r] = await waitFor(() => rx.on('/recipes').length === 1 && rx.on('/recipes'));
    const sig = String(r.headers['service-signature']);
    const t0 = Number(sig.slice(2, sig.indexOf(',')));
    const node = await nodeRecipe();
    for (const secret of [rotated.secret, e.secret]) {
      expect(node(r.body, sig, secret)).toBe(true);
      expect(node(r.body, sig, secret, t0 + 300)).toBe(true);
      expect(node(r.body, sig, secret, t0 + 301)).toBe(false);
      expect(pythonRecipe(r.body, sig, secret, t0)).toBe(true);
      expect(pythonRecipe(r.body, sig, secret, t0 + 301)).toBe(false);
      expect(verifyStandard(r, secret)).toMatchObject({ event: 'webhook.test' });
      expect(() => verifyStandard(r, secret, (t0 + 301) * 1000)).toThrow(/too old/);
    }
    expect(node(`${r.body} `, sig, e.secret)).toBe(false);
    // A request without Service-Signature (a probe, a misrouted POST) is refused, not a crash (a 500).
    expect(node(r.body, undefined as unknown as string, e.secret)).toBe(false);
    expect(pythonRecipe(r.body, null as unknown as string, e.secret, t0)).toBe(false);
    expect(pythonRecipe(r.body, sig, 'whsec_wrong', t0)).toBe(false);
    // A replay that rewrites t to look fresh fails too: v2 signed the original t.
    const forged = sig.replace(`t=${t0}`, `t=${t0 + 400}`);
    expect(node(r.body, forged, e.secret, t0 + 400)).toBe(false);
    expect(pythonRecipe(r.body, forged, e.secret, t0 + 400)).toBe(false);
  });

  it('retries with identical bodies and increasing attempt numbers, then marks the delivery failed', async () => {
    const e = await endpoint(m.test, '/exhaust');
    rx.respond = () => ({ status: 500, body: 'boom '.repeat(400) });
    dispatcher();
    const o = await order(m.test);
    const got = await waitFor(() => rx.on('/exhaust').length === 4 && rx.on('/exhaust'));
    expect(got.map((r) => r.headers['service-attempt'])).toEqual(['1', '2', '3', '4']);
    expect(new Set(got.map((r) => r.body)).size).toBe(1);
    expect(new Set(got.map((r) => r.headers['service-event-id'])).size).toBe(1);
    for (const r of got) expectSigned(r, e.secret);
    const eventId = String(got[0].headers['service-event-id']);
    await waitFor(async () => expect((await delivery(eventId, e.id)).status).toBe('failed'));
    const d = await delivery(eventId, e.id);
    expect(d.attempts).toBe(4);
    const call = client(t.app, m.test);
    const log = await call('GET', `/v1/webhook_endpoints/${e.id}/deliveries`);
    expect(log.status).toBe(200);
    expect(log.body.data.map((a: { attempt: number }) => a.attempt)).toEqual([4, 3, 2, 1]);
    expect(log.body.data[0]).toMatchObject({
      object: 'webhook_attempt',
      event: eventId,
      succeeded: false,
      response_status: 500,
      error_class: 'http',
    });
    expect(log.body.data[0].response_body.length).toBe(1024);
    // Each attempt names its event's type and order; the last one says the delivery gave up, and
    // no attempt of it waits for a retry any more.
    for (const a of log.body.data) expect(a).toMatchObject({ event_type: 'order.created', order: o.id });
    expect(log.body.data.map((a: { gave_up: boolean }) => a.gave_up)).toEqual([true, false, false, false]);
    expect(log.body.data.map((a: { next_attempt_at: string | null }) => a.next_attempt_at)).toEqual([
      null,
      null,
      null,
      null,
    ]);
    expect(log.body.data[0].duration_ms).toBeGreaterThanOrEqual(0);
    const failing = await call('GET', '/v1/events?delivery_success=false');
    expect(failing.body.data.map((x: { id: string }) => x.id)).toContain(eventId);
    const page = await call(
      'GET',
      `/v1/webhook_endpoints/${e.id}/deliveries?limit=2&starting_after=${log.body.data[1].id}`,
    );
    expect(page.body.data.map((a: { attempt: number }) => a.attempt)).toEqual([2, 1]);
    expect(page.body.has_more).toBe(false);
    // Attempt ids are prefixed like every other object's; a cursor must name an attempt of this endpoint.
    for (const a of log.body.data) expect(a.id).toMatch(/^whatt_[0-9A-Z]{26}$/);
    for (const bad of ['whatt_nope', '9223372036854775296', '1e20']) {
      const res = await call('GET', `/v1/webhook_endpoints/${e.id}/deliveries?starting_after=${bad}`);
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'parameter_invalid', param: 'starting_after' });
    }
    await call('PATCH', `/v1/webhook_endpoints/${e.id}`, { status: 'disabled' });
  });

  it('honours Retry-After on 429/503, clamped between the scheduled delay and twice it', async () => {
    const clock = new Clock();
    const e = await endpoint(m.test, '/retry-after');
    const replies = [
      { status: 503, headers: { 'retry-after': '3600' } },
      { status: 429, headers: { 'retry-after': '0' } },
      { status: 500 },
      { status: 200 },
    ];
    rx.respond = () => replies.shift() ?? { status: 200 };
    dispatcher({ clock });
    await order(m.test);
    const eventId = await waitFor(
      () => rx.on('/retry-after').length === 1 && String(rx.on('/retry-after')[0].headers['service-event-id']),
    );
    await settled(eventId, e.id, 1);
    expect((await delivery(eventId, e.id)).next_attempt_at).toBe(clock.t + 100); // 3600 s clamped to 2 × 50 ms
    // The attempt log says when the failed attempt is tried again, and that it has not given up.
    const log = async () => (await api(m.test)('GET', `/v1/webhook_endpoints/${e.id}/deliveries`)).body.data;
    expect((await log())[0]).toMatchObject({
      attempt: 1,
      succeeded: false,
      response_status: 503,
      event_type: 'order.created',
      next_attempt_at: new Date(clock.t + 100).toISOString(),
      gave_up: false,
    });
    clock.advance(100);
    await settled(eventId, e.id, 2);
    expect((await delivery(eventId, e.id)).next_attempt_at).toBe(clock.t + 50); // 0 s raised to the 50 ms schedule
    clock.advance(50);
    await settled(eventId, e.id, 3);
    const d = await delivery(eventId, e.id);
    expect(d.next_attempt_at).toBeGreaterThanOrEqual(clock.t + 100);
    expect(d.next_attempt_at).toBeLessThanOrEqual(clock.t + 110); // jitter: at most +10%
    clock.advance(200);
    await waitFor(async () => expect((await delivery(eventId, e.id)).status).toBe('succeeded'));
    expect(rx.on('/retry-after').map((r) => r.headers['service-attempt'])).toEqual(['1', '2', '3', '4']);
    // Once it succeeded, no attempt waits nor gave up: the failed ones were retried.
    const after = await waitFor(async () => {
      const rows = await log();
      return rows.length === 4 && rows;
    });
    expect(after.map((a: { succeeded: boolean }) => a.succeeded)).toEqual([true, false, false, false]);
    for (const a of after) expect(a).toMatchObject({ next_attempt_at: null, gave_up: false });
  });

  it("marks the last attempt gave_up when the endpoint is disabled before the retry; a test event's has no order", async () => {
    const clock = new Clock();
    const e = await endpoint(m.test, '/disabled-before-retry', ['order.created']);
    rx.respond = () => ({ status: 500 });
    dispatcher({ clock });
    const call = api(m.test);
    const o = await order(m.test);
    const got = () => rx.on('/disabled-before-retry');
    const eventId = await waitFor(() => got().length === 1 && String(got()[0].headers['service-event-id']));
    await settled(eventId, e.id, 1);
    const log = async () => (await call('GET', `/v1/webhook_endpoints/${e.id}/deliveries`)).body.data;
    const waiting = (await log())[0];
    expect(waiting).toMatchObject({ event_type: 'order.created', order: o.id, gave_up: false });
    expect(waiting.next_attempt_at).toBe(new Date((await delivery(eventId, e.id)).next_attempt_at).toISOString());
    // Disabled before the retry: the retry is cancelled unsent, and the attempt made was the last.
    await call('PATCH', `/v1/webhook_endpoints/${e.id}`, { status: 'disabled' });
    clock.advance(1000);
    await waitFor(async () => expect((await delivery(eventId, e.id)).status).toBe('failed'));
    expect(await log()).toEqual([expect.objectContaining({ attempt: 1, next_attempt_at: null, gave_up: true })]);
    expect(got()).toHaveLength(1);
    // A test event (sent even to a disabled endpoint) is about no order.
    rx.respond = () => ({ status: 200 });
    expect((await call('POST', `/v1/webhook_endpoints/${e.id}/test`)).status).toBe(202);
    const test = await waitFor(async () => {
      const rows = await log();
      return rows.length === 2 && rows[0];
    });
    expect(test).toMatchObject({ event_type: 'webhook.test', order: null, succeeded: true, gave_up: false });
  });

  it('filters by subscription and isolates accounts and environments', async () => {
    const other = await newMerchant(t, 'Other');
    await endpoint(m.test, '/f-created', ['order.created']);
    await endpoint(m.test, '/f-cancelled', ['order.cancelled']);
    await endpoint(m.live, '/f-live', ['*']);
    await endpoint(other.test, '/f-other', ['*']);
    dispatcher();
    const o = await order(m.test);
    await client(t.app, m.test)('POST', `/v1/orders/${o.id}/cancel`, { reason: 'changed mind' });
    await waitFor(() => rx.on('/f-created').length === 1 && rx.on('/f-cancelled').length === 1);
    expect(rx.on('/f-created')[0].headers['service-event']).toBe('order.created');
    const cancelled = rx.on('/f-cancelled')[0];
    expect(cancelled.headers['service-event']).toBe('order.cancelled');
    expect(JSON.parse(cancelled.body).data).toMatchObject({
      status: 'cancelled',
      cancellation_reason: 'changed mind',
      previous_status: 'pending',
      sequence: 2,
    });
    const live = await order(m.live);
    await waitFor(() => rx.on('/f-live').length === 1);
    expect(rx.on('/f-live')[0].headers['service-order-id']).toBe(live.id);
    expect(JSON.parse(rx.on('/f-live')[0].body).livemode).toBe(true);
    // The other account's endpoint and the live endpoint never saw the test order's events.
    expect(rx.on('/f-other')).toHaveLength(0);
    expect(rx.on('/f-live').some((r) => r.headers['service-order-id'] === o.id)).toBe(false);
    const rows = await t.ctx.db.selectFrom('webhook_deliveries').selectAll().where('order_id', '=', o.id).execute();
    expect(rows).toHaveLength(2);
    for (const key of [other.test, m.test]) {
      await client(t.app, key)(
        'PATCH',
        `/v1/webhook_endpoints/${(await client(t.app, key)('GET', '/v1/webhook_endpoints')).body.data[0].id}`,
        { status: 'disabled' },
      );
    }
  });

  it('sends event n+1 of an order only after event n succeeded or was exhausted; other orders do not wait', async () => {
    const clock = new Clock();
    const e = await endpoint(m.test, '/ordering');
    let failA = true;
    const isA = (body: string) => JSON.parse(body).data.external_order_id === 'ORDER-A';
    rx.respond = (r) =>
      failA && isA(r.body) && r.headers['service-event'] === 'order.created' ? { status: 500 } : { status: 200 };
    dispatcher({ clock });
    const call = client(t.app, m.test);
    const a = (await call('POST', '/v1/orders', validOrder({ external_order_id: 'ORDER-A' }))).body;
    const created = await t.ctx.db
      .selectFrom('events')
      .select('id')
      .where('order_id', '=', a.id)
      .where('type', '=', 'order.created')
      .executeTakeFirstOrThrow();
    await settled(created.id, e.id, 1);
    expect((await delivery(created.id, e.id)).status).toBe('pending');
    await call('POST', `/v1/orders/${a.id}/cancel`);
    const b = await order(m.test);
    await waitFor(() => rx.on('/ordering').some((r) => r.headers['service-order-id'] === b.id));
    const cancelEvent = await t.ctx.db
      .selectFrom('events')
      .select('id')
      .where('order_id', '=', a.id)
      .where('type', '=', 'order.cancelled')
      .executeTakeFirstOrThrow();
    const waiting = await delivery(cancelEvent.id, e.id);
    expect(waiting.status).toBe('pending');
    expect(waiting.attempts).toBe(0);
    expect(rx.on('/ordering').some((r) => r.headers['service-event'] === 'order.cancelled')).toBe(false);
    // Once event 1 succeeds, event 2 follows.
    failA = false;
    clock.advance(60_000);
    await waitFor(async () => expect((await delivery(cancelEvent.id, e.id)).status).toBe('succeeded'));
    const aEvents = rx.on('/ordering').filter((r) => r.headers['service-order-id'] === a.id);
    const lastCreated = aEvents.map((r) => r.headers['service-event']).lastIndexOf('order.created');
    const firstCancelled = aEvents.map((r) => r.headers['service-event']).indexOf('order.cancelled');
    expect(firstCancelled).toBeGreaterThan(lastCreated);
    await call('PATCH', `/v1/webhook_endpoints/${e.id}`, { status: 'disabled' });
  });

  it('a 410 disables the endpoint at once; events are still recorded and can be redelivered', async () => {
    const e = await endpoint(m.test, '/gone');
    rx.respond = () => ({ status: 410 });
    dispatcher();
    await order(m.test);
    await waitFor(() => rx.on('/gone').length === 1);
    const call = client(t.app, m.test);
    await waitFor(async () =>
      expect((await call('GET', `/v1/webhook_endpoints/${e.id}`)).body.status).toBe('disabled'),
    );
    const ep = (await call('GET', `/v1/webhook_endpoints/${e.id}`)).body;
    expect(ep.disabled_reason).toBe('http_410');
    expect(Date.parse(ep.disabled_at)).not.toBeNaN();
    const eventId = String(rx.on('/gone')[0].headers['service-event-id']);
    await waitFor(async () => expect((await delivery(eventId, e.id)).status).toBe('failed'));
    expect((await delivery(eventId, e.id)).attempts).toBe(1);
    // A new event is recorded but not queued for the disabled endpoint.
    const o2 = await order(m.test);
    const events = await call('GET', `/v1/events?order=${o2.id}`);
    expect(events.body.data).toHaveLength(1);
    const ev = events.body.data[0];
    const rows = await t.ctx.db.selectFrom('webhook_deliveries').selectAll().where('event_id', '=', ev.id).execute();
    expect(rows.filter((r) => r.endpoint_id === e.id)).toHaveLength(0);
    // Redelivery to the disabled endpoint is an explicit request, so it is sent.
    rx.respond = () => ({ status: 200 });
    const re = await call('POST', `/v1/events/${ev.id}/redeliver`, { endpoint: e.id });
    expect(re.status).toBe(202);
    expect(re.body.data).toHaveLength(1);
    expect(re.body.data[0]).toMatchObject({
      object: 'webhook_delivery',
      event: ev.id,
      endpoint: e.id,
      status: 'pending',
    });
    await waitFor(() => rx.on('/gone').some((r) => r.headers['service-event-id'] === ev.id));
    const got = rx.on('/gone').find((r) => r.headers['service-event-id'] === ev.id);
    expect(got?.body).toBe(JSON.stringify(JSON.parse(got?.body ?? '{}')));
    await waitFor(async () => {
      const full = await call('GET', `/v1/events/${ev.id}`);
      expect(full.body.deliveries.map((d: { status: string }) => d.status)).toEqual(['succeeded']);
      expect(full.body.pending_webhooks).toBe(0);
    });
    const badTarget = await call('POST', `/v1/events/${ev.id}/redeliver`, { endpoint: 'we_nope' });
    expect(badTarget.status).toBe(422);
    expect(badTarget.body.error.param).toBe('endpoint');
  });

  it('disables an endpoint that has failed without a success for 72 h', async () => {
    const clock = new Clock();
    const e = await endpoint(m.test, '/dead');
    rx.respond = () => ({ status: 500 });
    dispatcher({ clock });
    await order(m.test);
    const call = client(t.app, m.test);
    await waitFor(() => rx.on('/dead').length === 1);
    const eventId = String(rx.on('/dead')[0].headers['service-event-id']);
    await settled(eventId, e.id, 1);
    clock.advance(71 * 3600_000);
    await settled(eventId, e.id, 2);
    expect((await call('GET', `/v1/webhook_endpoints/${e.id}`)).body.status).toBe('enabled');
    clock.advance(2 * 3600_000);
    await settled(eventId, e.id, 3);
    const ep = (await call('GET', `/v1/webhook_endpoints/${e.id}`)).body;
    expect(ep.status).toBe('disabled');
    expect(ep.disabled_reason).toBe('failing_72h');
    expect(Date.parse(ep.disabled_at)).toBe(clock.t);
    // Its queued retry is cancelled rather than sent.
    clock.advance(3600_000);
    await waitFor(async () => expect((await delivery(eventId, e.id)).status).toBe('failed'));
    expect((await delivery(eventId, e.id)).attempts).toBe(3);
  });

  it('signs with both secrets for 24 h after a rotation, then with the new one only', async () => {
    const clock = new Clock();
    const e = await endpoint(m.test, '/rotate', ['order.created']);
    dispatcher({ clock });
    const call = client(t.app, m.test);
    const rotated = (await call('POST', `/v1/webhook_endpoints/${e.id}/rotate_secret`)).body;
    const test = await call('POST', `/v1/webhook_endpoints/${e.id}/test`);
    expect(test.status).toBe(202);
    expect(test.body).toMatchObject({ object: 'webhook_delivery', endpoint: e.id, status: 'pending' });
    const [r1] = await waitFor(() => rx.on('/rotate').length === 1 && rx.on('/rotate'));
    expect(r1.headers['service-event']).toBe('webhook.test');
    expect(r1.headers['service-order-id']).toBeUndefined();
    const sig1 = String(r1.headers['service-signature']);
    expect(sig1).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64},v2=[0-9a-f]{64},v2=[0-9a-f]{64}$/);
    expectSigned(r1, rotated.secret);
    expectSigned(r1, e.secret);
    // Both schemes and Standard Webhooks verify with either secret during the overlap (on the
    // receiver's clock, which this test has moved an hour ahead with the dispatcher's).
    const t1 = Number(sig1.slice(2, sig1.indexOf(',')));
    for (const secret of [rotated.secret, e.secret]) {
      expect(verifyRutaV2(r1.body, sig1, secret, t1)).toBe(true);
      expect(verifyStandard(r1, secret, t1 * 1000)).toMatchObject({ event: 'webhook.test' });
    }
    expect(String(r1.headers['webhook-signature']).split(' ')).toHaveLength(2);
    // The first attempt's outcome written first: a jump of 24 h past its lease while its settle is
    // still on its way would let the dispatcher take it as abandoned and send it again.
    await settled(String(r1.headers['service-event-id']), e.id, 1);
    clock.advance(24 * 3600_000 + 1000);
    expect((await call('POST', `/v1/webhook_endpoints/${e.id}/test`)).status).toBe(202);
    const r2 = await waitFor(() => rx.on('/rotate').length >= 2 && rx.on('/rotate')[1]);
    expect(rx.on('/rotate')).toHaveLength(2);
    const sig2 = String(r2.headers['service-signature']);
    expect(sig2).toMatch(/^t=\d+,v1=[0-9a-f]{64},v2=[0-9a-f]{64}$/);
    expectSigned(r2, rotated.secret);
    expect(verifyRuta(r2.body, sig2, e.secret)).toBe(false);
    const t2 = Number(sig2.slice(2, sig2.indexOf(',')));
    expect(verifyRutaV2(r2.body, sig2, rotated.secret, t2)).toBe(true);
    expect(verifyRutaV2(r2.body, sig2, e.secret, t2)).toBe(false);
    expect(verifyStandard(r2, rotated.secret, t2 * 1000)).toMatchObject({ event: 'webhook.test' });
    expect(() => verifyStandard(r2, e.secret, t2 * 1000)).toThrow(/No matching signature/);
    expect(Number(String(r2.headers['service-signature']).split(',')[0].slice(2))).toBe(Math.floor(clock.t / 1000));
    await call('PATCH', `/v1/webhook_endpoints/${e.id}`, { status: 'disabled' });
  });

  it('refuses private addresses again at delivery time without the insecure flag', async () => {
    const call = client(t.app, m.test);
    const urls = [
      `https://127.0.0.1:${rx.port}/ssrf`,
      `https://localhost:${rx.port}/ssrf`,
      `https://[::1]:${rx.port}/ssrf`,
      `https://[::ffff:127.0.0.1]:${rx.port}/ssrf`,
      'https://10.0.0.1/ssrf',
      'https://169.254.169.254/ssrf',
    ];
    const ids: string[] = [];
    for (const url of urls)
      ids.push((await call('POST', '/v1/webhook_endpoints', { url, events: ['order.created'] })).body.id);
    dispatcher({ insecure: false });
    await order(m.test);
    for (const id of ids) {
      const log = await waitFor(async () => {
        const res = await call('GET', `/v1/webhook_endpoints/${id}/deliveries`);
        return res.body.data.length > 0 && res.body.data;
      });
      expect(log[0]).toMatchObject({ succeeded: false, error_class: 'dns', response_status: null });
      expect(log[0].error_message).toMatch(/loopback, private, link-local or reserved/);
      await call('DELETE', `/v1/webhook_endpoints/${id}`);
    }
    expect(rx.on('/ssrf')).toHaveLength(0);
  });

  it('classifies connection failures and timeouts', async () => {
    const call = client(t.app, m.test);
    const refused = (
      await call('POST', '/v1/webhook_endpoints', { url: 'http://127.0.0.1:1/none', events: ['order.created'] })
    ).body;
    const slow = await endpoint(m.test, '/slow', ['order.created']);
    rx.respond = (r) => (r.path === '/slow' ? { hang: true } : { status: 200 });
    const d = new Dispatcher({ ...t.ctx, config: { ...t.config, webhookTimeoutMs: 300 } }, { pollMs: 50 }).start();
    running.push(d);
    await order(m.test);
    const first = async (id: string) =>
      waitFor(async () => {
        const res = await call('GET', `/v1/webhook_endpoints/${id}/deliveries`);
        return res.body.data.length > 0 && res.body.data.at(-1);
      });
    expect((await first(refused.id)).error_class).toBe('connect');
    expect((await first(slow.id)).error_class).toBe('timeout');
    await call('DELETE', `/v1/webhook_endpoints/${refused.id}`);
    await call('DELETE', `/v1/webhook_endpoints/${slow.id}`);
  });

  it('lists events newest first with filters and pagination; other accounts see 404', async () => {
    const call = client(t.app, m.test);
    const o = await order(m.test);
    await call('POST', `/v1/orders/${o.id}/cancel`);
    const list = await call('GET', `/v1/events?order=${o.id}`);
    expect(list.status).toBe(200);
    expect(list.body.data.map((x: { event: string }) => x.event)).toEqual(['order.cancelled', 'order.created']);
    const page = await call('GET', `/v1/events?order=${o.id}&limit=1`);
    expect(page.body.has_more).toBe(true);
    const next = await call('GET', `/v1/events?order=${o.id}&limit=1&starting_after=${page.body.data[0].id}`);
    expect(next.body.data[0].event).toBe('order.created');
    expect(next.body.has_more).toBe(false);
    const byType = await call('GET', `/v1/events?event=order.cancelled&order=${o.id}`);
    expect(byType.body.data).toHaveLength(1);
    expect((await call('GET', '/v1/events?event=order.nope')).status).toBe(422);
    expect((await call('GET', '/v1/events?limit=0')).status).toBe(422);
    expect((await call('GET', '/v1/events?starting_after=evt_nope')).body.error.param).toBe('starting_after');
    const one = await call('GET', `/v1/events/${page.body.data[0].id}`);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ object: 'event', event: 'order.cancelled', data: { id: o.id } });
    const other = await newMerchant(t, 'Nosy');
    for (const key of [other.test, m.live]) {
      expect((await client(t.app, key)('GET', `/v1/events/${one.body.id}`)).status).toBe(404);
      expect((await client(t.app, key)('POST', `/v1/events/${one.body.id}/redeliver`, {})).status).toBe(404);
      const theirs = await client(t.app, key)('GET', '/v1/events?limit=100');
      expect(theirs.body.data.map((x: { id: string }) => x.id)).not.toContain(one.body.id);
    }
  });
});
