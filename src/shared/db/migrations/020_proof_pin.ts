import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migration-context.js';

/**
 * Issue 19 (DESIGN §14, the delivery PIN and proof settings):
 * - `proof_settings`: per account (or `'*'`, the carrier's defaults, as `message_settings`), what a
 *   delivery must or may capture: signature, photo, PIN, ID document, age check;
 * - `orders.proof`: JSON of the levels fixed at creation (the account's settings raised by the
 *   order's own `requires_*`), so a settings change never moves the goalposts of an order on a
 *   van; `delivery_pin` (4 digits, only when the PIN is required), its wrong tries and its state
 *   (`set`, `locked` after the fifth wrong one, `overridden` by a dispatcher);
 * - `proofs`: the receiver's ID document and the age check, when captured;
 * - `messages.body_masked`: the body with the PIN blanked, what the carrier's people read (the
 *   customer got the real one).
 */
export async function up(db: Kysely<unknown>, { ms }: MigrationContext): Promise<void> {
  await db.schema
    .createTable('proof_settings')
    .addColumn('account_id', 'text', (c) => c.primaryKey())
    .addColumn('signature', 'text', (c) => c.notNull())
    .addColumn('photo', 'text', (c) => c.notNull())
    .addColumn('pin', 'text', (c) => c.notNull())
    .addColumn('id_check', 'text', (c) => c.notNull())
    .addColumn('age_check', 'text', (c) => c.notNull())
    .addColumn('updated_at', ms, (c) => c.notNull())
    .execute();
  await db.schema.alterTable('orders').addColumn('proof', 'text').execute();
  await db.schema.alterTable('orders').addColumn('delivery_pin', 'text').execute();
  await db.schema
    .alterTable('orders')
    .addColumn('pin_attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('orders').addColumn('pin_state', 'text').execute();
  await db.schema.alterTable('proofs').addColumn('id_document_type', 'text').execute();
  await db.schema.alterTable('proofs').addColumn('id_document_number', 'text').execute();
  await db.schema.alterTable('proofs').addColumn('age_verified', 'integer').execute();
  await db.schema.alterTable('proofs').addColumn('pin', 'text').execute();
  await db.schema.alterTable('messages').addColumn('body_masked', 'text').execute();
}
