import { type Kysely, sql } from 'kysely';
import type { MigrationContext } from '../migration-context.js';

/**
 * Issue 24 (positions of moves, docs/api.md "Positions of moves"): the phone's fix sent with a
 * courier's move.
 * - `order_timeline`: `accuracy_m` and `recorded_at` (when the fix was taken: the tap, which an
 *   offline-queued move reaches the server long after) beside the existing lat/lng;
 * - `proofs`: `accuracy_m`, `distance_from_address_m` and `far_from_address` (0/1) of the delivery;
 * - `orders.attempt_*`: the position of the last attempt (delivered, partially delivered, failed),
 *   with its distance and far flag, so the list filter and the Exceptions page read one row;
 * - `orders_attempt_far` and `orders_attempt_far_account`: partial, so only the few far attempts are
 *   indexed and every other write leaves them alone; newest first per environment, across accounts
 *   (the carrier's Exceptions page) and per account (a merchant's list). Without them either list
 *   would walk every order of its scope to find the far ones. Both engines support `WHERE` on an index.
 *
 * Numbered 024, not 022: 023_labels is already applied where main runs, and the migrator refuses a
 * new migration that sorts before an applied one.
 */
export async function up(db: Kysely<unknown>, { ms }: MigrationContext): Promise<void> {
  await db.schema.alterTable('order_timeline').addColumn('accuracy_m', 'double precision').execute();
  await db.schema.alterTable('order_timeline').addColumn('recorded_at', ms).execute();
  await db.schema.alterTable('proofs').addColumn('accuracy_m', 'double precision').execute();
  await db.schema.alterTable('proofs').addColumn('distance_from_address_m', 'integer').execute();
  await db.schema.alterTable('proofs').addColumn('far_from_address', 'integer').execute();
  await db.schema.alterTable('orders').addColumn('attempt_lat', 'double precision').execute();
  await db.schema.alterTable('orders').addColumn('attempt_lng', 'double precision').execute();
  await db.schema.alterTable('orders').addColumn('attempt_accuracy_m', 'double precision').execute();
  await db.schema.alterTable('orders').addColumn('attempt_recorded_at', ms).execute();
  await db.schema.alterTable('orders').addColumn('attempt_distance_m', 'integer').execute();
  await db.schema.alterTable('orders').addColumn('attempt_far', 'integer').execute();
  await db.schema
    .createIndex('orders_attempt_far')
    .on('orders')
    .columns(['mode', 'created_at desc', 'id desc'])
    .where(sql.ref('attempt_far'), '=', sql.lit(1))
    .execute();
  await db.schema
    .createIndex('orders_attempt_far_account')
    .on('orders')
    .columns(['mode', 'account_id', 'created_at desc', 'id desc'])
    .where(sql.ref('attempt_far'), '=', sql.lit(1))
    .execute();
}
