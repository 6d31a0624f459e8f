import { type Kysely, sql } from 'kysely';
import type { MigrationContext } from '../migration-context.js';

/**
 * Money and reports (DESIGN §17, docs/money.md): couriers' cash handovers and the resolutions of
 * their short or over days; merchant settlements and their lines; `orders.on_time`, fixed when an
 * order is delivered, so the reports count on-time deliveries from an index.
 */
export async function up(db: Kysely<unknown>, { ms }: MigrationContext): Promise<void> {
  await db.schema
    .createTable('cash_handovers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('courier_id', 'text', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('received_by', 'text', (c) => c.notNull())
    .addColumn('notes', 'text')
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', ms, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('cash_handovers_courier').on('cash_handovers').columns(['courier_id', 'day']).execute();
  await db.schema.createIndex('cash_handovers_day').on('cash_handovers').columns(['mode', 'day']).execute();

  // One resolution per courier, day and currency; it holds the difference it explained, so a day
  // whose figures change afterwards is open again.
  await db.schema
    .createTable('cash_resolutions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('courier_id', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('difference', 'bigint', (c) => c.notNull())
    .addColumn('note', 'text', (c) => c.notNull())
    .addColumn('resolved_by', 'text', (c) => c.notNull())
    .addColumn('resolved_at', ms, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('cash_resolutions_key')
    .unique()
    .on('cash_resolutions')
    .columns(['courier_id', 'day', 'currency'])
    .execute();

  await db.schema
    .createTable('settlements')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('period_start', 'text', (c) => c.notNull())
    .addColumn('period_end', 'text', (c) => c.notNull())
    .addColumn('timezone', 'text', (c) => c.notNull())
    .addColumn('created_at', ms, (c) => c.notNull())
    .addColumn('issued_at', ms)
    .addColumn('paid_at', ms)
    .addColumn('updated_at', ms, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('settlements_list').on('settlements').columns(['mode', 'account_id', 'id']).execute();

  await db.schema
    .createTable('settlement_lines')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('settlement_id', 'text', (c) => c.notNull().references('settlements.id'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('order_id', 'text', (c) => c.notNull())
    .addColumn('tracking_code', 'text', (c) => c.notNull())
    .addColumn('external_order_id', 'text')
    .addColumn('order_status', 'text', (c) => c.notNull())
    .addColumn('delivered_at', ms)
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('cod_collected', 'bigint', (c) => c.notNull())
    .addColumn('shipping_cost', 'bigint', (c) => c.notNull())
    .addColumn('net_payable', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('settlement_lines_of')
    .on('settlement_lines')
    .columns(['settlement_id', 'position'])
    .execute();
  // An order is settled once: a second 'order' line for it fails here, whatever the race.
  await db.schema
    .createIndex('settlement_lines_order')
    .unique()
    .on('settlement_lines')
    .column('order_id')
    .where(sql.ref('kind'), '=', 'order')
    .execute();
  await db.schema.createIndex('settlement_lines_any').on('settlement_lines').column('order_id').execute();

  // null: not delivered (yet); 1 delivered inside its window (or, without one, on its due day); 0 late.
  await db.schema.alterTable('orders').addColumn('on_time', 'integer').execute();
  // A settlement's draft reads one account's deliveries of a period.
  await db.schema
    .createIndex('orders_delivered')
    .on('orders')
    .columns(['account_id', 'mode', 'delivered_at'])
    .execute();
  // The reports' one index: the period is due_day, everything counted is in the index, so the
  // summary never reads the table (BENCHMARKS.md "Reports").
  await db.schema
    .createIndex('orders_report')
    .on('orders')
    .columns([
      'mode',
      'due_day',
      'account_id',
      'courier_id',
      'status',
      'attempts',
      'on_time',
      'created_at',
      'delivered_at',
    ])
    .execute();
}
