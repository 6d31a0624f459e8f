import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migration-context.js';

/** People (DESIGN §8, §9): users, their sessions and invitations; couriers' sign-in codes and sessions. */
export async function up(db: Kysely<unknown>, { ms }: MigrationContext): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    // Stored lower-cased, so the unique constraint is case-insensitive on both engines.
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.references('accounts.id'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', ms, (c) => c.notNull())
    .addColumn('updated_at', ms, (c) => c.notNull())
    .execute();

  // Sessions are looked up by the hash of the cookie's token; the token itself is never stored.
  await db.schema
    .createTable('sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', ms, (c) => c.notNull())
    .addColumn('last_seen_at', ms, (c) => c.notNull())
    .addColumn('expires_at', ms, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sessions_user').on('sessions').column('user_id').execute();

  // One row per failed attempt (sign-in, courier code), so every instance sees the same count.
  await db.schema
    .createTable('sign_in_failures')
    .addColumn('bucket', 'text', (c) => c.notNull())
    .addColumn('at', ms, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sign_in_failures_bucket').on('sign_in_failures').columns(['bucket', 'at']).execute();

  await db.schema
    .createTable('invitations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.references('accounts.id'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', ms, (c) => c.notNull())
    .addColumn('expires_at', ms, (c) => c.notNull())
    .addColumn('accepted_at', ms)
    .execute();

  await db.schema
    .alterTable('couriers')
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('active'))
    .execute();

  await db.schema
    .createTable('courier_sign_in_codes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('courier_id', 'text', (c) => c.notNull().references('couriers.id'))
    .addColumn('code_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', ms, (c) => c.notNull())
    .addColumn('expires_at', ms, (c) => c.notNull())
    .addColumn('used_at', ms)
    .execute();

  await db.schema
    .createTable('courier_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('courier_id', 'text', (c) => c.notNull().references('couriers.id'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', ms, (c) => c.notNull())
    .addColumn('expires_at', ms, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('courier_sessions_courier').on('courier_sessions').column('courier_id').execute();

  // A rolled key keeps working for a while (24 h) so the merchant can deploy the new one.
  await db.schema.alterTable('api_keys').addColumn('expires_at', ms).execute();
}
