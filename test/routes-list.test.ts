import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { listRoutesQuery, type RouteFilter } from '../src/features/dispatch/repo.js';
import { backfill } from '../src/shared/db/migrations/039_routes_dated.js';
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
import { courierSession, sessionClient } from './people-helpers.js';
import { explain } from './plan-helpers.js';

/**
 * GET /v1/routes: a day's routes and a courier's, newest first, each as GET /v1/routes/{id} reads
 * it. Every test makes its own couriers, so a day shared with another test is filtered by courier.
 */
describeEach('listing routes', (engine) => {
  let t: TestApp;
  let m: Merchant;
  let op: string;
  let opLive: string;

  beforeAll(async () => {
    t = await startApp(engine);
    m = await newMerchant(t);
    op = await newOperator(t, 'test');
    opLive = await newOperator(t, 'live');
  });
  afterAll(async () => t?.close());

  /** A courier and `n` routes of one order each, in this order of creation (`date` null: not given). */
  async function courierWithRoutes(name: string, dates: (string | null)[]) {
    const call = client(t.app, op);
    const courier = (await call('POST', '/v1/couriers', { name })).body;
    const routes = [];
    for (const date of dates) {
      const order = (await client(t.app, m.test)('POST', '/v1/orders', validOrder())).body;
      const res = await call('POST', '/v1/routes', {
        courier_id: courier.id,
        order_ids: [order.id],
        ...(date ? { date } : {}),
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      routes.push(res.body);
    }
    return { courier, routes };
  }

  it('lists a courier’s routes newest first, each as it reads alone, and pages through them', async () => {
    const call = client(t.app, op);
    const { courier, routes } = await courierWithRoutes('Lista', ['2031-03-01', null, '2031-03-02']);
    const list = await call('GET', `/v1/routes?courier=${courier.id}`);
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ object: 'list', has_more: false });
    expect(list.body.data.map((r: any) => r.id)).toEqual(routes.map((r) => r.id).reverse());
    for (const r of list.body.data) expect(r).toEqual((await call('GET', `/v1/routes/${r.id}`)).body);
    expect(list.body.data[0]).toMatchObject({ courier: { id: courier.id, name: 'Lista' }, date: '2031-03-02' });
    expect(list.body.data[0].stops).toHaveLength(1);

    const first = await call('GET', `/v1/routes?courier=${courier.id}&limit=2`);
    expect(first.body.data.map((r: any) => r.id)).toEqual([routes[2]?.id, routes[1]?.id]);
    expect(first.body.has_more).toBe(true);
    const next = await call('GET', `/v1/routes?courier=${courier.id}&limit=2&starting_after=${routes[1]?.id}`);
    expect(next.body).toMatchObject({ data: [{ id: routes[0]?.id }], has_more: false });
    const bad = await call('GET', '/v1/routes?starting_after=rte_nope');
    expect(bad.status).toBe(422);
    expect(bad.body.error).toMatchObject({ code: 'parameter_invalid', param: 'starting_after' });
  });

  it('lists one day’s routes by their date', async () => {
    const call = client(t.app, op);
    const a = await courierWithRoutes('Día A', ['2031-04-10', '2031-04-12']);
    const b = await courierWithRoutes('Día B', ['2031-04-10', '2031-04-11']);
    const day = (await call('GET', '/v1/routes?date=2031-04-10&limit=100')).body.data.map((r: any) => r.id);
    expect(day).toContain(a.routes[0]?.id);
    expect(day).toContain(b.routes[0]?.id);
    for (const r of [a.routes[1], b.routes[1]]) expect(day).not.toContain(r?.id);
    const both = await call('GET', `/v1/routes?date=2031-04-11&courier=${b.courier.id}`);
    expect(both.body.data.map((r: any) => r.id)).toEqual([b.routes[1]?.id]);
    expect((await call('GET', `/v1/routes?date=2031-04-11&courier=${a.courier.id}`)).body.data).toEqual([]);
    expect((await call('GET', '/v1/routes?date=2031-02-30')).body.error).toMatchObject({ param: 'date' });
  });

  it('shows a stop re-assigned to another courier as no longer on the route', async () => {
    const call = client(t.app, op);
    const { courier, routes } = await courierWithRoutes('Antes', ['2031-05-01']);
    const other = (await call('POST', '/v1/couriers', { name: 'Después' })).body;
    const order = routes[0]?.stops[0].order;
    expect((await call('POST', `/v1/orders/${order}/assign`, { courier_id: other.id })).status).toBe(200);
    const listed = (await call('GET', `/v1/routes?courier=${courier.id}`)).body.data;
    expect(listed[0].stops[0]).toMatchObject({ order, on_route: false });
  });

  it('keeps environments, accounts and couriers apart', async () => {
    const { courier, routes } = await courierWithRoutes('Aparte', ['2031-06-01']);
    const mine = `/v1/routes?courier=${courier.id}`;
    // The live environment, and a merchant (its own sandbox couriers only), see none of it.
    expect((await client(t.app, opLive)('GET', mine)).body.data).toEqual([]);
    expect((await client(t.app, m.test)('GET', mine)).body.data).toEqual([]);
    expect((await client(t.app, m.test)('GET', '/v1/routes?date=2031-06-01')).body.data).toEqual([]);
    // A courier's phone lists its own routes, and no other courier's.
    const phone = sessionClient(t, await courierSession(t, op, courier.id));
    expect((await phone('GET', '/v1/routes')).body.data.map((r: any) => r.id)).toEqual([routes[0]?.id]);
    const stranger = await courierWithRoutes('Otro', ['2031-06-01']);
    expect((await phone('GET', `/v1/routes?courier=${stranger.courier.id}`)).body.data).toEqual([]);
    expect((await phone('GET', '/v1/routes?date=2031-06-01')).body.data.map((r: any) => r.id)).toEqual([routes[0]?.id]);
  });
});

describeEach('listing routes: the query', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(engine);
  });
  afterAll(async () => t?.close());

  it('reads a day’s page and a courier’s page by index, without a sort or a full scan', async () => {
    const operator = { mode: 'test' as const, accountId: null };
    const cases: [string, RouteFilter, string][] = [
      ['routes of a day', { date: '2031-04-10', limit: 100, after: 'rte_01Z' }, 'routes_day'],
      ['routes of a courier', { courier: 'cou_x', limit: 20 }, 'routes_courier'],
    ];
    for (const [name, filter, index] of cases) {
      const plan = await explain(t.ctx.db, engine, listRoutesQuery(t.ctx.db, operator, filter).compile(), [
        'enable_seqscan',
        'enable_bitmapscan',
        'enable_sort',
      ]);
      expect(
        plan.nodes.filter((n) => n.table === 'routes').map((n) => n.index),
        plan.text,
      ).toEqual([index]);
      expect(
        plan.nodes.filter((n) => n.fullScan || n.sort).map((n) => n.label),
        plan.text,
      ).toEqual([]);
      await expect(plan.text).toMatchFileSnapshot(`./fixtures/plans/${engine}/${name.replace(/ /g, '-')}.txt`);
    }
  });
});

/**
 * A route made without a `date` is on the day it was made, in its courier's depot's zone, else its
 * first order's; 039_routes_dated dates the routes made before that the same way. 03:00 UTC is still
 * the 6th in Lima (UTC-5) and already noon of the 7th in Tokyo (UTC+9).
 */
describeEach('a route made without a date', (engine) => {
  let t: TestApp;
  let m: Merchant;
  let op: string;
  const now = Date.parse('2026-12-07T03:00:00Z');

  beforeAll(async () => {
    t = await startApp(engine, { RUTA_DEFAULT_TIMEZONE: 'America/Lima' }, { clock: () => now });
    m = await newMerchant(t);
    op = await newOperator(t, 'test');
  });
  afterAll(async () => t?.close());

  async function routeOf(courier: Record<string, unknown>) {
    const call = client(t.app, op);
    const c = (await call('POST', '/v1/couriers', courier)).body;
    const order = (await client(t.app, m.test)('POST', '/v1/orders', validOrder())).body;
    expect(order.timezone).toBe('America/Lima');
    const res = await call('POST', '/v1/routes', { courier_id: c.id, order_ids: [order.id] });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body;
  }

  it('is on the day it was made where its courier starts, else where its order is due; old ones are dated so', async () => {
    const call = client(t.app, op);
    const tokyo = (
      await call('POST', '/v1/depots', { name: 'Shinjuku', lat: 35.69, lng: 139.7, timezone: 'Asia/Tokyo' })
    ).body;
    const east = await routeOf({ name: 'Kenji', start_depot: tokyo.id });
    const west = await routeOf({ name: 'Rosa' });
    expect(east.date).toBe('2026-12-07');
    expect(west.date).toBe('2026-12-06');
    expect((await call('GET', `/v1/routes/${west.id}`)).body.date).toBe('2026-12-06');
    const onThe6th = (await call('GET', '/v1/routes?date=2026-12-06&limit=100')).body.data.map((r: any) => r.id);
    expect(onThe6th).toContain(west.id);
    expect(onThe6th).not.toContain(east.id);

    // As the routes were before 039: no date. The backfill reads them in the same zones, and leaves a
    // dated route alone (the carrier's zone given to it, UTC, would make the western one the 7th).
    const dated = await routeOf({ name: 'Fecha' });
    await sql`update routes set date = null where id in (${east.id}, ${west.id})`.execute(t.ctx.db);
    await backfill(t.ctx.db, 'UTC', 1);
    for (const [r, day] of [
      [east, '2026-12-07'],
      [west, '2026-12-06'],
      [dated, '2026-12-06'],
    ] as const) {
      expect((await call('GET', `/v1/routes/${r.id}`)).body.date).toBe(day);
    }
  });
});
