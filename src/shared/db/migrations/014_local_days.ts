import { type Kysely, sql } from 'kysely';
import { localDay, localIso, startOfDay } from '../../local-time.js';
import type { MigrationContext } from '../migration-context.js';

/**
 * Local calendar days (issue #18, defect 12; docs/api.md "Dates and time zones") and default
 * working days (defect 13):
 * - `accounts.timezone` (null: the carrier's, RUTA_DEFAULT_TIMEZONE) and `accounts.depot_id` (the
 *   depot its parcels leave from; that depot's zone wins);
 * - `orders.timezone`, the zone the order's days are read in, fixed when the order is created, and
 *   `orders.due_day`, the local day it is due (its requested day, else the day it was created),
 *   beside `due_at`: the board's day filter and the plans' order set compare days, not instants;
 * - `depots.shift_start` / `shift_end`, the depot's working day (null: RUTA_DEFAULT_SHIFT).
 */
export async function up(db: Kysely<unknown>, { engine, timezone }: MigrationContext): Promise<void> {
  await db.schema.alterTable('accounts').addColumn('timezone', 'text').execute();
  await db.schema.alterTable('accounts').addColumn('depot_id', 'text').execute();
  await db.schema.alterTable('depots').addColumn('shift_start', 'text').execute();
  await db.schema.alterTable('depots').addColumn('shift_end', 'text').execute();
  await db.schema
    .alterTable('orders')
    .addColumn('timezone', 'text', (c) => c.notNull().defaultTo('UTC'))
    .execute();
  await db.schema
    .alterTable('orders')
    .addColumn('due_day', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await backfill(db, engine, timezone);
  // As orders_due: account_id after the range column (one index for an operator and a merchant),
  // status last so the counts per status are read from the index alone.
  await db.schema
    .createIndex('orders_due_day')
    .on('orders')
    .columns(['mode', 'due_day', 'account_id', 'status'])
    .execute();
}

interface Old {
  id: string;
  source: string | null;
  requested_date: string | null;
  created_at: number | string;
  due_at: number | string;
}

/**
 * The import used to store a date cell (`fecha=2026-11-25`, an Excel date) as that day's midnight
 * in UTC, written by `toISOString`; such a requested date on an imported order was a calendar day,
 * and becomes that day in the order's zone. Any other requested date is the instant it says.
 */
const OLD_IMPORTED_DAY = /^(\d{4}-\d{2}-\d{2})T00:00:00\.000Z$/;

/**
 * Every existing order gets the carrier's zone (accounts have none yet), its due day in that zone,
 * and, for an imported plain day, that day's start in that zone. In id order, `batch` rows at a time.
 */
export async function backfill(db: Kysely<any>, engine: MigrationContext['engine'], tz: string, batch = 1000) {
  let after = '';
  for (;;) {
    const { rows } = await sql<Old>`select id, source, requested_date, created_at, due_at from orders
      where id > ${after} order by id limit ${batch}`.execute(db);
    if (rows.length === 0) return;
    const values = rows.map((r) => {
      const day = r.source === 'excel' ? OLD_IMPORTED_DAY.exec(r.requested_date ?? '')?.[1] : undefined;
      if (day === undefined) {
        const dueAt = Number(r.due_at);
        return { id: r.id, requested: r.requested_date, dueAt, dueDay: localDay(dueAt, tz) };
      }
      const dueAt = startOfDay(day, tz);
      return { id: r.id, requested: localIso(dueAt, tz), dueAt, dueDay: day };
    });
    if (engine === 'postgres') {
      const list = sql.join(
        values.map((v) => sql`(${v.id}, ${v.requested}::text, ${v.dueAt}::bigint, ${v.dueDay}::text)`),
      );
      await sql`update orders o set timezone = ${tz}, requested_date = v.requested, due_at = v.due_at,
          due_day = v.due_day
        from (values ${list}) as v(id, requested, due_at, due_day) where o.id = v.id`.execute(db);
    } else {
      for (const v of values) {
        await sql`update orders set timezone = ${tz}, requested_date = ${v.requested}, due_at = ${v.dueAt},
            due_day = ${v.dueDay} where id = ${v.id}`.execute(db);
      }
    }
    after = rows[rows.length - 1]!.id;
  }
}
