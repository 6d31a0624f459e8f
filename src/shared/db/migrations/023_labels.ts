import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migration-context.js';

/**
 * Issue 21 (labels and scanning): `orders.loaded_at`, when the parcel's label was scanned into the
 * courier's vehicle (POST /v1/orders/{id}/load, docs/labels.md). Null: not loaded yet. A mark, not
 * a status: loading changes nothing of the order's lifecycle, so it has no transition.
 */
export async function up(db: Kysely<unknown>, { ms }: MigrationContext): Promise<void> {
  await db.schema.alterTable('orders').addColumn('loaded_at', ms).execute();
}
