import { CompiledQuery } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { type ListFilter, listOrdersQuery } from '../src/features/orders/list-repo.js';
import {
  client,
  describeEach,
  type Merchant,
  newMerchant,
  newOperator,
  type TestApp,
  useApp,
  useMerchant,
  validOrder,
} from './helpers.js';
import { type PgNode, pgPlan, sqlitePlan } from './plan-helpers.js';

interface O {
  id: string;
  created_at: string;
  status: string;
  source: string | null;
  external_order_id: string | null;
  livemode: boolean;
}

const SOURCES = ['api', 'excel', 'manual', undefined] as const;

/** Newest first: created_at desc, then id desc (ids are plain ASCII, so < is the engines' byte order). */
const newestFirst = (a: O, b: O) =>
  Date.parse(b.created_at) - Date.parse(a.created_at) || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

describeEach('orders list', (engine) => {
  // One data set that every test below reads and none writes: 57 orders over two accounts.
  const t = useApp(engine);
  let a: Merchant;
  let b: Merchant;
  /** What was created, per key. */
  const made = new Map<string, O[]>();

  async function create(key: string, n: number, cancelEvery = 0): Promise<void> {
    const call = client(t.app, key);
    const list = made.get(key) ?? [];
    for (let i = 0; i < n; i++) {
      const source = SOURCES[i % SOURCES.length];
      const res = await call('POST', '/v1/orders', validOrder({ source, external_order_id: `EXT-${i % 7}` }));
      expect(res.status).toBe(201);
      let o: O = res.body;
      if (cancelEvery && i % cancelEvery === 0) o = (await call('POST', `/v1/orders/${o.id}/cancel`)).body;
      list.push(o);
    }
    made.set(key, list);
  }

  /** Follows starting_after to the end, checking has_more on every page. */
  async function walk(key: string, query: string, limit: number, on: TestApp = t): Promise<O[]> {
    const call = client(on.app, key);
    const seen: O[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 1000; page++) {
      const qs = [query, `limit=${limit}`, cursor ? `starting_after=${cursor}` : ''].filter(Boolean).join('&');
      const res = await call('GET', `/v1/orders?${qs}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.object).toBe('list');
      const data: O[] = res.body.data;
      seen.push(...data);
      if (!res.body.has_more) return seen;
      // has_more promises a full page now and at least one order after it.
      expect(data).toHaveLength(limit);
      cursor = data[data.length - 1].id;
    }
    throw new Error('pagination did not end');
  }

  /** Follows ending_before from `start` back to the newest order. */
  async function walkBack(key: string, query: string, limit: number, start: string, on: TestApp = t): Promise<O[]> {
    const call = client(on.app, key);
    let seen: O[] = [];
    let cursor = start;
    for (let page = 0; page < 1000; page++) {
      const qs = [query, `limit=${limit}`, `ending_before=${cursor}`].filter(Boolean).join('&');
      const res = await call('GET', `/v1/orders?${qs}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const data: O[] = res.body.data;
      seen = [...data, ...seen];
      if (!res.body.has_more) return seen;
      expect(data).toHaveLength(limit);
      cursor = data[0].id;
    }
    throw new Error('pagination did not end');
  }

  const ids = (list: O[]) => list.map((o) => o.id);

  beforeAll(async () => {
    a = await newMerchant(t, 'A');
    b = await newMerchant(t, 'B');
    // 57 orders over two accounts and both environments, interleaved in time.
    await create(a.test, 13, 4);
    await create(b.test, 6);
    await create(a.live, 12);
    await create(a.test, 12, 5);
    await create(b.live, 8);
    await create(b.test, 6);
  });

  it('walks every page newest first with no duplicates, no gaps and exact has_more', async () => {
    for (const key of [a.test, a.live, b.test, b.live]) {
      const expected = [...(made.get(key) ?? [])].sort(newestFirst);
      for (const limit of [1, 5, expected.length - 1, expected.length, 100]) {
        const seen = await walk(key, '', limit);
        expect(ids(seen)).toEqual(ids(expected));
        expect(new Set(ids(seen)).size).toBe(seen.length);
        for (const o of seen) expect(o.livemode).toBe(key === a.live || key === b.live);
      }
    }
    expect([...made.values()].reduce((n, l) => n + l.length, 0)).toBe(57);
  });

  it('walks back with ending_before to the newest order', async () => {
    const expected = [...made.get(a.test)!].sort(newestFirst);
    const oldest = expected[expected.length - 1];
    const back = await walkBack(a.test, '', 5, oldest.id);
    expect(ids(back)).toEqual(ids(expected.slice(0, -1)));
    // The page just before a middle order holds exactly the `limit` orders newer than it.
    const mid = expected[12];
    const res = await client(t.app, a.test)('GET', `/v1/orders?limit=5&ending_before=${mid.id}`);
    expect(ids(res.body.data)).toEqual(ids(expected.slice(7, 12)));
    expect(res.body.has_more).toBe(true);
    const top = await client(t.app, a.test)('GET', `/v1/orders?limit=5&ending_before=${expected[3].id}`);
    expect(ids(top.body.data)).toEqual(ids(expected.slice(0, 3)));
    expect(top.body.has_more).toBe(false);
    const none = await client(t.app, a.test)('GET', `/v1/orders?ending_before=${expected[0].id}`);
    expect(none.body).toMatchObject({ data: [], has_more: false });
  });

  it('filters by status, source, external_order_id and creation time, and pages within the filter', async () => {
    const all = [...made.get(a.test)!].sort(newestFirst);
    const cases: [string, (o: O) => boolean][] = [
      ['status=cancelled', (o) => o.status === 'cancelled'],
      ['status=pending', (o) => o.status === 'pending'],
      ['status=delivered', () => false],
      ['source=excel', (o) => o.source === 'excel'],
      ['source=api', (o) => o.source === 'api'],
      ['external_order_id=EXT-3', (o) => o.external_order_id === 'EXT-3'],
      ['status=pending&source=manual', (o) => o.status === 'pending' && o.source === 'manual'],
    ];
    const from = all[18].created_at;
    const to = all[4].created_at;
    cases.push([
      `created_gte=${from}&created_lt=${to}`,
      (o) => Date.parse(o.created_at) >= Date.parse(from) && Date.parse(o.created_at) < Date.parse(to),
    ]);
    cases.push([`created_gte=${to}`, (o) => Date.parse(o.created_at) >= Date.parse(to)]);
    cases.push(['created_lt=2000-01-01T00:00:00Z', () => false]);
    for (const [query, keep] of cases) {
      const expected = all.filter(keep);
      if (query.startsWith('status=cancelled')) expect(expected.length).toBeGreaterThan(3);
      expect(ids(await walk(a.test, query, 2)), query).toEqual(ids(expected));
      if (expected.length > 1) {
        const back = await walkBack(a.test, query, 2, expected[expected.length - 1].id);
        expect(ids(back), query).toEqual(ids(expected.slice(0, -1)));
      }
    }
  });

  it('answers 422 with the right param for invalid values and cursors', async () => {
    const call = client(t.app, a.test);
    const mineLive = made.get(a.live)![0].id;
    const others = made.get(b.test)![0].id;
    const cases: [string, string, string?][] = [
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=abc', 'limit'],
      ['limit=-5', 'limit'],
      ['status=nope', 'status'],
      ['source=x', 'source'],
      ['starting_after=ord_00000000000000000000000000', 'starting_after'],
      ['starting_after=not-an-id', 'starting_after'],
      [`starting_after=${others}`, 'starting_after'],
      [`ending_before=${others}`, 'ending_before'],
      [`starting_after=${mineLive}`, 'starting_after'],
      [`starting_after=${made.get(a.test)![0].id}&ending_before=${made.get(a.test)![1].id}`, 'ending_before'],
      ['created_gte=2025-01-01', 'created_gte'],
      ['account=acct_x-y', 'account'],
      ['page=2', 'page', 'parameter_unknown'],
    ];
    for (const [qs, param, code = 'parameter_invalid'] of cases) {
      const res = await call('GET', `/v1/orders?${qs}`);
      expect(res.status, qs).toBe(422);
      expect(res.body.error, qs).toMatchObject({ type: 'invalid_request_error', code, param });
      expect(res.body.error.message, qs).toContain(param);
    }
    // The cursor a live key got is unknown to the test key and vice versa, and the other account's too.
    const live = await client(t.app, a.live)('GET', `/v1/orders?starting_after=${made.get(a.test)![0].id}`);
    expect(live.body.error.param).toBe('starting_after');
    expect((await call('GET', '/v1/orders?limit=100')).status).toBe(200);
    expect((await call('GET', '/v1/orders')).body.data).toHaveLength(20);
  });

  it('operator keys list every account of their environment, and can narrow to one', async () => {
    const op = client(t.app, await newOperator(t, 'test'));
    const everyone = [...made.get(a.test)!, ...made.get(b.test)!].sort(newestFirst);
    expect(ids(await walk(await newOperator(t, 'test'), '', 9))).toEqual(ids(everyone));
    const onlyB = await op('GET', `/v1/orders?account=${b.accountId}&limit=100`);
    expect(ids(onlyB.body.data)).toEqual(ids([...made.get(b.test)!].sort(newestFirst)));
    // A cursor must belong to the account being listed.
    const mismatched = await op('GET', `/v1/orders?account=${b.accountId}&starting_after=${made.get(a.test)![0].id}`);
    expect(mismatched.status).toBe(422);
    expect(mismatched.body.error.param).toBe('starting_after');
    const liveOp = await walk(await newOperator(t, 'live'), '', 50);
    expect(ids(liveOp)).toEqual(ids([...made.get(a.live)!, ...made.get(b.live)!].sort(newestFirst)));
  });

  it('the list query is an index range scan: no full scan, no sort, whatever the page depth', async () => {
    const db = t.ctx.db;
    const cursor = made.get(a.test)![10].id;
    const test = { mode: 'test' as const, accountId: a.accountId };
    const cases: [string, ListFilter, string][] = [
      ['first page', { scope: test, limit: 20 }, 'orders_list'],
      ['after a cursor', { scope: test, limit: 20, after: cursor }, 'orders_list'],
      ['before a cursor', { scope: test, limit: 20, before: cursor }, 'orders_list'],
      ['status and cursor', { scope: test, status: 'pending', limit: 20, after: cursor }, 'orders_list_status'],
      ['operator', { scope: { mode: 'test', accountId: null }, limit: 20, after: cursor }, 'orders_list_mode'],
      [
        'operator and status',
        { scope: { mode: 'test', accountId: null }, status: 'pending', limit: 20, after: cursor },
        'orders_list_status_mode',
      ],
    ];
    if (engine === 'postgres') await db.executeQuery(CompiledQuery.raw('ANALYZE orders'));
    for (const [name, filter, index] of cases) {
      const q = listOrdersQuery(db, filter).compile();
      const cursor = Boolean(filter.after || filter.before);
      const plan = await db.transaction().execute(async (trx) => {
        if (engine === 'sqlite') {
          const r = await trx.executeQuery<{ id: number; parent: number; detail: string }>(
            CompiledQuery.raw(`EXPLAIN QUERY PLAN ${q.sql}`, [...q.parameters]),
          );
          return sqlitePlan(r.rows);
        }
        // A table this small is cheaper to scan and sort; forbid both, so the plan shows what the
        // indexes allow. If no index could serve the order, PostgreSQL would still have to sort.
        for (const knob of ['enable_seqscan', 'enable_bitmapscan', 'enable_sort']) {
          await trx.executeQuery(CompiledQuery.raw(`SET LOCAL ${knob} = off`));
        }
        const r = await trx.executeQuery<{ 'QUERY PLAN': [{ Plan: PgNode }] }>(
          CompiledQuery.raw(`EXPLAIN (FORMAT JSON, COSTS OFF) ${q.sql}`, [...q.parameters]),
        );
        return pgPlan(r.rows[0]!['QUERY PLAN'][0].Plan);
      });
      // Index use, read from the plan's structure: every access to orders goes through the index
      // (no full scan), nothing is sorted afterwards, and a cursor bounds the range scan itself.
      const onOrders = plan.nodes.filter((n) => n.table === 'orders');
      expect(onOrders.length, name).toBeGreaterThan(0);
      const main = onOrders.find((n) => n.index === index);
      expect(main, `${name}: ${plan.text}`).toBeDefined();
      expect(
        plan.nodes.filter((n) => n.fullScan || n.sort).map((n) => n.label),
        name,
      ).toEqual([]);
      if (cursor) expect(main!.rangeOnCursor, `${name}: ${plan.text}`).toBe(true);
      // And the whole plan, committed: a change of plan shows up in review as a diff of this file.
      await expect(plan.text).toMatchFileSnapshot(`./fixtures/plans/${engine}/${name.replace(/ /g, '-')}.txt`);
    }
  });

  // Its own app: 40 more orders in this database would be in the operator's "every account" and in
  // whatever the tests above count, depending on the order the shuffled suite runs them in.
  describe('orders created in the same millisecond', () => {
    // The app's clock, held still while the orders are created.
    let held: number | undefined;
    const own = useApp(engine, {}, { clock: () => held ?? Date.now() });
    const c = useMerchant(own, 'C');

    it('pages deterministically through them', async () => {
      held = Date.now() + 60_000;
      const created: O[] = [];
      try {
        const call = client(own.app, c.test);
        for (let i = 0; i < 40; i++) {
          const res = await call('POST', '/v1/orders', validOrder({ external_order_id: `EXT-${i % 7}` }));
          expect(res.status).toBe(201);
          created.push(res.body);
        }
      } finally {
        held = undefined;
      }
      expect(new Set(created.map((o) => o.created_at)).size).toBe(1);
      const expected = [...created].sort(newestFirst);
      // Within one millisecond the id breaks the tie, so the order is total and stable.
      for (const limit of [3, 5, 7]) {
        const seen = await walk(c.test, '', limit, own);
        expect(ids(seen)).toEqual(ids(expected));
        expect(ids(await walkBack(c.test, '', limit, expected[expected.length - 1].id, own))).toEqual(
          ids(expected.slice(0, -1)),
        );
      }
    });
  });
});
