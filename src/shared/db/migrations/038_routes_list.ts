import type { Kysely } from 'kysely';

/**
 * GET /v1/routes lists a day's routes (the console's Routes page) and a courier's. The table had only
 * its primary key, so a day's page walked every route of every day newest first. Auto-dispatch's
 * read of the day's routes of its couriers uses the courier's index too.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('routes_day').on('routes').columns(['mode', 'date', 'id desc']).execute();
  await db.schema.createIndex('routes_courier').on('routes').columns(['courier_id', 'id desc']).execute();
}
