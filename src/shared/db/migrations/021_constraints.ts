import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migration-context.js';

/**
 * Issue 21 (constraints in plans, dispatch and re-optimization, DESIGN §16): a courier's skills
 * (JSON array of strings), break (earliest and latest start, HH:mm, and minutes), route limits
 * (minutes, km, stops) and where its route ends (`depot`, or `last_stop`; null is depot); an
 * order's requirements (JSON array of strings, the skills its courier needs). Null is none.
 */
export async function up(db: Kysely<unknown>, _ctx: MigrationContext): Promise<void> {
  // One ALTER per column: SQLite adds a single column per statement.
  for (const [name, type] of [
    ['skills', 'text'],
    ['break_earliest', 'text'],
    ['break_latest', 'text'],
    ['break_minutes', 'integer'],
    ['max_route_minutes', 'integer'],
    ['max_route_km', 'double precision'],
    ['max_stops', 'integer'],
    ['route_end', 'text'],
  ] as const) {
    await db.schema.alterTable('couriers').addColumn(name, type).execute();
  }
  await db.schema.alterTable('orders').addColumn('requirements', 'text').execute();
}
