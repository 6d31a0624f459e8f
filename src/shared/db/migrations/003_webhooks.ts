import { type Kysely, sql } from 'kysely';
import type { MigrationContext } from '../migration-context.js';

export async function up(db: Kysely<unknown>, { engine, ms }: MigrationContext): Promise<void> {
  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('events', 'text', (c) => c.notNull())
    // Stored retrievably (not hashed): the dispatcher needs it to sign every delivery.
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('previous_secret', 'text')
    .addColumn('previous_secret_expires_at', ms)
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('disabled_reason', 'text')
    .addColumn('disabled_at', ms)
    .addColumn('first_failure_at', ms)
    .addColumn('last_success_at', ms)
    .addColumn('created_at', ms, (c) => c.notNull())
    .addColumn('updated_at', ms, (c) => c.notNull())
    .addColumn('deleted_at', ms)
    .execute();
  await db.schema
    .createIndex('webhook_endpoints_list')
    .on('webhook_endpoints')
    .columns(['account_id', 'mode', 'created_at desc', 'id desc'])
    .execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('event_id', 'text', (c) => c.notNull().references('events.id'))
    .addColumn('endpoint_id', 'text', (c) => c.notNull().references('webhook_endpoints.id'))
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('order_id', 'text')
    .addColumn('sequence', 'integer', (c) => c.notNull())
    // event: created by the outbox; redeliver / test: asked for explicitly, so sent even to a disabled endpoint.
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', ms, (c) => c.notNull())
    .addColumn('first_attempt_at', ms)
    .addColumn('last_attempt_at', ms)
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_at', ms)
    .addColumn('last_error', 'text')
    .addColumn('last_status_code', 'integer')
    .addColumn('created_at', ms, (c) => c.notNull())
    .addColumn('completed_at', ms)
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_due')
    .on('webhook_deliveries')
    .columns(['status', 'next_attempt_at'])
    .execute();
  // The per-(endpoint, order) ordering check is an index probe.
  await db.schema
    .createIndex('webhook_deliveries_order')
    .on('webhook_deliveries')
    .columns(['endpoint_id', 'order_id', 'status', 'sequence'])
    .execute();
  await db.schema.createIndex('webhook_deliveries_event').on('webhook_deliveries').columns(['event_id']).execute();

  await db.schema
    .createTable('webhook_attempts')
    .addColumn('id', engine === 'postgres' ? 'bigserial' : 'integer', (c) =>
      engine === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement(),
    )
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
  await db.schema
    .createIndex('webhook_attempts_endpoint')
    .on('webhook_attempts')
    .columns(['endpoint_id', 'id desc'])
    .execute();

  if (engine === 'postgres') {
    // NOTIFY is delivered at commit, so every worker wakes exactly when new deliveries become visible.
    await sql`CREATE FUNCTION ruta_webhook_notify() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN PERFORM pg_notify('ruta_webhooks', ''); RETURN NULL; END $$`.execute(db);
    await sql`CREATE TRIGGER webhook_deliveries_notify AFTER INSERT ON webhook_deliveries
      FOR EACH STATEMENT EXECUTE FUNCTION ruta_webhook_notify()`.execute(db);
  }
}
