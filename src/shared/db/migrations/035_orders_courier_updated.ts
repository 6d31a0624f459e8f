import type { Kysely } from 'kysely';

/**
 * A courier's phone asks for the orders it finished today (GET /v1/couriers/{id}/done_today) at
 * every route refresh. `orders_courier` (002_lifecycle) held `courier_id` alone, so each refresh
 * read all of that courier's orders, of every day, to keep today's. With `updated_at` after it, the
 * same index finds the last day's only; every other use of it (one courier's orders) still reads it
 * by its leading column.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('orders_courier').execute();
  await db.schema.createIndex('orders_courier').on('orders').columns(['courier_id', 'updated_at']).execute();
}
