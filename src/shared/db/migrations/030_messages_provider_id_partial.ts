import { type Kysely, sql } from 'kysely';

/**
 * `messages_provider_id` (provider, provider_message_id), which a provider's status callback reads,
 * becomes partial: only messages a provider has accepted. Every message is written without one (a
 * create with order_confirmed on for three channels wrote three empty entries into it, a third of
 * a message's index writes), and the callback's `provider_message_id = ?` implies `IS NOT NULL`,
 * which both engines accept for a partial index.
 *
 * Numbered 030: 029 is taken by work in progress on another branch.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('messages_provider_id').execute();
  await db.schema
    .createIndex('messages_provider_id')
    .on('messages')
    .columns(['provider', 'provider_message_id'])
    .where(sql.ref('provider_message_id'), 'is not', null)
    .execute();
}
