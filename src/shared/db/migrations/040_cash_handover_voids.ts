import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migration-context.js';

/**
 * A cash handover recorded with the wrong amount is voided, never deleted (money records are kept,
 * as Stripe keeps a voided invoice): `POST /v1/cash_handovers/{id}/void {reason}` stamps when, by
 * whom and why. A voided handover stays in the lists and counts in no balance, day line, end of day
 * or cash exception (docs/money.md). All null on the handovers made before: none of them is voided.
 */
export async function up(db: Kysely<unknown>, { ms }: MigrationContext): Promise<void> {
  await db.schema.alterTable('cash_handovers').addColumn('voided_at', ms).execute();
  await db.schema.alterTable('cash_handovers').addColumn('voided_by', 'text').execute();
  await db.schema.alterTable('cash_handovers').addColumn('void_reason', 'text').execute();
}
