import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reading } from '../src/features/money/reports-repo.js';
import { averageRating } from '../src/shared/rating.js';
import { client, describeEach, newOperator, startApp, type TestApp } from './helpers.js';
import { merchantIn, newCourier, orderWith } from './money-helpers.js';

const STARS = ['1', '2', '3', '4', '5'] as const;
const dist = (d: Partial<Record<(typeof STARS)[number], number>>) =>
  Object.fromEntries(STARS.map((k) => [k, d[k] ?? 0]));

describe('averageRating', () => {
  it('rounds the mean to two decimals, half up, from the integer sum', () => {
    expect(averageRating(0, 0)).toBeNull();
    expect(averageRating(13, 3)).toBe(4.33);
    expect(averageRating(14, 3)).toBe(4.67);
    expect(averageRating(9, 2)).toBe(4.5);
    expect(averageRating(33, 8)).toBe(4.13); // 4.125
    // 4.005: (801 / 200) * 100 is 400.49999… in floating point; 801 * 100 / 200 is 400.5.
    expect(averageRating(801, 200)).toBe(4.01);
  });
});

/** The ratings customers give on the tracking page, in GET /v1/reports/summary (DESIGN §17, issue #22). */
describeEach('reports summary: ratings', (engine) => {
  let t: TestApp;
  let op: string;
  const now = Date.parse('2026-11-20T14:00:00Z'); // 09:00 in Lima
  beforeAll(async () => {
    // The public scope's per-address limit would count every rating of the test as one customer's.
    t = await startApp(
      engine,
      { RUTA_DEFAULT_TIMEZONE: 'America/Lima', RUTA_PUBLIC_RATE_LIMIT_PER_MIN: '0' },
      { clock: () => now },
    );
    op = await newOperator(t);
  });
  afterAll(async () => t?.close());

  const rate = async (code: string, rating: number) => {
    const res = await client(t.app)('POST', `/track/${code}/feedback`, { rating });
    if (res.status !== 200) throw new Error(`feedback → ${res.status} ${JSON.stringify(res.body)}`);
  };

  it('counts, averages and distributes the ratings per group, links them to their orders, and keeps a merchant to its own', async () => {
    const call = client(t.app, op);
    const a = await merchantIn(t, 'Alpha', 'PEN');
    const b = await merchantIn(t, 'Beta', 'PEN');
    const c1 = await newCourier(t, op, 'Ana');
    const c2 = await newCourier(t, op, 'Beto');
    const deliver = { deliver: {} };
    // Ana: Alpha's 5 and 4, one unrated delivery, one failure. Beto: Alpha's 4, Beta's 2 and one unrated.
    const a5 = await orderWith(t, a.test, op, c1, 0, deliver);
    const a4 = await orderWith(t, a.test, op, c1, 0, deliver);
    await orderWith(t, a.test, op, c1, 0, deliver);
    const failed = await orderWith(t, a.test, op, c1, 0, { fail: true });
    const b4 = await orderWith(t, a.test, op, c2, 0, deliver);
    const b2 = await orderWith(t, b.test, op, c2, 0, deliver);
    await orderWith(t, b.test, op, c2, 0, deliver);
    await rate(a5.tracking_code, 5);
    await rate(a4.tracking_code, 4);
    await rate(b4.tracking_code, 4);
    await rate(b2.tracking_code, 2);
    // A failed delivery cannot be rated: the report never counts one.
    expect((await client(t.app)('POST', `/track/${failed.tracking_code}/feedback`, { rating: 1 })).status).toBe(409);

    const day = 'from=2026-11-20&to=2026-11-20';
    const s = await call('GET', `/v1/reports/summary?${day}&group_by=courier`);
    expect(s.status).toBe(200);
    expect(s.body.totals.ratings).toEqual({ count: 4, average: 3.75, distribution: dist({ 2: 1, 4: 2, 5: 1 }) });
    const byCourier = Object.fromEntries(s.body.groups.map((g: any) => [g.label, g.ratings]));
    expect(byCourier).toEqual({
      Ana: { count: 2, average: 4.5, distribution: dist({ 4: 1, 5: 1 }) },
      Beto: { count: 2, average: 3, distribution: dist({ 2: 1, 4: 1 }) },
    });

    const byMerchant = await call('GET', `/v1/reports/summary?${day}&group_by=merchant`);
    expect(Object.fromEntries(byMerchant.body.groups.map((g: any) => [g.label, g.ratings]))).toEqual({
      Alpha: { count: 3, average: 4.33, distribution: dist({ 4: 2, 5: 1 }) },
      Beta: { count: 1, average: 2, distribution: dist({ 2: 1 }) },
    });
    const byDay = await call('GET', `/v1/reports/summary?from=2026-11-19&to=2026-11-21&group_by=day`);
    expect(byDay.body.groups.map((g: any) => [g.key, g.ratings.count, g.ratings.average])).toEqual([
      ['2026-11-20', 4, 3.75],
    ]);
    // No rating in a period: a count of 0 and no average.
    const empty = await call('GET', '/v1/reports/summary?from=2026-11-21&to=2026-11-21');
    expect(empty.body.totals.ratings).toEqual({ count: 0, average: null, distribution: dist({}) });

    // The links: the rated orders, and one number of stars of them.
    const ids = async (key: string, href: string) =>
      (await client(t.app, key)('GET', href)).body.data.map((o: any) => o.id).sort();
    expect(await ids(op, s.body.totals.links.rated)).toEqual([a5.id, a4.id, b4.id, b2.id].sort());
    expect(await ids(op, `${s.body.totals.links.rated}&rating=4`)).toEqual([a4.id, b4.id].sort());
    const beto = s.body.groups.find((g: any) => g.label === 'Beto');
    expect(await ids(op, beto.links.rated)).toEqual([b4.id, b2.id].sort());
    expect(
      await ids(op, `/v1/orders?due_from=2026-11-20&due_to=2026-11-20&rated=false&outcome=delivered`),
    ).toHaveLength(2);

    // A merchant: its own ratings only, in its totals, its groups and its links.
    const alpha = client(t.app, a.test);
    const mine = await alpha('GET', `/v1/reports/summary?${day}&group_by=courier`);
    expect(mine.body.totals.ratings).toEqual({ count: 3, average: 4.33, distribution: dist({ 4: 2, 5: 1 }) });
    expect(Object.fromEntries(mine.body.groups.map((g: any) => [g.label, g.ratings.count]))).toEqual({
      Ana: 2,
      Beto: 1,
    });
    expect(await ids(a.test, mine.body.totals.links.rated)).toEqual([a5.id, a4.id, b4.id].sort());
    expect(await ids(a.test, '/v1/orders?rating=2')).toEqual([]);
    expect(await ids(b.test, '/v1/orders?rating=2')).toEqual([b2.id]);
    expect((await alpha('GET', `/v1/reports/summary?account=${b.accountId}`)).status).toBe(403);

    // Bad filters are named.
    for (const q of ['rating=0', 'rating=6', 'rating=4.5', 'rating=five', 'rated=maybe']) {
      const res = await call('GET', `/v1/orders?${q}`);
      expect(res.status, q).toBe(422);
      expect(res.body.error.param, q).toBe(q.split('=')[0]);
    }
    // Without a key: 401.
    expect((await client(t.app)('GET', '/v1/reports/summary')).status).toBe(401);

    // The export carries the ratings' count and average.
    const csv = await call('GET', `/v1/reports/summary/export?${day}&group_by=merchant&format=csv`);
    const lines = String(csv.raw.body)
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n');
    expect(lines[0]).toMatch(/,ratings,rating_average$/);
    expect(lines.find((l) => l.startsWith('Alpha,'))).toMatch(/,3,4\.33$/);
    expect(lines.at(-1)).toMatch(/^total 2026-11-20\.\.2026-11-20,.*,4,3\.75$/);
  });

  it('keeps the rating in orders_report, so the summary reads the index alone (033_report_ratings)', async () => {
    const columns =
      engine === 'sqlite'
        ? (
            await sql<{ name: string }>`select name from pragma_index_info('orders_report') order by seqno`.execute(
              t.ctx.db,
            )
          ).rows.map((r) => r.name)
        : (
            await sql<{ name: string }>`select a.attname as name from pg_index i
              join pg_class c on c.oid = i.indexrelid
              join lateral unnest(i.indkey) with ordinality as k(attnum, n) on true
              join pg_attribute a on a.attrelid = i.indrelid and a.attnum = k.attnum
              where c.relname = 'orders_report' order by k.n`.execute(t.ctx.db)
          ).rows.map((r) => r.name);
    expect(columns).toEqual([
      'mode',
      'due_day',
      'account_id',
      'courier_id',
      'status',
      'attempts',
      'on_time',
      'created_at',
      'delivered_at',
      'feedback_rating',
    ]);
  });

  it.runIf(engine === 'postgres')(
    'prices random page reads at 1.1 for the summary’s own transaction only',
    async () => {
      const show = async (db: typeof t.ctx.db) =>
        (await sql<{ random_page_cost: string }>`show random_page_cost`.execute(db)).rows[0]?.random_page_cost;
      const before = await show(t.ctx.db);
      expect(await reading(t.ctx.db, engine, (db) => show(db as typeof t.ctx.db))).toBe('1.1');
      // Every connection of the pool is back to the server's setting (poolSize 10: read them all at once).
      const after = await Promise.all(Array.from({ length: 10 }, () => t.ctx.db.transaction().execute(show)));
      expect(new Set(after)).toEqual(new Set([before]));
      expect(before).not.toBe('1.1');
    },
  );

  it('totals are the sum of the rows for every grouping, and both match a count of random orders', async () => {
    const m = [await merchantIn(t, 'Prop A', 'PEN'), await merchantIn(t, 'Prop B', 'PEN')];
    const couriers = [await newCourier(t, op, 'Pía'), await newCourier(t, op, 'Quique')];
    // One real order, made by the API, as the template of every generated row: only the columns the
    // report reads differ.
    const template = await orderWith(t, m[0]!.test, op, couriers[0]!, 0, { deliver: {} });
    const base = await t.ctx.db
      .selectFrom('orders')
      .selectAll()
      .where('id', '=', template.id)
      .executeTakeFirstOrThrow();
    // Moved out of every period the tests read (events refer to it, so it stays).
    await t.ctx.db.updateTable('orders').set({ due_day: '2026-01-01' }).where('id', '=', template.id).execute();
    const days = ['2026-10-01', '2026-10-02', '2026-10-03'];
    const districts = ['Miraflores', 'Surco', null];
    const STATUSES = ['delivered', 'partially_delivered', 'failed', 'returned', 'cancelled', 'pending'] as const;
    const order = fc.record({
      merchant: fc.integer({ min: 0, max: 1 }),
      courier: fc.integer({ min: -1, max: 1 }),
      day: fc.integer({ min: 0, max: 2 }),
      district: fc.integer({ min: 0, max: 2 }),
      status: fc.constantFrom(...STATUSES),
      attempts: fc.integer({ min: 1, max: 2 }),
      rating: fc.option(fc.integer({ min: 1, max: 5 }), { nil: null }),
    });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(order, { maxLength: 25 }), async (rows) => {
        run += 1;
        await t.ctx.db.deleteFrom('orders').where('id', 'like', 'ord_prop%').execute();
        const made = rows.map((r, i) => {
          const delivered = r.status === 'delivered' || r.status === 'partially_delivered';
          const district = districts[r.district];
          return {
            ...base,
            id: `ord_prop${run}x${i}`,
            tracking_code: `PROP${run}X${i}`,
            account_id: m[r.merchant]!.accountId,
            courier_id: r.courier < 0 ? null : couriers[r.courier]!,
            due_day: days[r.day]!,
            status: r.status,
            attempts: r.attempts,
            on_time: delivered ? r.attempts % 2 : null,
            delivered_at: delivered ? base.created_at : null,
            // Only a delivery is ever rated (tracking/actions.ts).
            feedback_rating: delivered ? r.rating : null,
            feedback_at: delivered && r.rating !== null ? base.created_at : null,
            delivery_address: JSON.stringify({
              address: 'Av. Larco 1',
              city: 'Lima',
              ...(district ? { district } : {}),
            }),
          };
        });
        if (made.length > 0) await t.ctx.db.insertInto('orders').values(made).execute();

        // The model: the ratings of the rows a filter keeps.
        const expected = (keep: (o: (typeof made)[number]) => boolean) => {
          const rs = made.filter(keep).flatMap((o) => (o.feedback_rating === null ? [] : [o.feedback_rating]));
          const d = dist({});
          for (const r of rs) d[String(r)]! += 1;
          const sum = rs.reduce((x, y) => x + y, 0);
          return { count: rs.length, average: averageRating(sum, rs.length), distribution: d };
        };
        const period = `from=${days[0]}&to=${days[2]}`;
        // Ungrouped, the totals come from a query of their own.
        const all = (await client(t.app, op)('GET', `/v1/reports/summary?${period}`)).body;
        expect(all.totals.orders).toBe(made.length);
        expect(all.totals.ratings).toEqual(expected(() => true));
        for (const [key, by] of [
          [op, 'day'],
          [op, 'courier'],
          [op, 'district'],
          [op, 'merchant'],
          [m[1]!.test, 'courier'],
        ] as const) {
          const own = key === op ? null : m[1]!.accountId;
          const s = (await client(t.app, key)('GET', `/v1/reports/summary?${period}&group_by=${by}`)).body;
          const mine = (o: (typeof made)[number]) => own === null || o.account_id === own;
          expect(s.totals.orders).toBe(made.filter(mine).length);
          expect(s.totals.ratings).toEqual(expected(mine));
          // Each row against the model, and the totals against the sum of the rows.
          const col = { day: 'due_day', courier: 'courier_id', merchant: 'account_id', district: null }[by];
          for (const g of s.groups) {
            const inGroup = (o: (typeof made)[number]) =>
              mine(o) &&
              (col === null
                ? (JSON.parse(o.delivery_address).district ?? null) === g.key
                : (o[col as 'due_day'] ?? null) === g.key);
            expect(g.ratings).toEqual(expected(inGroup));
            expect(g.orders).toBe(made.filter(inGroup).length);
          }
          const sum = (f: (g: any) => number) => s.groups.reduce((x: number, g: any) => x + f(g), 0);
          for (const figure of ['orders', 'delivered', 'failed', 'cancelled', 'on_time', 'first_attempt'] as const) {
            expect(s.totals[figure], `${by} ${figure}`).toBe(sum((g) => g[figure]));
          }
          expect(s.totals.ratings.count).toBe(sum((g) => g.ratings.count));
          for (const k of STARS) {
            expect(s.totals.ratings.distribution[k]).toBe(sum((g) => g.ratings.distribution[k]));
          }
        }
      }),
      { numRuns: 12 },
    );
  });
});
