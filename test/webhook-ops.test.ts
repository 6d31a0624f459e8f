import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Dispatcher } from '../src/features/webhooks/dispatcher.js';
import { failedDeliveriesQuery } from '../src/features/webhooks/ops-repo.js';
import { EVENT_TYPES } from '../src/features/webhooks/schemas.js';
import { EVENT_TYPES as CONSOLE_EVENT_TYPES } from '../web/src/console/webhooks/events.js';
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
import { courierSession, type Session, sessionClient, userSession } from './people-helpers.js';
import { Receiver, waitFor } from './webhook-receiver.js';

type Json = Record<string, any>;
const ids = (list: { data: { id: string }[] }) => list.data.map((x) => x.id);

/**
 * The carrier's read-only view of webhooks (DESIGN §8 Exceptions): failed deliveries and disabled
 * endpoints across the accounts of one environment, and the same lists narrowed to its own account
 * for a merchant. The failures are real: a dispatcher sends to a receiver that answers 410 or 500.
 */
describeEach('webhook endpoints and failed deliveries for the carrier', (engine) => {
  let t: TestApp;
  let rx: Receiver;
  let dispatcher: Dispatcher;
  let a: Merchant;
  let b: Merchant;
  let opTest: string;
  let opLive: string;
  // a1: answers 410 (delivery failed, endpoint disabled at once); a2: 200; b1: 500 until exhausted;
  // aLive: 410 in live mode.
  const ep: Record<'a1' | 'a2' | 'b1' | 'aLive', Json> = {} as never;
  const failed: Record<'a1' | 'b1' | 'aLive', Json> = {} as never;

  async function endpoint(key: string, path: string) {
    const res = await client(t.app, key)('POST', '/v1/webhook_endpoints', { url: rx.url(path), events: ['*'] });
    expect(res.status).toBe(201);
    return res.body;
  }
  const deliveryOf = (endpointId: string) =>
    t.ctx.db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', endpointId).executeTakeFirst();

  beforeAll(async () => {
    // Two attempts in all (one retry after 10 ms): a 500 exhausts a delivery at once.
    t = await startApp(engine, { RUTA_WEBHOOK_ALLOW_INSECURE: '1', RUTA_WEBHOOK_RETRY_SCHEDULE: '0.01' });
    rx = await new Receiver().start();
    rx.respond = (r) => ({ status: r.path.startsWith('/gone') ? 410 : r.path === '/boom' ? 500 : 200 });
    a = await newMerchant(t, 'Alpha');
    b = await newMerchant(t, 'Beta');
    opTest = await newOperator(t, 'test');
    opLive = await newOperator(t, 'live');
    ep.a1 = await endpoint(a.test, '/gone');
    ep.a2 = await endpoint(a.test, '/ok');
    ep.b1 = await endpoint(b.test, '/boom');
    ep.aLive = await endpoint(a.live, '/gone-live');
    dispatcher = new Dispatcher(t.ctx, { pollMs: 20 }).start();
    // One order each, one after the other, so the failed deliveries have distinct creation times.
    for (const key of [a.test, b.test, a.live]) {
      expect((await client(t.app, key)('POST', '/v1/orders', validOrder())).status).toBe(201);
      await new Promise((r) => setTimeout(r, 5));
    }
    for (const name of ['a1', 'b1', 'aLive'] as const) {
      failed[name] = await waitFor(async () => {
        const d = await deliveryOf(ep[name].id);
        expect(d?.status).toBe('failed');
        return d as Json;
      });
    }
    await waitFor(async () => expect((await deliveryOf(ep.a2.id))?.status).toBe('succeeded'));
  });
  afterAll(async () => {
    await dispatcher?.stop(1000);
    await rx?.close();
    await t?.close();
  });

  it('lists the failed deliveries of every account of the environment for an operator key, newest first', async () => {
    const op = client(t.app, opTest);
    const res = await op('GET', '/v1/webhook_deliveries?status=failed');
    expect(res.status).toBe(200);
    expect(res.body.has_more).toBe(false);
    expect(ids(res.body)).toEqual([failed.b1.id, failed.a1.id]);
    const [boom, gone] = res.body.data;
    expect(gone).toEqual({
      id: failed.a1.id,
      object: 'webhook_delivery',
      account: a.accountId,
      event: failed.a1.event_id,
      event_type: 'order.created',
      endpoint: ep.a1.id,
      endpoint_url: rx.url('/gone'),
      order: failed.a1.order_id,
      status: 'failed',
      attempts: 1,
      last_error: expect.any(String),
      last_status_code: 410,
      created_at: new Date(failed.a1.created_at).toISOString(),
      completed_at: expect.any(String),
      livemode: false,
    });
    expect(boom).toMatchObject({ account: b.accountId, attempts: 2, last_status_code: 500, endpoint: ep.b1.id });

    // Narrowed to one account or one endpoint; paged by keyset.
    expect(ids((await op('GET', `/v1/webhook_deliveries?status=failed&account=${a.accountId}`)).body)).toEqual([
      failed.a1.id,
    ]);
    expect(ids((await op('GET', `/v1/webhook_deliveries?status=failed&endpoint=${ep.b1.id}`)).body)).toEqual([
      failed.b1.id,
    ]);
    expect((await op('GET', '/v1/webhook_deliveries?status=failed&account=acct_nobody')).body.data).toEqual([]);
    const page1 = await op('GET', '/v1/webhook_deliveries?status=failed&limit=1');
    expect(page1.body).toMatchObject({ has_more: true, data: [{ id: failed.b1.id }] });
    const page2 = await op('GET', `/v1/webhook_deliveries?status=failed&limit=1&starting_after=${failed.b1.id}`);
    expect(page2.body).toMatchObject({ has_more: false, data: [{ id: failed.a1.id }] });
  });

  it('lists and reads every account’s endpoints for the carrier, with status and account filters', async () => {
    const op = client(t.app, opTest);
    const all = await op('GET', '/v1/webhook_endpoints?limit=100');
    expect(all.status).toBe(200);
    expect(ids(all.body)).toEqual([ep.b1.id, ep.a2.id, ep.a1.id]);
    const disabled = await op('GET', '/v1/webhook_endpoints?status=disabled');
    expect(disabled.body.data).toHaveLength(1);
    expect(disabled.body.data[0]).toMatchObject({
      id: ep.a1.id,
      account: a.accountId,
      status: 'disabled',
      disabled_reason: 'http_410',
      livemode: false,
    });
    expect(disabled.body.data[0].secret).toBeUndefined();
    expect(ids((await op('GET', '/v1/webhook_endpoints?status=enabled')).body)).toEqual([ep.b1.id, ep.a2.id]);
    expect(ids((await op('GET', `/v1/webhook_endpoints?account=${b.accountId}`)).body)).toEqual([ep.b1.id]);
    const page = await op('GET', `/v1/webhook_endpoints?limit=1&starting_after=${ep.a2.id}`);
    expect(page.body).toMatchObject({ has_more: false, data: [{ id: ep.a1.id }] });
    const one = await op('GET', `/v1/webhook_endpoints/${ep.b1.id}`);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id: ep.b1.id, account: b.accountId, url: rx.url('/boom') });
    expect(one.body.secret).toBeUndefined();
  });

  it('never shows the other environment: test and live each see their own', async () => {
    const test = client(t.app, opTest);
    const live = client(t.app, opLive);
    expect(ids((await live('GET', '/v1/webhook_deliveries?status=failed')).body)).toEqual([failed.aLive.id]);
    expect((await live('GET', '/v1/webhook_deliveries?status=failed')).body.data[0].livemode).toBe(true);
    expect(ids((await live('GET', '/v1/webhook_endpoints')).body)).toEqual([ep.aLive.id]);
    expect((await test('GET', `/v1/webhook_endpoints/${ep.aLive.id}`)).status).toBe(404);
    expect((await live('GET', `/v1/webhook_endpoints/${ep.a1.id}`)).status).toBe(404);
    // A cursor from the other environment names nothing here.
    const cross = await test('GET', `/v1/webhook_deliveries?status=failed&starting_after=${failed.aLive.id}`);
    expect(cross.status).toBe(422);
    expect(cross.body.error.param).toBe('starting_after');
    const merchantLive = client(t.app, a.live);
    expect(ids((await merchantLive('GET', '/v1/webhook_deliveries?status=failed')).body)).toEqual([failed.aLive.id]);
    expect(ids((await merchantLive('GET', '/v1/webhook_endpoints')).body)).toEqual([ep.aLive.id]);
  });

  it('gives admins and dispatchers the operator’s view, in the environment they chose', async () => {
    for (const role of ['dispatcher', 'admin'] as const) {
      const s: Session = await userSession(t, role);
      const inTest = sessionClient(t, s);
      const inLive = sessionClient(t, s, 'live');
      expect(ids((await inTest('GET', '/v1/webhook_deliveries?status=failed')).body)).toEqual([
        failed.b1.id,
        failed.a1.id,
      ]);
      expect(ids((await inLive('GET', '/v1/webhook_deliveries?status=failed')).body)).toEqual([failed.aLive.id]);
      expect(ids((await inTest('GET', '/v1/webhook_endpoints?status=disabled')).body)).toEqual([ep.a1.id]);
      expect(ids((await inLive('GET', '/v1/webhook_endpoints?status=disabled')).body)).toEqual([ep.aLive.id]);
    }
  });

  it('shows a merchant only its own account, and refuses it another account in the filter', async () => {
    const keyA = client(t.app, a.test);
    expect(ids((await keyA('GET', '/v1/webhook_deliveries?status=failed')).body)).toEqual([failed.a1.id]);
    expect((await keyA('GET', `/v1/webhook_deliveries?status=failed&endpoint=${ep.b1.id}`)).body.data).toEqual([]);
    expect(ids((await keyA('GET', '/v1/webhook_endpoints')).body)).toEqual([ep.a2.id, ep.a1.id]);
    expect(ids((await keyA('GET', '/v1/webhook_endpoints?status=disabled')).body)).toEqual([ep.a1.id]);
    expect((await keyA('GET', `/v1/webhook_endpoints/${ep.b1.id}`)).status).toBe(404);
    for (const url of [
      `/v1/webhook_deliveries?status=failed&account=${b.accountId}`,
      `/v1/webhook_endpoints?account=${b.accountId}`,
    ]) {
      const res = await keyA('GET', url);
      expect(res.status, url).toBe(403);
      expect(res.body.error).toMatchObject({ code: 'permission_denied', param: 'account' });
    }
    // Its own account named is the same as none.
    expect(ids((await keyA('GET', `/v1/webhook_endpoints?account=${a.accountId}`)).body)).toEqual([ep.a2.id, ep.a1.id]);
    // Another account's delivery is no cursor for it.
    const cursor = await keyA('GET', `/v1/webhook_deliveries?status=failed&starting_after=${failed.b1.id}`);
    expect(cursor.status).toBe(422);
    // A merchant user is its account, like the key.
    const user = sessionClient(t, await userSession(t, 'merchant', b.accountId));
    expect(ids((await user('GET', '/v1/webhook_deliveries?status=failed')).body)).toEqual([failed.b1.id]);
    expect(ids((await user('GET', '/v1/webhook_endpoints')).body)).toEqual([ep.b1.id]);
  });

  it('lets the carrier read only: every change to an endpoint and every redelivery is refused', async () => {
    const op = client(t.app, opTest);
    const dispatcherUser = sessionClient(t, await userSession(t, 'dispatcher'));
    for (const call of [op, dispatcherUser]) {
      const attempts: [string, string, unknown][] = [
        ['PATCH', `/v1/webhook_endpoints/${ep.a1.id}`, { status: 'enabled' }],
        ['DELETE', `/v1/webhook_endpoints/${ep.a1.id}`, undefined],
        ['POST', `/v1/webhook_endpoints/${ep.a1.id}/rotate_secret`, {}],
        ['POST', `/v1/webhook_endpoints/${ep.a1.id}/test`, {}],
        ['POST', '/v1/webhook_endpoints', { url: rx.url('/x'), events: ['*'] }],
        ['POST', `/v1/events/${failed.a1.event_id}/redeliver`, {}],
      ];
      for (const [method, url, body] of attempts) {
        const res = await call(method as 'POST', url, body);
        expect(res.status, `${method} ${url}`).toBe(403);
        expect(res.body.error.code).toBe('permission_denied');
      }
    }
    expect((await client(t.app, a.test)('GET', `/v1/webhook_endpoints/${ep.a1.id}`)).body.status).toBe('disabled');
  });

  it('refuses couriers’ phones and callers without a key', async () => {
    const courier = (await client(t.app, opTest)('POST', '/v1/couriers', { name: 'Rider' })).body;
    const phone = sessionClient(t, await courierSession(t, opTest, courier.id));
    for (const url of [
      '/v1/webhook_deliveries?status=failed',
      '/v1/webhook_endpoints',
      `/v1/webhook_endpoints/${ep.a1.id}`,
    ]) {
      expect((await phone('GET', url)).status, url).toBe(403);
      expect((await client(t.app)('GET', url)).status, url).toBe(401);
    }
  });

  it('answers 422 to a malformed query', async () => {
    const op = client(t.app, opTest);
    const cases: [string, string][] = [
      ['/v1/webhook_deliveries', 'status'],
      ['/v1/webhook_deliveries?status=pending', 'status'],
      ['/v1/webhook_deliveries?status=failed&limit=0', 'limit'],
      ['/v1/webhook_deliveries?status=failed&limit=101', 'limit'],
      ['/v1/webhook_deliveries?status=failed&limit=ten', 'limit'],
      ['/v1/webhook_deliveries?status=failed&colour=red', 'colour'],
      ['/v1/webhook_deliveries?status=failed&account=', 'account'],
      ['/v1/webhook_deliveries?status=failed&starting_after=del_nope', 'starting_after'],
      [`/v1/webhook_deliveries?status=failed&starting_after=${(await deliveryOf(ep.a2.id))?.id}`, 'starting_after'],
      ['/v1/webhook_endpoints?status=paused', 'status'],
      ['/v1/webhook_endpoints?starting_after=we_nope', 'starting_after'],
      ['/v1/webhook_endpoints?limit=1000', 'limit'],
    ];
    for (const [url, param] of cases) {
      const res = await op('GET', url);
      expect(res.status, url).toBe(422);
      expect(res.body.error.param, url).toBe(param);
    }
  });

  it('reads failed deliveries through the partial index (an index range, not a scan of every delivery)', async () => {
    const plan = await t.ctx.db.transaction().execute(async (trx) => {
      // Tiny tables make a sequential scan cheapest; forbidding it shows whether the index is usable at all.
      if (engine === 'postgres') await sql`set local enable_seqscan = off`.execute(trx);
      const q = failedDeliveriesQuery(trx, { mode: 'test', accountId: null }, { limit: 20 });
      if (engine === 'postgres') return JSON.stringify(await q.explain());
      const { sql: text, parameters } = q.compile();
      const plan = await trx.executeQuery(CompiledQuery.raw(`EXPLAIN QUERY PLAN ${text}`, [...parameters]));
      return JSON.stringify(plan.rows);
    });
    expect(plan).toContain('webhook_deliveries_failed');
  });

  it('offers the console exactly the server’s event catalog (the web build imports it)', () => {
    expect([...CONSOLE_EVENT_TYPES]).toEqual([...EVENT_TYPES]);
  });
});
