import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migration-context.js';

/**
 * Issue 24 (a real day, set up from the screens): `orders.geocode`, JSON of how an address without
 * coordinates was located by the geocoder (RUTA_GEOCODER_URL): the match's quality and confidence,
 * the geocoder's label for it, and whether a person should check it (docs/geocoding.md). Null for
 * orders whose coordinates came with them.
 */
export async function up(db: Kysely<unknown>, _ctx: MigrationContext): Promise<void> {
  await db.schema.alterTable('orders').addColumn('geocode', 'text').execute();
}
