import { type Kysely, sql } from 'kysely';

/**
 * An import row may now report every field that is wrong, not only the first: a row with a bad
 * phone, no address and a bad amount took three uploads to fix. `order_import_errors` was keyed
 * by (import, row); `seq` numbers a row's errors in the order they are shown. The table is rebuilt
 * (SQLite cannot change a primary key in place); existing rows keep their one error as seq 0.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('order_import_errors_new')
    .addColumn('import_id', 'text', (c) => c.notNull().references('order_imports.id'))
    .addColumn('row', 'integer', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('cause_row', 'integer')
    .addColumn('column', 'text')
    .addColumn('param', 'text')
    .addColumn('code', 'text', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    // Its own name: on PostgreSQL the old table's key keeps `order_import_errors_pk` until it is dropped.
    .addPrimaryKeyConstraint('order_import_errors_row_seq_pk', ['import_id', 'row', 'seq'])
    .execute();
  await sql`INSERT INTO order_import_errors_new (import_id, "row", seq, cause_row, "column", param, code, message)
    SELECT import_id, "row", 0, cause_row, "column", param, code, message FROM order_import_errors`.execute(db);
  await db.schema.dropTable('order_import_errors').execute();
  await db.schema.alterTable('order_import_errors_new').renameTo('order_import_errors').execute();
}
