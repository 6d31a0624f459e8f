import { sql } from 'kysely';
import type { Db, Engine, Executor } from '../../shared/db/index.js';
import type { Mode } from '../../shared/db/schema.js';
import { jsonText, OUTCOME_STATUSES } from '../orders/list-repo.js';

export type GroupBy = 'day' | 'courier' | 'district' | 'merchant';

export interface ReportFilter {
  mode: Mode;
  from: string;
  to: string;
  account?: string;
  courier?: string;
}

export interface CountRow {
  key: string | null;
  orders: number;
  delivered: number;
  failed: number;
  cancelled: number;
  on_time: number;
  first_attempt: number;
  /** How many customers gave each number of stars (index 0: one star). */
  stars: [number, number, number, number, number];
}

/** The column a group is keyed by; a district is read from the address's JSON (the one not in the index). */
function keyOf(engine: Engine, by: GroupBy | undefined) {
  switch (by) {
    case 'day':
      return sql<string | null>`due_day`;
    case 'courier':
      return sql<string | null>`courier_id`;
    case 'merchant':
      return sql<string | null>`account_id`;
    case 'district':
      return jsonText(engine, 'delivery_address', 'district');
    default:
      return sql<string | null>`null`;
  }
}

/** The period (`due_day`, each order's own local day), environment, and optional account and courier. */
function base(db: Executor, f: ReportFilter) {
  let q = db
    .selectFrom('orders')
    .where('mode', '=', f.mode)
    .where('due_day', '>=', f.from)
    .where('due_day', '<=', f.to);
  if (f.account !== undefined) q = q.where('account_id', '=', f.account);
  if (f.courier !== undefined) q = q.where('courier_id', '=', f.courier);
  return q;
}

const inList = (statuses: readonly string[]) => sql.join(statuses.map((s) => sql.lit(s)));

/**
 * Every count of the summary in one pass over `orders_report` (mode, due_day, account_id,
 * courier_id, status, attempts, on_time, ..., feedback_rating): both engines answer from the
 * index alone, except by district, which reads each row's address. The ratings are counted in the
 * same pass (033_report_ratings put their column in the index).
 */
export async function counts(db: Executor, engine: Engine, f: ReportFilter, by?: GroupBy): Promise<CountRow[]> {
  const rows = await countsQuery(db, engine, f, by).execute();
  return rows.map((r) => ({
    key: r.key,
    orders: Number(r.orders),
    delivered: Number(r.delivered ?? 0),
    failed: Number(r.failed ?? 0),
    cancelled: Number(r.cancelled ?? 0),
    on_time: Number(r.on_time ?? 0),
    first_attempt: Number(r.first_attempt ?? 0),
    stars: [Number(r.s1 ?? 0), Number(r.s2 ?? 0), Number(r.s3 ?? 0), Number(r.s4 ?? 0), Number(r.s5 ?? 0)],
  }));
}

/** The counts' query, unexecuted: bench/scenarios/reports.ts prints its plan. */
export function countsQuery(db: Executor, engine: Engine, f: ReportFilter, by?: GroupBy) {
  const delivered = inList(OUTCOME_STATUSES.delivered);
  const key = keyOf(engine, by);
  return (
    base(db, f)
      .select([
        key.as('key'),
        sql<number>`count(*)`.as('orders'),
        sql<number>`sum(case when status in (${delivered}) then 1 else 0 end)`.as('delivered'),
        sql<number>`sum(case when status in (${inList(OUTCOME_STATUSES.failed)}) then 1 else 0 end)`.as('failed'),
        sql<number>`sum(case when status = 'cancelled' then 1 else 0 end)`.as('cancelled'),
        sql<number>`sum(case when on_time = 1 then 1 else 0 end)`.as('on_time'),
        sql<number>`sum(case when status in (${delivered}) and attempts = 1 then 1 else 0 end)`.as('first_attempt'),
        // One sum per number of stars (the unrated, null, match none): the count and the sum of the
        // ratings follow from them, two aggregates fewer for every row scanned.
        sql<number>`sum(case when feedback_rating = 1 then 1 else 0 end)`.as('s1'),
        sql<number>`sum(case when feedback_rating = 2 then 1 else 0 end)`.as('s2'),
        sql<number>`sum(case when feedback_rating = 3 then 1 else 0 end)`.as('s3'),
        sql<number>`sum(case when feedback_rating = 4 then 1 else 0 end)`.as('s4'),
        sql<number>`sum(case when feedback_rating = 5 then 1 else 0 end)`.as('s5'),
      ])
      // PostgreSQL refuses GROUP BY a constant (the total's key): the total is one group anyway.
      .$if(by !== undefined, (qb) => qb.groupBy(key))
  );
}

/** Width of the buckets delivery times are counted in: percentiles are exact to this. */
export const BUCKET_MINUTES = 5;

/**
 * How many deliveries took each span of BUCKET_MINUTES from creation to delivery, per group: a
 * histogram, so p50 and p90 come from a few hundred rows rather than a sort of every delivery.
 */
export async function durations(db: Executor, engine: Engine, f: ReportFilter, by?: GroupBy) {
  const rows = await durationsQuery(db, engine, f, by).execute();
  return rows.flatMap((r) => (r.bucket === null ? [] : [{ key: r.key, bucket: Number(r.bucket), n: Number(r.n) }]));
}

/** The histogram's query, unexecuted (for its plan). */
export function durationsQuery(db: Executor, engine: Engine, f: ReportFilter, by?: GroupBy) {
  const key = keyOf(engine, by);
  const width = BUCKET_MINUTES * 60_000;
  // Whole numbers on both engines: an integer divided by an integer truncates (times are never
  // negative). `delivered_at IS NOT NULL` is in the bucket (a null bucket, dropped by durations()),
  // not in WHERE: there, it turned SQLite at 92 days from orders_report alone to orders_due_day and
  // a read of the table for every delivery (BENCHMARKS.md "Reports summary").
  const bucket = sql<
    number | null
  >`case when delivered_at is not null then (delivered_at - created_at) / ${sql.lit(width)} end`;
  return base(db, f)
    .select([key.as('key'), bucket.as('bucket'), sql<number>`count(*)`.as('n')])
    .where('status', 'in', [...OUTCOME_STATUSES.delivered])
    .groupBy(by === undefined ? [bucket] : [key, bucket]);
}

/**
 * Runs a summary's queries. On PostgreSQL, in one transaction that prices a page read at random as
 * 1.1 sequential ones rather than the default 4 (a spinning disk's ratio; SSDs and a cached index
 * are nearer 1): over most of the table (92 days of 100 in the benchmark), the default chose a
 * sequential scan of the whole table (369 MB at 1 M orders) over an index-only scan of
 * orders_report (118 MB), 1.4 s against 0.85 s for the two queries (BENCHMARKS.md "Reports
 * summary"). `SET LOCAL` ends with the transaction; the planner still weighs the index's visibility
 * map, so a table autovacuum has not yet caught up with keeps its sequential scan. SQLite needs
 * nothing, and a transaction there would hold its one connection.
 */
export async function reading<T>(db: Db, engine: Engine, fn: (db: Executor) => Promise<T>): Promise<T> {
  if (engine !== 'postgres') return fn(db);
  return db.transaction().execute(async (trx) => {
    await sql`set local random_page_cost = 1.1`.execute(trx);
    return fn(trx);
  });
}

/** Names of the couriers and accounts a report shows. */
export async function names(db: Executor, table: 'couriers' | 'accounts', ids: string[]) {
  if (ids.length === 0) return new Map<string, string>();
  const rows = await db.selectFrom(table).select(['id', 'name']).where('id', 'in', ids).execute();
  return new Map(rows.map((r) => [r.id, r.name]));
}
