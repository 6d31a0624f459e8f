import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migration-context.js';

/** Route planning (DESIGN §10): depots, couriers' shift and vehicle, and route plans. */
export async function up(db: Kysely<unknown>, { ms }: MigrationContext): Promise<void> {
  await db.schema
    .createTable('depots')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('lat', 'double precision', (c) => c.notNull())
    .addColumn('lng', 'double precision', (c) => c.notNull())
    .addColumn('address', 'text')
    .addColumn('timezone', 'text', (c) => c.notNull())
    .addColumn('created_at', ms, (c) => c.notNull())
    .addColumn('updated_at', ms, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('depots_mode').on('depots').columns(['mode', 'id']).execute();

  // One ALTER per column: SQLite adds a single column per statement.
  for (const [name, type] of [
    ['capacity_kg', 'double precision'],
    ['capacity_packages', 'integer'],
    ['shift_start', 'text'],
    ['shift_end', 'text'],
    ['start_depot', 'text'],
    ['end_depot', 'text'],
  ] as const) {
    await db.schema.alterTable('couriers').addColumn(name, type).execute();
  }

  // The request, the result and the orders' versions at planning time are JSON: a plan is read
  // whole, and commit compares the versions to find what changed since.
  await db.schema
    .createTable('route_plans')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('depot_id', 'text', (c) => c.notNull().references('depots.id'))
    .addColumn('date', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('progress', 'double precision', (c) => c.notNull())
    .addColumn('request', 'text', (c) => c.notNull())
    .addColumn('versions', 'text', (c) => c.notNull())
    .addColumn('result', 'text')
    .addColumn('failure', 'text')
    .addColumn('committed_at', ms)
    .addColumn('created_at', ms, (c) => c.notNull())
    .addColumn('updated_at', ms, (c) => c.notNull())
    .execute();
}
