import type { Kysely } from 'kysely';

/**
 * Issue 21 (DESIGN §16, pickup-and-delivery pairs):
 * - `orders.pickup_address`: JSON Address where the courier collects the parcel; null (every order
 *   before this, and most after) means the parcel leaves from the depot;
 * - `route_stops.kind`: `delivery` (every stop until now) or `pickup`, so a paired order has two
 *   stops on its route, the pickup before the delivery. The key stays (route_id, position).
 *
 * Numbered 032: 031 may be taken by work in progress on another branch.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('orders').addColumn('pickup_address', 'text').execute();
  await db.schema
    .alterTable('route_stops')
    .addColumn('kind', 'text', (c) => c.notNull().defaultTo('delivery'))
    .execute();
}
