import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { createKey, revoke } from '../src/features/accounts/service.js';
import { STREAM_HUB } from '../src/features/stream/hub.js';
import { visibleTo } from '../src/features/stream/scope.js';
import { loadConfig } from '../src/shared/config.js';
import { createContext } from '../src/shared/context.js';
import { openDatabase } from '../src/shared/db/index.js';
import { migrate } from '../src/shared/db/migrate.js';
import {
  attachApp,
  client,
  describeEach,
  freshDatabaseUrl,
  type Merchant,
  newMerchant,
  newOperator,
  startApp,
  type TestApp,
  validOrder,
} from './helpers.js';
import { openStream, type SseMessage, type SseStream } from './stream-client.js';

const orderEvent =
  (orderId: string, type = 'order.created') =>
  (m: SseMessage) =>
    m.event === 'order' && m.data.event === type && m.data.data.id === orderId;
/** An event id of time `ms` (ids are time-ordered: 10 Crockford characters of milliseconds first). */
function eventIdAt(ms: number): string {
  const A = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
  let t = '';
  for (let i = 0, v = ms; i < 10; i++, v = Math.floor(v / 32)) t = A[v % 32] + t;
  return `evt_${t}0000ABCDEFGHJKMN`;
}
const orderIds = (s: SseStream) => s.messages.filter((m) => m.event === 'order').map((m) => m.data.data.id as string);

describeEach('live stream (GET /v1/stream)', (engine) => {
  let t: TestApp;
  let a: Merchant;
  let b: Merchant;
  let op: string;
  let opLive: string;
  const open: SseStream[] = [];
  const stream = async (key: string | undefined, headers: Record<string, string> = {}) => {
    const s = await openStream(t.app, key, headers);
    open.push(s);
    return s;
  };
  const order = async (key: string, ext: string) => {
    const res = await client(t.app, key)('POST', '/v1/orders', validOrder({ external_order_id: ext }));
    expect(res.status).toBe(201);
    return res.body as { id: string };
  };

  beforeAll(async () => {
    t = await startApp(engine, { RUTA_STREAM_HEARTBEAT_MS: '50', RUTA_STREAM_MAX_PER_KEY: '3' });
    a = await newMerchant(t, 'A');
    b = await newMerchant(t, 'B');
    op = await newOperator(t, 'test');
    opLive = await newOperator(t, 'live');
  });
  afterAll(async () => {
    for (const s of open) s.close();
    await t?.close();
  });

  it('sends an order event created through the API, in the webhook envelope, with its id', async () => {
    const s = await stream(a.test);
    expect(s.status).toBe(200);
    expect(s.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(s.headers['request-id']).toMatch(/^req_/);
    const o = await order(a.test, 'S-1');
    const m = await s.next(orderEvent(o.id));
    expect(m.id).toBe(m.data.id);
    expect(m.data).toMatchObject({ object: 'event', event: 'order.created', livemode: false });
    const stored = await client(t.app, a.test)('GET', `/v1/events/${m.data.id}`);
    expect(stored.status).toBe(200);
    // The same envelope the webhooks send: the stored payload, byte for byte.
    const row = await t.ctx.db.selectFrom('events').select('payload').where('id', '=', m.data.id).executeTakeFirst();
    expect(JSON.stringify(m.data)).toBe(row?.payload);
    s.close();
  });

  it('keeps scopes apart: accounts, environments, operators see their whole environment', async () => {
    const [sa, sb, saLive, sop, sopLive] = await Promise.all([
      stream(a.test),
      stream(b.test),
      stream(a.live),
      stream(op),
      stream(opLive),
    ]);
    const ob = await order(b.test, 'B-1');
    const oaLive = await order(a.live, 'A-LIVE');
    const oa = await order(a.test, 'A-1');
    // The operator stream sees every test order; once it has the last one, every stream has had its chance.
    await sop.next(orderEvent(oa.id));
    await sa.next(orderEvent(oa.id));
    await sb.next(orderEvent(ob.id));
    await saLive.next(orderEvent(oaLive.id));
    await sopLive.next(orderEvent(oaLive.id));
    expect(orderIds(sop)).toEqual(expect.arrayContaining([ob.id, oa.id]));
    expect(orderIds(sop)).not.toContain(oaLive.id);
    expect(orderIds(sa)).toContain(oa.id);
    expect(orderIds(sa)).not.toContain(ob.id);
    expect(orderIds(sa)).not.toContain(oaLive.id);
    expect(orderIds(sb)).toEqual([ob.id]);
    expect(orderIds(saLive)).toEqual([oaLive.id]);
    expect(orderIds(sopLive)).toEqual([oaLive.id]);

    // Courier positions: a sandbox courier is its account's; the carrier's own are for operators only.
    const mine = (await client(t.app, a.test)('POST', '/v1/couriers', { name: 'A courier' })).body;
    const theirs = (await client(t.app, b.test)('POST', '/v1/couriers', { name: 'B courier' })).body;
    const carrier = (await client(t.app, op)('POST', '/v1/couriers', { name: 'Carrier' })).body;
    await client(t.app, b.test)('POST', `/v1/couriers/${theirs.id}/location`, { lat: -12.2, lng: -77.2 });
    await client(t.app, op)('POST', `/v1/couriers/${carrier.id}/location`, { lat: -12.3, lng: -77.3 });
    await client(t.app, a.test)('POST', `/v1/couriers/${mine.id}/location`, { lat: -12.1, lng: -77.1 });
    const loc = (id: string) => (m: SseMessage) => m.event === 'courier.location' && m.data.courier === id;
    for (const id of [theirs.id, carrier.id, mine.id]) await sop.next(loc(id), `location of ${id}`);
    const got = await sa.next(loc(mine.id));
    expect(got.data).toMatchObject({ courier: mine.id, lat: -12.1, lng: -77.1 });
    expect(got.id).toBe(sa.lastId);
    expect(sa.messages.filter((m) => m.event === 'courier.location').map((m) => m.data.courier)).toEqual([mine.id]);
    expect(sb.messages.filter((m) => m.event === 'courier.location').map((m) => m.data.courier)).toEqual([theirs.id]);
    for (const s of [saLive, sopLive]) expect(s.messages.some((m) => m.event === 'courier.location')).toBe(false);
    for (const s of [sa, sb, saLive, sop, sopLive]) s.close();
  });

  it('resumes after Last-Event-ID: the missed events of its scope, in order, at most an hour back', async () => {
    const s1 = await stream(a.test);
    const o1 = await order(a.test, 'R-1');
    const e1 = await s1.next(orderEvent(o1.id));
    s1.close();
    await s1.ended;
    const o2 = await order(a.test, 'R-2');
    const other = await order(b.test, 'R-B');
    const o3 = await order(a.test, 'R-3');
    const s2 = await stream(a.test, { 'last-event-id': e1.id! });
    await s2.next(orderEvent(o3.id));
    expect(orderIds(s2)).toEqual([o2.id, o3.id]);
    expect(orderIds(s2)).not.toContain(other.id);
    s2.close();

    // Nothing older than an hour is replayed: a cursor older still is told to reload (event: reset).
    const old = Date.now() - 2 * 3600_000;
    const oldId = eventIdAt(old);
    await t.ctx.db
      .insertInto('events')
      .values({
        id: oldId,
        account_id: a.accountId,
        mode: 'test',
        type: 'order.created',
        order_id: null,
        payload: JSON.stringify({ id: oldId, object: 'event', event: 'order.created', data: { id: 'ord_old' } }),
        created_at: old,
      })
      .execute();
    const s3 = await stream(a.test, { 'last-event-id': eventIdAt(old - 1000) });
    const reset = await s3.next((m) => m.event === 'reset');
    expect(reset.data).toEqual({ reason: 'too_old' });
    const o4 = await order(a.test, 'R-4');
    await s3.next(orderEvent(o4.id));
    // (The row inserted above is itself a new commit, which the live path may still bring.)
    expect(orderIds(s3).filter((id) => id !== 'ord_old')).toEqual([o4.id]);
    s3.close();

    // A malformed Last-Event-ID starts live, like none.
    const s4 = await stream(a.test, { 'last-event-id': 'nonsense' });
    expect(s4.status).toBe(200);
    expect(s4.lastId).toMatch(/^evt_/);
    s4.close();
  });

  it('sends heartbeat comments', async () => {
    const s = await stream(op);
    await s.comment('heartbeat');
    expect(s.messages).toEqual([]);
    s.close();
  });

  it('needs a key, and caps the streams open per key (429)', async () => {
    const none = await openStream(t.app, undefined);
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe('api_key_missing');
    const spare = await createKey(t.ctx, { role: 'merchant', mode: 'test', accountId: a.accountId });
    await revoke(t.ctx, spare.id);
    const revoked = await openStream(t.app, spare.secret);
    expect(revoked.status).toBe(401);
    expect(revoked.body.error.code).toBe('api_key_invalid');
    const key = (await newMerchant(t, 'Capped')).test;
    const three = await Promise.all([stream(key), stream(key), stream(key)]);
    expect(three.map((s) => s.status)).toEqual([200, 200, 200]);
    const fourth = await openStream(t.app, key);
    expect(fourth.status).toBe(429);
    expect(fourth.body.error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limited' });
    // Another key is not affected.
    const other = await stream(b.test);
    expect(other.status).toBe(200);
    other.close();
    three[0]!.close();
    await three[0]!.ended;
    // The server sees the hang-up shortly after; until then the cap may still answer 429.
    let again = await openStream(t.app, key);
    for (let i = 0; i < 50 && again.status === 429; i++) {
      await new Promise((r) => setTimeout(r, 20));
      again = await openStream(t.app, key);
    }
    expect(again.status).toBe(200);
    again.close();
    for (const s of three) s.close();
  });

  if (engine === 'postgres') {
    it('delivers commits made through another instance on the same database', async () => {
      const second = await attachApp(t);
      try {
        const s = await stream(op);
        const res = await client(second.app, a.test)('POST', '/v1/orders', validOrder({ external_order_id: 'X-1' }));
        expect(res.status).toBe(201);
        await s.next(orderEvent(res.body.id));
        const c = (await client(second.app, op)('POST', '/v1/couriers', { name: 'Far' })).body;
        await client(second.app, op)('POST', `/v1/couriers/${c.id}/location`, { lat: -12.5, lng: -77.5 });
        const m = await s.next((x) => x.event === 'courier.location' && x.data.courier === c.id);
        expect(m.data).toMatchObject({ lat: -12.5, lng: -77.5 });
        s.close();
      } finally {
        await second.close();
      }
    });
  }
});

describeEach('live stream: throttling and shutdown', (engine) => {
  it('sends at most one position per courier per second (the clock is the context clock)', async () => {
    const tdb = await freshDatabaseUrl(engine);
    const config = loadConfig({ DATABASE_URL: tdb.url, RUTA_LOG_LEVEL: 'silent' });
    const database = openDatabase(config.databaseUrl);
    await migrate(database);
    let now = Date.parse('2030-01-01T10:00:00Z');
    const ctx = createContext(database, config, { clock: () => now });
    const app = await buildApp(ctx);
    const key = await newOperator({ ctx } as TestApp, 'test');
    const call = client(app, key);
    let s: SseStream | undefined;
    try {
      const [c1, c2] = [
        (await call('POST', '/v1/couriers', { name: 'One' })).body,
        (await call('POST', '/v1/couriers', { name: 'Two' })).body,
      ];
      s = await openStream(app, key);
      const ping = (id: string, lat: number) => call('POST', `/v1/couriers/${id}/location`, { lat, lng: -77 });
      await ping(c1.id, -12.0);
      await ping(c2.id, -13.0); // another courier has its own window
      now += 200;
      await ping(c1.id, -12.1);
      now += 300;
      await ping(c1.id, -12.2);
      now += 500; // a second after the first
      await ping(c1.id, -12.3);
      const of = (id: string) =>
        s!.messages.filter((m) => m.event === 'courier.location' && m.data.courier === id).map((m) => m.data.lat);
      await s.next((m) => m.event === 'courier.location' && m.data.lat === -12.3);
      await s.next((m) => m.event === 'courier.location' && m.data.lat === -13.0);
      expect(of(c1.id)).toEqual([-12.0, -12.3]);
      expect(of(c2.id)).toEqual([-13.0]);
      // The suppressed pings still moved the courier and reached the history.
      expect((await call('GET', `/v1/couriers/${c1.id}`)).body.location.lat).toBe(-12.3);
      expect((await call('GET', `/v1/couriers/${c1.id}/locations`)).body.data.map((p: any) => p.lat)).toEqual([
        -12.3, -12.2, -12.1, -12.0,
      ]);
    } finally {
      s?.close();
      await app.close();
      await database.close();
      await tdb.drop();
    }
  });

  it('app.close() ends open streams instead of waiting for them', async () => {
    const t = await startApp(engine);
    const key = (await newMerchant(t)).test;
    const s = await openStream(t.app, key);
    expect(s.status).toBe(200);
    expect(t.ctx.instance.peek(STREAM_HUB)?.size).toBe(1);
    await t.close();
    await s.ended;
    expect(t.ctx.instance.peek(STREAM_HUB)?.size).toBe(0);
  });
});

describe('visibleTo: the one scope rule of the stream', () => {
  it('checks environment, account and courier', () => {
    const order = { mode: 'test' as const, accountId: 'acct_A' };
    const carrierCourier = { mode: 'test' as const, accountId: null, courierId: 'cou_1' };
    const merchant = { mode: 'test' as const, accountId: 'acct_A' };
    const operator = { mode: 'test' as const, accountId: null };
    const courier = { mode: 'test' as const, accountId: null, courierId: 'cou_1' };
    expect(visibleTo(merchant, order)).toBe(true);
    expect(visibleTo({ ...merchant, accountId: 'acct_B' }, order)).toBe(false);
    expect(visibleTo({ ...merchant, mode: 'live' }, order)).toBe(false);
    expect(visibleTo(operator, order)).toBe(true);
    expect(visibleTo({ ...operator, mode: 'live' }, order)).toBe(false);
    expect(visibleTo(merchant, carrierCourier)).toBe(false);
    expect(visibleTo(operator, carrierCourier)).toBe(true);
    expect(visibleTo(courier, carrierCourier)).toBe(true);
    expect(visibleTo({ ...courier, courierId: 'cou_2' }, carrierCourier)).toBe(false);
    expect(visibleTo(courier, order)).toBe(false);
  });
});
