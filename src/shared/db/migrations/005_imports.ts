import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migration-context.js';

export async function up(db: Kysely<unknown>, { engine, ms }: MigrationContext): Promise<void> {
  // The upload itself is kept (bytea / blob): a restarted worker re-reads it to resume, and
  // failed_rows.csv shows the rejected rows exactly as they were uploaded.
  await db.schema
    .createTable('order_imports')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('import_mode', 'text', (c) => c.notNull())
    .addColumn('date_format', 'text')
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('content', engine === 'postgres' ? 'bytea' : 'blob', (c) => c.notNull())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('total_rows', 'integer', (c) => c.notNull())
    // Data rows already handled (created or rejected): the resume point, committed with each batch.
    .addColumn('processed_rows', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_orders', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('failed_rows', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('failure_message', 'text')
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_at', ms)
    .addColumn('created_at', ms, (c) => c.notNull())
    .addColumn('updated_at', ms, (c) => c.notNull())
    .addColumn('completed_at', ms)
    .execute();
  await db.schema
    .createIndex('order_imports_list')
    .on('order_imports')
    .columns(['account_id', 'mode', 'created_at desc', 'id desc'])
    .execute();
  await db.schema.createIndex('order_imports_pending').on('order_imports').columns(['status']).execute();

  // One row per order an import created, keyed by the order's first spreadsheet row: the
  // deterministic identity that makes a second creation of the same group a constraint violation.
  await db.schema
    .createTable('order_import_orders')
    .addColumn('import_id', 'text', (c) => c.notNull().references('order_imports.id'))
    .addColumn('row', 'integer', (c) => c.notNull())
    .addColumn('order_id', 'text', (c) => c.notNull().references('orders.id'))
    .addPrimaryKeyConstraint('order_import_orders_pk', ['import_id', 'row'])
    .execute();

  // One row per rejected spreadsheet row. cause_row is null on the row whose value was wrong and
  // names it on the other rows of the same order (rejected with it).
  await db.schema
    .createTable('order_import_errors')
    .addColumn('import_id', 'text', (c) => c.notNull().references('order_imports.id'))
    .addColumn('row', 'integer', (c) => c.notNull())
    .addColumn('cause_row', 'integer')
    .addColumn('column', 'text')
    .addColumn('param', 'text')
    .addColumn('code', 'text', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('order_import_errors_pk', ['import_id', 'row'])
    .execute();
}
