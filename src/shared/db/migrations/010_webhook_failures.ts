import { type Kysely, sql } from 'kysely';
import type { MigrationContext } from '../migration-context.js';

/**
 * The carrier's list of failed webhook deliveries (GET /v1/webhook_deliveries?status=failed), newest
 * first across the accounts of one environment. Partial: only exhausted deliveries enter it, so the
 * dispatcher's hot path (insert, claim, settle as succeeded) never writes to it; a delivery is
 * indexed once, when it fails for good. Both engines support `WHERE` on an index.
 */
export async function up(db: Kysely<unknown>, _ctx: MigrationContext): Promise<void> {
  await db.schema
    .createIndex('webhook_deliveries_failed')
    .on('webhook_deliveries')
    .columns(['mode', 'created_at desc', 'id desc'])
    .where(sql.ref('status'), '=', sql.lit('failed'))
    .execute();
}
