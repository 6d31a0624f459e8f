import { sql } from 'kysely';
import { beforeAll, beforeEach, expect, it } from 'vitest';
import { countOrdersQuery, listOrdersQuery } from '../src/features/orders/list-repo.js';
import { backfill } from '../src/shared/db/migrations/009_order_board.js';
import {
  client,
  describeEach,
  type Merchant,
  newMerchant,
  type TestApp,
  useApp,
  useOperator,
  validOrder,
} from './helpers.js';
import { courierSession, sessionClient, userSession } from './people-helpers.js';
import { explain, INDEX_ONLY } from './plan-helpers.js';

/**
 * The dispatch board's server side (DESIGN §8, issue #9): GET /v1/orders/counts, the due-date
 * filter (due_gte/due_lt) and the search, on the list and the counts, in every scope.
 */

// A day in Lima (UTC-5): 2030-03-10 from 05:00Z to 05:00Z the next day.
const DAY = { due_gte: '2030-03-10T00:00:00-05:00', due_lt: '2030-03-11T00:00:00-05:00' };
const qs = (q: Record<string, string>) => new URLSearchParams(q).toString();

/** Account A, test: José due on DAY, Joselyn late on DAY (the next day in UTC), Ana due now (no date), cancelled. */
type Board = { a: Merchant; b: Merchant; o: Record<string, { id: string; tracking_code: string }> };

/** The board's orders, in two new accounts of `t` (and one live order of A). */
async function seedBoard(t: TestApp): Promise<Board> {
  const a = await newMerchant(t, 'A');
  const b = await newMerchant(t, 'B');
  const o: Board['o'] = {};
  const make = async (key: string, over: Record<string, unknown>) => {
    const res = await client(t.app, key)('POST', '/v1/orders', validOrder(over));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body;
  };
  o.jose = await make(a.test, {
    customer: { name: 'José Pérez', phone: '+51987654321' },
    external_order_id: 'SHOP-1',
    requested_date: '2030-03-10T09:00:00-05:00',
  });
  o.joselyn = await make(a.test, {
    customer: { name: '  joselyn   RUIZ ', whatsapp: '+51911112222' },
    external_order_id: 'SHOP-10',
    source: 'excel',
    requested_date: '2030-03-10T23:30:00-05:00',
  });
  o.ana = await make(a.test, { customer: { name: 'Ana Torres' }, external_order_id: 'SHOP-2' });
  expect((await client(t.app, a.test)('POST', `/v1/orders/${o.ana.id}/cancel`)).status).toBe(200);
  o.bJose = await make(b.test, {
    customer: { name: 'Jose Bravo', phone: '+51987654321' },
    external_order_id: 'SHOP-1',
    requested_date: '2030-03-10T10:00:00-05:00',
  });
  o.live = await make(a.live, {
    customer: { name: 'José Live' },
    external_order_id: 'SHOP-1',
    requested_date: '2030-03-10T10:00:00-05:00',
  });
  return { a, b, o };
}

/** Reads the list and the counts of `t` as `key`, and names the board's orders. */
function boardClient(t: TestApp, board: () => Board) {
  const ids = (res: { body: { data: { id: string }[] } }) => res.body.data.map((x) => x.id).sort();
  return {
    idsOf: (...names: string[]) => names.map((n) => board().o[n]!.id).sort(),
    async list(key: string, q: Record<string, string>) {
      const res = await client(t.app, key)('GET', `/v1/orders?${qs({ limit: '100', ...q })}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return ids(res);
    },
    async counts(key: string, q: Record<string, string> = {}) {
      const res = await client(t.app, key)('GET', `/v1/orders/counts?${qs(q)}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body;
    },
  };
}

// What a merchant sees: every test has its own two accounts, so none sees what another made or moved.
describeEach('dispatch board API', (engine) => {
  const t = useApp(engine);
  let board: Board;
  beforeEach(async () => {
    board = await seedBoard(t);
  });
  const { list, counts, idsOf } = boardClient(t, () => board);

  it('counts every status of the scope, zeros included', async () => {
    const { a } = board;
    const c = await counts(a.test);
    expect(c.object).toBe('order_counts');
    expect(c.livemode).toBe(false);
    expect(c.total).toBe(3);
    expect(c.counts.pending).toBe(2);
    expect(c.counts.cancelled).toBe(1);
    expect(Object.keys(c.counts)).toHaveLength(14);
    expect(c.counts.delivered).toBe(0);
  });

  it('filters by the day an order is due, in the caller’s time zone', async () => {
    const { a } = board;
    expect(await list(a.test, DAY)).toEqual(idsOf('jose', 'joselyn'));
    // The same calendar day in UTC: Joselyn (23:30 in Lima) is due on the 11th there.
    const utc = { due_gte: '2030-03-10T00:00:00Z', due_lt: '2030-03-11T00:00:00Z' };
    expect(await list(a.test, utc)).toEqual(idsOf('jose'));
    expect((await counts(a.test, DAY)).counts).toMatchObject({ pending: 2, cancelled: 0 });
    // Without a requested date an order is due when it was created: Ana is due today.
    const today = { due_gte: new Date(Date.now() - 3_600_000).toISOString(), due_lt: '2030-01-01T00:00:00Z' };
    expect(await list(a.test, today)).toEqual(idsOf('ana'));
    expect(await counts(a.test, today)).toMatchObject({ total: 1, counts: { cancelled: 1, pending: 0 } });
    // Combined with the other filters, on the list and on the counts alike.
    expect(await list(a.test, { ...DAY, source: 'excel' })).toEqual(idsOf('joselyn'));
    expect((await counts(a.test, { ...DAY, source: 'excel' })).total).toBe(1);
    expect(await list(a.test, { ...DAY, status: 'pending', search: 'SHOP-1' })).toEqual(idsOf('jose'));
    expect((await counts(a.test, { created_gte: '2030-01-01T00:00:00Z' })).total).toBe(0);
  });

  it('a reschedule moves the order to its new day', async () => {
    const { a, o } = board;
    const moved = await client(t.app, a.test)('POST', `/v1/orders/${o.joselyn.id}/reschedule`, {
      requested_date: '2030-03-12T10:00:00-05:00',
    });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(await list(a.test, DAY)).toEqual(idsOf('jose'));
    expect(await list(a.test, { due_gte: '2030-03-12T00:00:00-05:00', due_lt: '2030-03-13T00:00:00-05:00' })).toEqual(
      idsOf('joselyn'),
    );
    expect((await counts(a.test, { due_gte: '2030-03-12T00:00:00-05:00' })).counts.rescheduled).toBe(1);
  });

  it('searches by id, tracking code, external id, the start of the name and the end of the phone', async () => {
    const { a, o } = board;
    const cases: [string, string[]][] = [
      ['jose', ['jose', 'joselyn']],
      ['JOSÉ', ['jose', 'joselyn']],
      ['josé p', ['jose']],
      ['Joselyn  ruiz', ['joselyn']],
      ['ana', ['ana']],
      ['osé', []],
      ['SHOP-1', ['jose']],
      ['shop-1', []],
      ['4321', ['jose']],
      ['987654321', ['jose']],
      ['+51 987 654 321', ['jose']],
      ['2222', ['joselyn']],
      ['321', []],
      [o.ana.id, ['ana']],
      [o.jose.tracking_code.toLowerCase(), ['jose']],
      [o.bJose.id, []],
      [o.bJose.tracking_code, []],
      ["' OR 1=1 --", []],
      ['%', []],
      ['_', []],
    ];
    for (const [search, expected] of cases) {
      expect(await list(a.test, { search }), search).toEqual(idsOf(...expected));
      expect((await counts(a.test, { search })).total, search).toBe(expected.length);
    }
    // Paging through a search keeps it.
    const first = await client(t.app, a.test)('GET', '/v1/orders?search=jose&limit=1');
    expect(first.body.has_more).toBe(true);
    const next = await client(t.app, a.test)(
      'GET',
      `/v1/orders?search=jose&limit=1&starting_after=${first.body.data[0].id}`,
    );
    expect(next.body.has_more).toBe(false);
    expect([first.body.data[0].id, next.body.data[0].id].sort()).toEqual(idsOf('jose', 'joselyn'));
  });

  it('refuses a malformed query with the parameter named', async () => {
    const { a } = board;
    const cases: [string, string][] = [
      ['due_gte=tomorrow', 'due_gte'],
      ['due_lt=2030-02-30T00:00:00Z', 'due_lt'],
      ['search=', 'search'],
      ['search=%20%20', 'search'],
      [`search=${'a'.repeat(101)}`, 'search'],
      ['source=fax', 'source'],
      ['limit=5', 'limit'],
      ['status=pending', 'status'],
      ['cod_status=maybe', 'cod_status'],
    ];
    for (const [query, param] of cases) {
      const res = await client(t.app, a.test)('GET', `/v1/orders/counts?${query}`);
      expect(res.status, query).toBe(422);
      expect(res.body.error.param, query).toBe(param);
    }
    const blank = await client(t.app, a.test)('GET', '/v1/orders?search=%20');
    expect([blank.status, blank.body.error.param]).toEqual([422, 'search']);
  });
});

// What the carrier sees counts every account: these tests read a board of their own database,
// which none of them changes.
describeEach('dispatch board API, carrier-wide', (engine) => {
  const t = useApp(engine);
  const opTest = useOperator(t, 'test');
  const opLive = useOperator(t, 'live');
  let board: Board;
  beforeAll(async () => {
    board = await seedBoard(t);
  });
  const { list, counts, idsOf } = boardClient(t, () => board);

  it('is scoped like the list: account, environment, role', async () => {
    const { a, b } = board;
    // Another account sees its own only, whatever it searches.
    expect(await list(b.test, { search: 'jose' })).toEqual(idsOf('bJose'));
    expect(await counts(b.test, { search: 'SHOP-1' })).toMatchObject({ total: 1 });
    expect((await counts(b.test)).total).toBe(1);
    // The operator sees every account of its environment, and can narrow to one.
    expect(await list(opTest.key, { search: 'SHOP-1' })).toEqual(idsOf('jose', 'bJose'));
    expect((await counts(opTest.key)).total).toBe(4);
    expect((await counts(opTest.key, { account: b.accountId })).total).toBe(1);
    expect((await counts(opTest.key, { ...DAY, account: a.accountId })).total).toBe(2);
    // Test never sees live, and live never test.
    expect(await list(opLive.key, { search: 'jose' })).toEqual(idsOf('live'));
    expect(await counts(a.live)).toMatchObject({ livemode: true, total: 1 });
    expect((await counts(opLive.key, DAY)).total).toBe(1);
    // A merchant may name its own account (the same as none), and no other.
    const own = await client(t.app, a.test)('GET', `/v1/orders/counts?account=${a.accountId}`);
    expect(own.status).toBe(200);
    expect(own.body).toEqual(await counts(a.test));
    const other = await client(t.app, a.test)('GET', `/v1/orders/counts?account=${b.accountId}`);
    expect(other.status).toBe(403);
    expect(other.body.error).toMatchObject({ code: 'permission_denied', param: 'account' });
    expect((await client(t.app)('GET', '/v1/orders/counts')).status).toBe(401);
    expect((await client(t.app, 'sk_test_nope')('GET', '/v1/orders/counts')).status).toBe(401);
  });

  it('sessions count like the keys they stand for; a courier’s phone may not count', async () => {
    const { b, o } = board;
    const dispatcher = sessionClient(t, await userSession(t, 'dispatcher'));
    expect((await dispatcher('GET', '/v1/orders/counts')).body.total).toBe(4);
    const dispatcherLive = sessionClient(t, await userSession(t, 'dispatcher'), 'live');
    expect((await dispatcherLive('GET', '/v1/orders/counts')).body.total).toBe(1);
    const merchant = sessionClient(t, await userSession(t, 'merchant', b.accountId));
    expect((await merchant('GET', '/v1/orders/counts')).body.total).toBe(1);
    expect((await merchant('GET', '/v1/orders?search=jose')).body.data.map((x: { id: string }) => x.id)).toEqual([
      o.bJose.id,
    ]);
    const courier = (await client(t.app, opTest.key)('POST', '/v1/couriers', { name: 'Luis' })).body;
    const phone = sessionClient(t, await courierSession(t, opTest.key, courier.id));
    const refused = await phone('GET', '/v1/orders/counts');
    expect(refused.status).toBe(403);
  });
});

// The plans, on a database of their own whose orders spread over many days as a real account's do:
// which plan PostgreSQL gives a handful of rows depends on which rows (with two of A's three test
// orders on DAY, reading all of A's is as cheap as reading the day's).
describeEach('dispatch board API, query plans', (engine) => {
  const t = useApp(engine);
  let board: Board;
  beforeAll(async () => {
    board = await seedBoard(t);
    for (let i = 1; i <= 28; i++) {
      const day = `2030-04-${String(i).padStart(2, '0')}T10:00:00-05:00`;
      const key = i % 4 === 0 ? board.b.test : board.a.test;
      const res = await client(t.app, key)('POST', '/v1/orders', validOrder({ requested_date: day }));
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    }
  });

  it('runs on indexes: the day’s counts from orders_due alone, the search on the search indexes', async () => {
    const db = t.ctx.db;
    // As autovacuum keeps a real table: statistics, and the visibility map an index-only scan needs.
    // The creates' send jobs first: a transaction of theirs still open would keep the newest rows
    // from being marked visible to all (CI once got a bitmap heap scan here). FREEZE makes the
    // vacuum wait for a page another backend has pinned instead of skipping it.
    await t.jobs.idle();
    if (engine === 'postgres') await sql`vacuum (freeze, analyze) orders`.execute(db);
    const day = { dueGte: Date.parse(DAY.due_gte), dueLt: Date.parse(DAY.due_lt) };
    const merchant = { mode: 'test' as const, accountId: board.a.accountId };
    const operator = { mode: 'test' as const, accountId: null };
    for (const scope of [merchant, operator]) {
      const plan = await explain(db, engine, countOrdersQuery(db, { scope, ...day }).compile(), INDEX_ONLY);
      const onOrders = plan.nodes.filter((n) => n.table === 'orders');
      expect(
        onOrders.map((n) => n.index),
        plan.text,
      ).toEqual(['orders_due']);
      // Covering: SQLite says so; PostgreSQL reads the index only.
      expect(plan.text, plan.text).toMatch(engine === 'sqlite' ? /COVERING INDEX orders_due/ : /Index Only Scan/);
    }
    const search = { externalOrderId: 'jose', nameKey: 'jose', phoneKey: '1234', trackingCode: 'ABCDEFGHJKMN' };
    for (const scope of [merchant, operator]) {
      const q = listOrdersQuery(db, { scope, search, limit: 20 }).compile();
      const plan = await explain(db, engine, q);
      const used = new Set(plan.nodes.filter((n) => n.table === 'orders' || n.index).map((n) => n.index));
      // SQLite: one index per branch of the OR. PostgreSQL: a BitmapOr of index scans, whose indexes
      // it picks from its statistics of this tiny table (at 1M rows: these; see BENCHMARKS.md).
      if (engine === 'sqlite') {
        for (const index of ['orders_external', 'orders_customer', 'orders_phone']) {
          expect(used.has(index), `${index}: ${plan.text}`).toBe(true);
        }
      } else expect(plan.text).toMatch(/BitmapOr/);
      expect(plan.text).not.toMatch(/SCAN orders\b(?! USING)|Seq Scan/);
      const counted = await explain(db, engine, countOrdersQuery(db, { scope, search }).compile());
      expect(counted.text).not.toMatch(/SCAN orders\b(?! USING)|Seq Scan/);
    }
  });
});

// The backfill rewrites every order's derived columns: its own database.
describeEach('dispatch board API, orders written before 009_order_board', (engine) => {
  const t = useApp(engine);
  const opTest = useOperator(t, 'test');
  let board: Board;
  beforeAll(async () => {
    board = await seedBoard(t);
  });
  const { list, idsOf } = boardClient(t, () => board);

  it('fills the derived columns', async () => {
    const { a } = board;
    await sql`update orders set due_at = 0, customer_key = '', phone_key = null`.execute(t.ctx.db);
    await backfill(t.ctx.db, engine, 2);
    expect(await list(a.test, { search: 'josé p' })).toEqual(idsOf('jose'));
    expect(await list(a.test, { search: '4321' })).toEqual(idsOf('jose'));
    expect(await list(a.test, { search: '2222' })).toEqual(idsOf('joselyn'));
    expect(await list(opTest.key, DAY)).toEqual(idsOf('jose', 'joselyn', 'bJose'));
    expect(
      await list(a.test, { due_gte: new Date(Date.now() - 3_600_000).toISOString(), due_lt: '2030-01-01T00:00:00Z' }),
    ).toEqual(idsOf('ana'));
  });
});
