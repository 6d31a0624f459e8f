import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migration-context.js';

/**
 * Customer messages (DESIGN §14): each account's settings and templates, the messages themselves
 * (written in the transaction of the move that triggers them, sent by a leased job), and the
 * addresses that opted out.
 */
export async function up(db: Kysely<unknown>, { ms }: MigrationContext): Promise<void> {
  await db.schema
    .createTable('message_settings')
    // An account's id, or '*' for the carrier's defaults (what accounts without their own use).
    .addColumn('account_id', 'text', (c) => c.primaryKey())
    // JSON: triggers × channels, quiet hours, sender name, locale, template overrides.
    .addColumn('settings', 'text', (c) => c.notNull())
    .addColumn('updated_at', ms, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('order_id', 'text', (c) => c.notNull())
    .addColumn('trigger', 'text', (c) => c.notNull())
    .addColumn('channel', 'text', (c) => c.notNull())
    // E.164 or an email address; null when the order has none valid (then suppressed).
    .addColumn('to_address', 'text')
    .addColumn('locale', 'text', (c) => c.notNull())
    .addColumn('subject', 'text')
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('provider_message_id', 'text')
    .addColumn('segments', 'integer', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    // Set when a send began and cleared when its answer was recorded: a send that finds it set
    // knows a worker died mid-call, and asks the provider before sending again.
    .addColumn('send_started_at', ms)
    .addColumn('last_error', 'text')
    .addColumn('created_at', ms, (c) => c.notNull())
    .addColumn('updated_at', ms, (c) => c.notNull())
    .addColumn('sent_at', ms)
    .addColumn('delivered_at', ms)
    .execute();
  // One message per (order, trigger, channel), whatever crashes or retries in between.
  await db.schema
    .createIndex('messages_once')
    .unique()
    .on('messages')
    .columns(['order_id', 'trigger', 'channel'])
    .execute();
  await db.schema.createIndex('messages_list').on('messages').columns(['account_id', 'mode', 'id']).execute();
  await db.schema
    .createIndex('messages_provider_id')
    .on('messages')
    .columns(['provider', 'provider_message_id'])
    .execute();

  await db.schema
    .createTable('message_opt_outs')
    .addColumn('account_id', 'text', (c) => c.notNull())
    // E.164 phone (SMS and WhatsApp alike) or a lower-cased email address.
    .addColumn('address', 'text', (c) => c.notNull())
    // The keyword or link that opted it out (STOP, BAJA, email_link, …).
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('created_at', ms, (c) => c.notNull())
    .addPrimaryKeyConstraint('message_opt_outs_pk', ['account_id', 'address'])
    .execute();
}
