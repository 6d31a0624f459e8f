import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migration-context.js';

/**
 * Live dispatch (DESIGN §16):
 * - `dispatch_settings`: the auto-dispatch mode (`off | suggest | assign`) per environment, for the
 *   carrier as a whole (`account_id` '') and per account (an override of the carrier's);
 * - `auto_dispatches`: what the auto-dispatch sweep did with each order it looked at, once per
 *   order, so that an order that fits nowhere is not tried again every few seconds and the console
 *   can say why it is still waiting.
 */
export async function up(db: Kysely<unknown>, { ms }: MigrationContext): Promise<void> {
  await db.schema
    .createTable('dispatch_settings')
    .addColumn('mode', 'text', (c) => c.notNull())
    // '' is the carrier's own setting (an empty string rather than null: it is part of the key).
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('auto_dispatch', 'text', (c) => c.notNull())
    .addColumn('updated_at', ms, (c) => c.notNull())
    .addPrimaryKeyConstraint('dispatch_settings_pk', ['mode', 'account_id'])
    .execute();
  await db.schema
    .createTable('auto_dispatches')
    .addColumn('order_id', 'text', (c) => c.primaryKey())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('courier_id', 'text')
    .addColumn('route_id', 'text')
    .addColumn('message', 'text')
    .addColumn('created_at', ms, (c) => c.notNull())
    .execute();
}
