import { type Kysely, sql } from 'kysely';

/**
 * `orders_delivered` (account_id, mode, delivered_at), which a settlement's draft reads, becomes
 * partial: only delivered orders. Whole, it began with the same two columns as `orders_list`
 * (account_id, mode, created_at desc, id desc); while PostgreSQL's statistics were stale (an
 * account's first import, before autovacuum's ANALYZE) both looked equally cheap, and the account's
 * order list picked this one and sorted every order of the account: 40-50 ms a request instead of 1
 * (BENCHMARKS.md "Other requests during an import"). A list has no `delivered_at` condition, so the
 * partial index is out of its reach; the draft's `delivered_at >= ?` implies `IS NOT NULL`, which
 * both engines accept for a partial index. Undelivered orders (most of a day's writes) no longer
 * update it either.
 *
 * Numbered 028: 025-027 are taken by work in progress on other branches.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('orders_delivered').execute();
  await db.schema
    .createIndex('orders_delivered')
    .on('orders')
    .columns(['account_id', 'mode', 'delivered_at'])
    .where(sql.ref('delivered_at'), 'is not', null)
    .execute();
}
