import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migration-context.js';

export async function up(db: Kysely<unknown>, { ms }: MigrationContext): Promise<void> {
  for (const col of ['picked_up_at', 'delivered_at', 'returned_at']) {
    await db.schema.alterTable('orders').addColumn(col, ms).execute();
  }
  await db.schema.alterTable('orders').addColumn('failure_notes', 'text').execute();
  await db.schema.createIndex('orders_courier').on('orders').column('courier_id').execute();

  // The latest position lives on the courier row itself, so a location ping is one small UPDATE.
  await db.schema
    .createTable('couriers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.references('accounts.id'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('phone', 'text')
    .addColumn('vehicle', 'text')
    .addColumn('last_lat', 'double precision')
    .addColumn('last_lng', 'double precision')
    .addColumn('last_recorded_at', ms)
    .addColumn('ping_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', ms, (c) => c.notNull())
    .addColumn('updated_at', ms, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('couriers_list').on('couriers').columns(['mode', 'account_id', 'id']).execute();

  // A ring of the last N pings per courier: slot = ping_count mod N, overwritten in place, so it never grows.
  await db.schema
    .createTable('courier_locations')
    .addColumn('courier_id', 'text', (c) => c.notNull().references('couriers.id'))
    .addColumn('slot', 'integer', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('lat', 'double precision', (c) => c.notNull())
    .addColumn('lng', 'double precision', (c) => c.notNull())
    .addColumn('recorded_at', ms, (c) => c.notNull())
    .addPrimaryKeyConstraint('courier_locations_pk', ['courier_id', 'slot'])
    .execute();

  await db.schema
    .createTable('routes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.references('accounts.id'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('courier_id', 'text', (c) => c.notNull().references('couriers.id'))
    .addColumn('date', 'text')
    .addColumn('created_at', ms, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('route_stops')
    .addColumn('route_id', 'text', (c) => c.notNull().references('routes.id'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('order_id', 'text', (c) => c.notNull().references('orders.id'))
    .addPrimaryKeyConstraint('route_stops_pk', ['route_id', 'position'])
    .execute();
  await db.schema.createIndex('route_stops_order').on('route_stops').columns(['order_id']).execute();

  await db.schema
    .createTable('files')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.references('accounts.id'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('mime', 'text', (c) => c.notNull())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('created_at', ms, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('proofs')
    .addColumn('order_id', 'text', (c) => c.primaryKey().references('orders.id'))
    .addColumn('receiver_name', 'text', (c) => c.notNull())
    .addColumn('receiver_document', 'text')
    .addColumn('relationship', 'text')
    .addColumn('signature_file', 'text')
    .addColumn('photo_files', 'text', (c) => c.notNull())
    .addColumn('collected_amount', 'bigint')
    .addColumn('payment_method', 'text')
    .addColumn('cod_status', 'text')
    .addColumn('delivered_packages', 'integer', (c) => c.notNull())
    .addColumn('lat', 'double precision')
    .addColumn('lng', 'double precision')
    .addColumn('delivered_at', ms, (c) => c.notNull())
    .execute();
}
