import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migration-context.js';

/**
 * The customer's tracking page, second round (DESIGN §15, issue #20):
 * - `orders.delivery_instructions`, `orders.safe_place`: what the customer wrote on the page
 *   before departure (the courier app and the console show them);
 * - `orders.feedback_rating` (1–5), `feedback_comment`, `feedback_at`: the customer's one rating
 *   after delivery, and `couriers.rating_count` / `rating_total`, its running sum, updated in
 *   the same transaction, so a courier's average costs no scan;
 * - `accounts.brand_name`, `brand_color`, `brand_logo_file`: the merchant's brand on the page.
 */
export async function up(db: Kysely<unknown>, { ms }: MigrationContext): Promise<void> {
  for (const col of ['delivery_instructions', 'safe_place', 'feedback_comment']) {
    await db.schema.alterTable('orders').addColumn(col, 'text').execute();
  }
  await db.schema.alterTable('orders').addColumn('feedback_rating', 'integer').execute();
  await db.schema.alterTable('orders').addColumn('feedback_at', ms).execute();
  await db.schema
    .alterTable('couriers')
    .addColumn('rating_count', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('couriers')
    .addColumn('rating_total', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  for (const col of ['brand_name', 'brand_color', 'brand_logo_file']) {
    await db.schema.alterTable('accounts').addColumn(col, 'text').execute();
  }
}
