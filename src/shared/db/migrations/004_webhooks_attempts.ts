import { type Kysely, sql } from 'kysely';
import type { MigrationContext } from '../migration-context.js';

/**
 * Attempt ids become prefixed strings (`whatt_…`) like every other object's, instead of the only
 * bare integers in the API. The table is rebuilt (nothing references it). Existing attempts keep
 * their order: `whatt_` + the old number zero-padded to 20 digits sorts below every new id (whose
 * first time character is a letter-or-digit above '0' for any date after 1971).
 */
export async function up(db: Kysely<unknown>, { engine, ms }: MigrationContext): Promise<void> {
  await db.schema
    .createTable('webhook_attempts_new')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('delivery_id', 'text', (c) => c.notNull().references('webhook_deliveries.id'))
    .addColumn('endpoint_id', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('succeeded', 'integer', (c) => c.notNull())
    .addColumn('started_at', ms, (c) => c.notNull())
    .addColumn('finished_at', ms, (c) => c.notNull())
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('response_status', 'integer')
    .addColumn('error_class', 'text')
    .addColumn('error_message', 'text')
    .addColumn('response_body', 'text')
    .execute();
  const legacyId =
    engine === 'postgres' ? sql`'whatt_' || lpad(id::text, 20, '0')` : sql`'whatt_' || printf('%020d', id)`;
  await sql`INSERT INTO webhook_attempts_new
    (id, delivery_id, endpoint_id, event_id, attempt, succeeded, started_at, finished_at, duration_ms,
     response_status, error_class, error_message, response_body)
    SELECT ${legacyId}, delivery_id, endpoint_id, event_id, attempt, succeeded, started_at, finished_at,
     duration_ms, response_status, error_class, error_message, response_body FROM webhook_attempts`.execute(db);
  await db.schema.dropTable('webhook_attempts').execute();
  await db.schema.alterTable('webhook_attempts_new').renameTo('webhook_attempts').execute();
  // The attempt log of an endpoint, newest first, by keyset on id.
  await db.schema
    .createIndex('webhook_attempts_endpoint')
    .on('webhook_attempts')
    .columns(['endpoint_id', 'id desc'])
    .execute();
}
