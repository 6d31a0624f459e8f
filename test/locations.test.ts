import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/shared/config.js';
import { createContext } from '../src/shared/context.js';
import { openDatabase } from '../src/shared/db/index.js';
import { migrate } from '../src/shared/db/migrate.js';
import {
  client,
  describeEach,
  freshDatabaseUrl,
  type Merchant,
  newMerchant,
  newOperator,
  startApp,
  type TestApp,
} from './helpers.js';
import { orderIn } from './lifecycle-helpers.js';

/** Points are timed from the last courier made: two minutes before it (within the clock skew allowed), a second apart. */
let t0 = 0;
const at = (s: number) => new Date(t0 + s * 1000).toISOString();
const pt = (s: number, lat = -12 - s / 1000, lng = -77) => ({ lat, lng, recorded_at: at(s) });
const timedFrom = <C extends { created_at: string }>(courier: C): C => {
  t0 = Date.parse(courier.created_at) - 120_000;
  return courier;
};

describeEach('courier locations: batches, history, scope', (engine) => {
  let t: TestApp;
  let m: Merchant;
  let other: Merchant;
  let op: string;

  beforeAll(async () => {
    t = await startApp(engine);
    m = await newMerchant(t);
    other = await newMerchant(t, 'Other');
    op = await newOperator(t, 'test');
  });
  afterAll(async () => t?.close());

  const courier = async (key = op) =>
    timedFrom((await client(t.app, key)('POST', '/v1/couriers', { name: 'Batcher' })).body);

  it('a batch goes to the history; only points newer than the current one move the courier', async () => {
    const call = client(t.app, op);
    const c = await courier();
    const first = await call('POST', `/v1/couriers/${c.id}/locations`, { points: [pt(1), pt(2), pt(10)] });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ id: c.id, object: 'courier' });
    expect(first.body.location).toEqual({ lat: -12.01, lng: -77, recorded_at: at(10) });
    // Late points (a phone's backlog): kept, but the courier stays where its newest fix put it.
    const late = await call('POST', `/v1/couriers/${c.id}/locations`, {
      points: [pt(5), { ...pt(6), accuracy_m: 12.5, speed_mps: 3.2, heading: 270 }],
    });
    expect(late.status).toBe(200);
    expect(late.body.location.recorded_at).toBe(at(10));
    const mixed = await call('POST', `/v1/couriers/${c.id}/locations`, { points: [pt(8), pt(12)] });
    expect(mixed.body.location).toEqual({ lat: -12.012, lng: -77, recorded_at: at(12) });
    const single = await call('POST', `/v1/couriers/${c.id}/location`, pt(11));
    expect(single.body.location.recorded_at).toBe(at(12));
    expect((await call('GET', `/v1/couriers/${c.id}`)).body.location.recorded_at).toBe(at(12));
    const hist = await call('GET', `/v1/couriers/${c.id}/locations`);
    expect(hist.body.data.map((p: { recorded_at: string }) => p.recorded_at)).toEqual(
      [11, 12, 8, 6, 5, 10, 2, 1].map(at),
    );
  });

  it('keeps the last 100 points of a courier however they arrive', async () => {
    const call = client(t.app, op);
    const c = await courier();
    const points = Array.from({ length: 100 }, (_, i) => pt(i));
    expect((await call('POST', `/v1/couriers/${c.id}/locations`, { points })).status).toBe(200);
    for (let i = 100; i < 103; i++) await call('POST', `/v1/couriers/${c.id}/location`, pt(i));
    const hist = (await call('GET', `/v1/couriers/${c.id}/locations`)).body.data;
    expect(hist).toHaveLength(100);
    expect(hist[0].recorded_at).toBe(at(102));
    expect(hist[99].recorded_at).toBe(at(3));
  });

  it('validates every point, naming it (422 with param)', async () => {
    const call = client(t.app, op);
    const c = await courier();
    const cases: [unknown, string, string][] = [
      [{}, 'points', 'parameter_missing'],
      [{ points: [] }, 'points', 'parameter_invalid'],
      [{ points: Array.from({ length: 101 }, (_, i) => pt(i)) }, 'points', 'parameter_invalid'],
      [{ points: [pt(1), { ...pt(2), lat: 91 }] }, 'points[1].lat', 'parameter_invalid'],
      [{ points: [{ ...pt(1), lng: '-77' }] }, 'points[0].lng', 'parameter_invalid'],
      [{ points: [{ lat: 1, lng: 1 }] }, 'points[0].recorded_at', 'parameter_missing'],
      [{ points: [{ ...pt(1), recorded_at: 'yesterday' }] }, 'points[0].recorded_at', 'parameter_invalid'],
      [
        { points: [pt(1), { ...pt(2), recorded_at: '2999-01-01T00:00:00Z' }] },
        'points[1].recorded_at',
        'parameter_invalid',
      ],
      [{ points: [pt(5), pt(4)] }, 'points[1].recorded_at', 'parameter_invalid'],
      [{ points: [{ ...pt(1), heading: 400 }] }, 'points[0].heading', 'parameter_invalid'],
      [{ points: [{ ...pt(1), altitude: 3 }] }, 'points[0].altitude', 'parameter_unknown'],
      [{ points: [pt(1)], extra: 1 }, 'extra', 'parameter_unknown'],
    ];
    for (const [body, param, code] of cases) {
      const res = await call('POST', `/v1/couriers/${c.id}/locations`, body);
      expect(res.status, param).toBe(422);
      expect(res.body.error, param).toMatchObject({ param, code });
    }
    // Nothing of a refused batch was kept.
    expect((await call('GET', `/v1/couriers/${c.id}/locations`)).body.data).toEqual([]);
  });

  it('is scoped like the single-point route', async () => {
    const sandbox = await courier(m.test);
    const carrier = await courier(op);
    const body = { points: [pt(1)] };
    expect((await client(t.app, m.test)('POST', `/v1/couriers/${sandbox.id}/locations`, body)).status).toBe(200);
    expect((await client(t.app, other.test)('POST', `/v1/couriers/${sandbox.id}/locations`, body)).status).toBe(404);
    expect((await client(t.app, m.test)('POST', `/v1/couriers/${carrier.id}/locations`, body)).status).toBe(404);
    expect((await client(t.app, m.live)('POST', `/v1/couriers/${sandbox.id}/locations`, body)).status).toBe(403);
    expect((await client(t.app)('POST', `/v1/couriers/${sandbox.id}/locations`, body)).status).toBe(401);
    const unknown = await client(t.app, op)('POST', '/v1/couriers/cou_nope/locations', body);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('resource_missing');
    // The single route refuses the same way when the courier is cached from an earlier ping.
    await client(t.app, m.test)('POST', `/v1/couriers/${sandbox.id}/location`, { lat: 1, lng: 1 });
    expect(
      (await client(t.app, other.test)('POST', `/v1/couriers/${sandbox.id}/location`, { lat: 1, lng: 1 })).status,
    ).toBe(404);
  });

  it('reads show an acknowledged ping, which is already stored: courier, list, tracking', async () => {
    const c = await courier();
    const o = await orderIn(t, m.test, op, c.id, 'in_transit');
    const res = await client(t.app, op)('POST', `/v1/couriers/${c.id}/location`, { lat: -12.111, lng: -77.022 });
    expect(res.status).toBe(200);
    // Stored before the answer (issue 18 #11)...
    const row = await t.ctx.db.selectFrom('couriers').select('last_lat').where('id', '=', c.id).executeTakeFirst();
    expect(row?.last_lat).toBe(-12.111);
    // ...and every read shows it.
    expect((await client(t.app, op)('GET', `/v1/couriers/${c.id}`)).body.location.lat).toBe(-12.111);
    const list = (await client(t.app, op)('GET', '/v1/couriers?limit=100')).body.data;
    expect(list.find((x: { id: string }) => x.id === c.id).location.lat).toBe(-12.111);
    const tracking = (await client(t.app, m.test)('GET', `/v1/orders/${o.id}/tracking`)).body;
    expect(tracking.courier).toMatchObject({ lat: -12.111, lng: -77.022 });
    expect(tracking.eta_minutes).toEqual(expect.any(Number));
  });
});

describeEach('courier locations: acknowledged pings survive a restart', (engine) => {
  it('posts pings, closes the app, reopens the database: every acknowledged point is there', async () => {
    const tdb = await freshDatabaseUrl(engine);
    const env = { DATABASE_URL: tdb.url, RUTA_LOG_LEVEL: 'silent' };
    const open = async () => {
      const config = loadConfig(env);
      const database = openDatabase(config.databaseUrl);
      await migrate(database);
      const ctx = createContext(database, config);
      return { ctx, database, app: await buildApp(ctx) };
    };
    const first = await open();
    try {
      const key = await newOperator({ ctx: first.ctx } as TestApp, 'test');
      const call = client(first.app, key);
      const c = timedFrom((await call('POST', '/v1/couriers', { name: 'Durable' })).body);
      const acks = await Promise.all(
        Array.from({ length: 20 }, (_, i) => call('POST', `/v1/couriers/${c.id}/location`, pt(i))),
      );
      expect(acks.map((r) => r.status)).toEqual(Array(20).fill(200));
      expect((await call('POST', `/v1/couriers/${c.id}/locations`, { points: [pt(20), pt(21)] })).status).toBe(200);
      await first.app.close();
      await first.database.close();

      const second = await open();
      try {
        const call2 = client(second.app, key);
        const got = (await call2('GET', `/v1/couriers/${c.id}`)).body;
        expect(got.location).toEqual({ lat: pt(21).lat, lng: -77, recorded_at: at(21) });
        const hist = (await call2('GET', `/v1/couriers/${c.id}/locations`)).body.data;
        expect(hist).toHaveLength(22);
        expect(new Set(hist.map((p: { recorded_at: string }) => p.recorded_at))).toEqual(
          new Set(Array.from({ length: 22 }, (_, i) => at(i))),
        );
      } finally {
        await second.app.close();
        await second.database.close();
      }
    } finally {
      await tdb.drop();
    }
  });
});
