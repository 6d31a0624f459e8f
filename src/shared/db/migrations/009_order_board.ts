import { type Kysely, sql } from 'kysely';
import type { MigrationContext } from '../migration-context.js';
import { phoneKey, searchKey } from '../tables/orders.js';

/**
 * The dispatch board's filters and counts (DESIGN §8), as columns an index can serve:
 * - `due_at`: when the order is due (requested_date, else created_at), as epoch ms. requested_date
 *   is stored as the text the merchant sent, with its own offset, which no index can range over;
 * - `customer_key`, `phone_key`: the customer's name and phone as the search compares them
 *   (`searchKey`, `phoneKey`); the name lives inside the customer JSON.
 * Each index carries `account_id` after its range column, so one index serves an operator (the
 * whole environment) and a merchant (one account, checked inside the index), and the counts
 * (`status` last) are read from the index alone.
 */
export async function up(db: Kysely<unknown>, { engine, ms }: MigrationContext): Promise<void> {
  // Byte order on PostgreSQL whatever the database's collation, so a prefix is one index range.
  const binary = engine === 'postgres' ? sql`collate "C"` : sql``;
  await db.schema
    .alterTable('orders')
    .addColumn('due_at', ms, (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('orders')
    .addColumn('customer_key', 'text', (c) => c.notNull().defaultTo('').modifyEnd(binary))
    .execute();
  await db.schema
    .alterTable('orders')
    .addColumn('phone_key', 'text', (c) => c.modifyEnd(binary))
    .execute();
  await backfill(db, engine);
  await db.schema.createIndex('orders_due').on('orders').columns(['mode', 'due_at', 'account_id', 'status']).execute();
  await db.schema.createIndex('orders_customer').on('orders').columns(['mode', 'customer_key', 'account_id']).execute();
  await db.schema.createIndex('orders_phone').on('orders').columns(['mode', 'phone_key', 'account_id']).execute();
  // Was (account_id, mode, external_order_id): an operator's search has no account to lead with.
  await db.schema.dropIndex('orders_external').execute();
  await db.schema
    .createIndex('orders_external')
    .on('orders')
    .columns(['mode', 'external_order_id', 'account_id'])
    .execute();
}

interface Old {
  id: string;
  customer: string;
  requested_date: string | null;
  created_at: number | string;
}

/** In id order, `batch` rows at a time: the keys are computed by the same functions the writes use. */
export async function backfill(db: Kysely<any>, engine: MigrationContext['engine'], batch = 1000): Promise<void> {
  let after = '';
  for (;;) {
    const { rows } = await sql<Old>`select id, customer, requested_date, created_at from orders
      where id > ${after} order by id limit ${batch}`.execute(db);
    if (rows.length === 0) return;
    const values = rows.map((r) => {
      const customer = JSON.parse(r.customer) as { name?: string; phone?: string; whatsapp?: string };
      const requested = r.requested_date === null ? Number.NaN : Date.parse(r.requested_date);
      return {
        id: r.id,
        due: Number.isFinite(requested) ? requested : Number(r.created_at),
        key: searchKey(customer.name ?? ''),
        phone: phoneKey(customer.phone ?? customer.whatsapp),
      };
    });
    if (engine === 'postgres') {
      const list = sql.join(values.map((v) => sql`(${v.id}, ${v.due}::bigint, ${v.key}, ${v.phone}::text)`));
      await sql`update orders o set due_at = v.due, customer_key = v.key, phone_key = v.phone
        from (values ${list}) as v(id, due, key, phone) where o.id = v.id`.execute(db);
    } else {
      for (const v of values) {
        await sql`update orders set due_at = ${v.due}, customer_key = ${v.key}, phone_key = ${v.phone}
          where id = ${v.id}`.execute(db);
      }
    }
    after = rows[rows.length - 1]!.id;
  }
}
