import { type Kysely, sql } from 'kysely';
import type { MigrationContext } from '../migration-context.js';

const COLUMNS =
  'id, account_id, mode, order_id, trigger, channel, to_address, locale, subject, body, status, reason, provider, provider_message_id, segments, attempts, send_started_at, last_error, created_at, updated_at, sent_at, delivered_at, body_masked';

/**
 * Messages are rendered by their send job (issue #19, DESIGN §14): a move writes a message row
 * without its text, so `body` and `segments` may be null until then, and `facts` (JSON) keeps what
 * the move knew that the order may not keep (the ETA of a departure, the courier, the failure's
 * reason). SQLite cannot drop a NOT NULL, so there the table is rebuilt (its rows copied, its three
 * indexes made again). It stays a rowid table: keyed on its id or on (order, trigger, channel)
 * WITHOUT ROWID, one B-tree fewer, its inserts cost the same or more (BENCHMARKS.md, "Messages
 * rendered at send").
 *
 * `jobs_ref` (kind, ref), unique, becomes partial: only jobs with a ref. A create with messages on
 * writes one send job without one, and its (kind, NULL) entry was a fifth of the job row's work;
 * NULLs never collided in the unique index, and every read of it names a ref (`ref = ?`,
 * `ref LIKE ?`, which imply `IS NOT NULL` on both engines).
 */
export async function up(db: Kysely<unknown>, { engine, ms }: MigrationContext): Promise<void> {
  await db.schema.dropIndex('jobs_ref').execute();
  await db.schema
    .createIndex('jobs_ref')
    .unique()
    .on('jobs')
    .columns(['kind', 'ref'])
    .where(sql.ref('ref'), 'is not', null)
    .execute();
  if (engine === 'postgres') {
    await sql`ALTER TABLE messages ALTER COLUMN body DROP NOT NULL, ALTER COLUMN segments DROP NOT NULL, ADD COLUMN facts text`.execute(
      db,
    );
    return;
  }
  await sql`ALTER TABLE messages RENAME TO messages_033`.execute(db);
  for (const index of ['messages_once', 'messages_list', 'messages_provider_id']) {
    await db.schema.dropIndex(index).execute();
  }
  await sql
    .raw(`CREATE TABLE messages (
      id text PRIMARY KEY NOT NULL,
      account_id text NOT NULL,
      mode text NOT NULL,
      order_id text NOT NULL,
      trigger text NOT NULL,
      channel text NOT NULL,
      to_address text,
      locale text NOT NULL,
      subject text,
      body text,
      status text NOT NULL,
      reason text,
      provider text NOT NULL,
      provider_message_id text,
      segments integer,
      attempts integer NOT NULL DEFAULT 0,
      send_started_at ${ms},
      last_error text,
      created_at ${ms} NOT NULL,
      updated_at ${ms} NOT NULL,
      sent_at ${ms},
      delivered_at ${ms},
      body_masked text,
      facts text
    )`)
    .execute(db);
  await sql.raw(`INSERT INTO messages (${COLUMNS}) SELECT ${COLUMNS} FROM messages_033`).execute(db);
  await sql`DROP TABLE messages_033`.execute(db);
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
    .where(sql.ref('provider_message_id'), 'is not', null)
    .execute();
}
