import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migration-context.js';

/**
 * Issue #18: the lock-out counts attempts before the password is checked, browsers a user signed in
 * from are remembered, and admins can reset a password.
 *
 * - `sign_in_attempts` replaces `sign_in_failures`: one row per attempt and bucket, written before
 *   the (slow) check and kept only when the attempt fails, so concurrent guesses see each other. The
 *   attempt's id lets a success or a refusal take back exactly its own rows. The old rows are 15
 *   minutes of failures at most; dropping them forgets at most one window of counts.
 * - `known_devices`: the hashed token of each browser's `ruta_device` cookie and the user it signed in.
 * - `password_resets`: single-use links made by an admin, stored hashed like invitations.
 */
export async function up(db: Kysely<unknown>, { ms }: MigrationContext): Promise<void> {
  await db.schema
    .createTable('sign_in_attempts')
    .addColumn('bucket', 'text', (c) => c.notNull())
    .addColumn('at', ms, (c) => c.notNull())
    .addColumn('attempt_id', 'text', (c) => c.notNull())
    // Counting reads (bucket, at > since); taking an attempt back deletes (bucket, at, attempt_id).
    .addPrimaryKeyConstraint('sign_in_attempts_pk', ['bucket', 'at', 'attempt_id'])
    .execute();
  // The purge of rows older than the window.
  await db.schema.createIndex('sign_in_attempts_at').on('sign_in_attempts').column('at').execute();
  await db.schema.dropTable('sign_in_failures').execute();

  await db.schema
    .createTable('known_devices')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('created_at', ms, (c) => c.notNull())
    .addColumn('last_used_at', ms, (c) => c.notNull())
    .addColumn('expires_at', ms, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('known_devices_user').on('known_devices').column('user_id').execute();

  await db.schema
    .createTable('password_resets')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', ms, (c) => c.notNull())
    .addColumn('expires_at', ms, (c) => c.notNull())
    .addColumn('used_at', ms)
    .execute();
  await db.schema.createIndex('password_resets_user').on('password_resets').column('user_id').execute();
}
