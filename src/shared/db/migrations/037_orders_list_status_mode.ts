import type { Kysely } from 'kysely';

/**
 * The carrier's people list orders of one status across every account (the live map and planning
 * read the open orders one status at a time). `orders_list_status` leads with `account_id`, so such
 * a page walked `orders_list_mode` newest first and kept the rows of that status: on a million
 * orders, a status with few or none read the whole environment. This is the same index without the
 * account, for the operator's scope, led by `status`: led by `mode`, SQLite without statistics took
 * it for a day's counts per status (it hands the rows over grouped by status) instead of the day's
 * own index, and walked every order of the environment.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('orders_list_status_mode')
    .on('orders')
    .columns(['status', 'mode', 'created_at desc', 'id desc'])
    .execute();
}
