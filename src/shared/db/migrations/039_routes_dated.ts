import { type Kysely, sql } from 'kysely';
import { localDay } from '../../local-time.js';
import type { MigrationContext } from '../migration-context.js';

/**
 * Every route is on a day. `POST /v1/routes` without a `date` used to leave it null, and such a route
 * was on no day: not in `GET /v1/routes?date=`, not on the console's Routes page, found by
 * auto-dispatch only through a second test on its creation time. Now a route made without one is
 * dated the day it is made (lifecycle/assign-route.ts); this dates the old ones the same way.
 */
export async function up(db: Kysely<unknown>, { timezone }: MigrationContext): Promise<void> {
  await backfill(db, timezone);
}

interface Undated {
  id: string;
  created_at: number | string;
  depot_tz: string | null;
  order_tz: string | null;
}

/**
 * The day the route was made, read where it is read now: its courier's start depot's zone, else its
 * first stop's order's zone, else the carrier's (`tz`). In id order, `batch` routes at a time.
 */
export async function backfill(db: Kysely<any>, tz: string, batch = 500): Promise<void> {
  let after = '';
  for (;;) {
    const { rows } = await sql<Undated>`select r.id, r.created_at, d.timezone as depot_tz,
        (select o.timezone from route_stops s join orders o on o.id = s.order_id
          where s.route_id = r.id order by s.position limit 1) as order_tz
      from routes r left join couriers c on c.id = r.courier_id left join depots d on d.id = c.start_depot
      where r.date is null and r.id > ${after} order by r.id limit ${batch}`.execute(db);
    if (rows.length === 0) return;
    for (const r of rows) {
      const day = localDay(Number(r.created_at), r.depot_tz ?? r.order_tz ?? tz);
      await sql`update routes set date = ${day} where id = ${r.id}`.execute(db);
    }
    after = rows[rows.length - 1]!.id;
  }
}
