import type { Kysely } from 'kysely';

/**
 * Importing the same file twice made every order twice, silently. An import now lists warnings
 * beside its errors (an `external_order_id` an order of the account and environment already has, or
 * that the file repeats further down; a row without any phone), one line each, keyed like
 * `order_import_errors` by (import, row, seq). `duplicates` is the upload's `?duplicates=`
 * (`create`, as before, or `skip`: an order whose external_order_id exists is left out), and
 * `skipped_orders` counts the orders it left out. The imports from before were all `create`, and
 * skipped none.
 *
 * No index is added: the lookup of a batch's external ids (`mode = ? AND external_order_id IN (…)
 * AND account_id = ?`) is an equality on every column of `orders_external` (009_order_board).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('order_imports')
    .addColumn('duplicates', 'text', (c) => c.notNull().defaultTo('create'))
    .execute();
  await db.schema
    .alterTable('order_imports')
    .addColumn('skipped_orders', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createTable('order_import_warnings')
    .addColumn('import_id', 'text', (c) => c.notNull().references('order_imports.id'))
    .addColumn('row', 'integer', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('column', 'text')
    .addColumn('param', 'text')
    .addColumn('code', 'text', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('order_import_warnings_pk', ['import_id', 'row', 'seq'])
    .execute();
}
