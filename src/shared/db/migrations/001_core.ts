import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migration-context.js';

export async function up(db: Kysely<unknown>, { engine, ms }: MigrationContext): Promise<void> {
  await db.schema
    .createTable('accounts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('pricing', 'text')
    .addColumn('origin_lat', 'double precision')
    .addColumn('origin_lng', 'double precision')
    .addColumn('created_at', ms, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.references('accounts.id'))
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('display', 'text', (c) => c.notNull())
    .addColumn('created_at', ms, (c) => c.notNull())
    .addColumn('revoked_at', ms)
    .execute();

  await db.schema
    .createTable('orders')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('tracking_code', 'text', (c) => c.notNull().unique())
    .addColumn('external_order_id', 'text')
    .addColumn('source', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('customer', 'text', (c) => c.notNull())
    .addColumn('delivery_address', 'text', (c) => c.notNull())
    .addColumn('items', 'text', (c) => c.notNull())
    .addColumn('requested_date', 'text')
    .addColumn('time_window', 'text')
    .addColumn('priority', 'integer', (c) => c.notNull())
    .addColumn('is_urgent', 'integer', (c) => c.notNull())
    .addColumn('requires_signature', 'integer', (c) => c.notNull())
    .addColumn('requires_photo', 'integer', (c) => c.notNull())
    .addColumn('cash_on_delivery', 'bigint', (c) => c.notNull())
    .addColumn('shipping_cost', 'bigint', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('weight_kg', 'double precision', (c) => c.notNull())
    .addColumn('packages', 'integer', (c) => c.notNull())
    .addColumn('customer_notes', 'text')
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('courier_id', 'text')
    .addColumn('courier_name', 'text')
    .addColumn('route_id', 'text')
    .addColumn('cancellation_reason', 'text')
    .addColumn('failure_reason', 'text')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('event_seq', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', ms, (c) => c.notNull())
    .addColumn('updated_at', ms, (c) => c.notNull())
    .execute();
  // Keyset pagination: every list query is an index range scan, whatever the page depth.
  await db.schema
    .createIndex('orders_list')
    .on('orders')
    .columns(['account_id', 'mode', 'created_at desc', 'id desc'])
    .execute();
  await db.schema
    .createIndex('orders_list_status')
    .on('orders')
    .columns(['account_id', 'mode', 'status', 'created_at desc', 'id desc'])
    .execute();
  await db.schema
    .createIndex('orders_list_mode')
    .on('orders')
    .columns(['mode', 'created_at desc', 'id desc'])
    .execute();
  await db.schema
    .createIndex('orders_external')
    .on('orders')
    .columns(['account_id', 'mode', 'external_order_id'])
    .execute();

  await db.schema
    .createTable('order_timeline')
    .addColumn('id', engine === 'postgres' ? 'bigserial' : 'integer', (c) =>
      engine === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement(),
    )
    .addColumn('order_id', 'text', (c) => c.notNull().references('orders.id'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('occurred_at', ms, (c) => c.notNull())
    .addColumn('lat', 'double precision')
    .addColumn('lng', 'double precision')
    .execute();
  await db.schema.createIndex('order_timeline_order').on('order_timeline').columns(['order_id', 'id']).execute();

  await db.schema
    .createTable('events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('order_id', 'text')
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('created_at', ms, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('events_list')
    .on('events')
    .columns(['account_id', 'mode', 'created_at desc', 'id desc'])
    .execute();
  await db.schema.createIndex('events_order').on('events').columns(['order_id', 'created_at']).execute();

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('owner', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('response_status', 'integer')
    .addColumn('response_body', 'text')
    .addColumn('locked_at', ms, (c) => c.notNull())
    .addColumn('expires_at', ms, (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['owner', 'mode', 'key'])
    .execute();
  await db.schema.createIndex('idempotency_keys_expiry').on('idempotency_keys').column('expires_at').execute();

  await db.schema
    .createTable('rate_limits')
    .addColumn('bucket', 'text', (c) => c.notNull())
    .addColumn('window_start', ms, (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('rate_limits_pk', ['bucket', 'window_start'])
    .execute();

  await db.schema
    .createTable('settings')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();
}
