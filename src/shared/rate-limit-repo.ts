import { sql } from 'kysely';
import type { Executor } from './db/index.js';

/** Counts one hit in (bucket, window) with one upsert; returns the count including it. */
export async function hitCounter(db: Executor, bucket: string, windowStart: number): Promise<number> {
  const row = await db
    .insertInto('rate_limits')
    .values({ bucket, window_start: windowStart, count: 1 })
    .onConflict((oc) =>
      oc.columns(['bucket', 'window_start']).doUpdateSet({ count: sql<number>`rate_limits.count + 1` }),
    )
    .returning('count')
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/**
 * Adds several buckets' hits in one statement and returns each bucket's shared total (every
 * instance's hits). Rows go in bucket order so two instances syncing overlapping buckets lock them
 * in the same order and cannot deadlock.
 */
export async function addHits(
  db: Executor,
  windowStart: number,
  hits: [bucket: string, count: number][],
): Promise<Map<string, number>> {
  const sorted = [...hits].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const rows = await db
    .insertInto('rate_limits')
    .values(sorted.map(([bucket, count]) => ({ bucket, window_start: windowStart, count })))
    .onConflict((oc) =>
      oc.columns(['bucket', 'window_start']).doUpdateSet({ count: sql<number>`rate_limits.count + excluded.count` }),
    )
    .returning(['bucket', 'count'])
    .execute();
  return new Map(rows.map((r) => [r.bucket, Number(r.count)]));
}

/** Drops the counters of windows that have ended. */
export async function purgeCounters(db: Executor, before: number): Promise<void> {
  await db.deleteFrom('rate_limits').where('window_start', '<', before).execute();
}
