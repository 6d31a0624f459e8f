import { type Kysely, sql } from 'kysely';

/**
 * A route a plan made remembers the depots the plan set its courier off from and back to. Live
 * dispatch and re-optimization start such a route's courier (with no depot of its own and no fresh
 * position) where the plan did; they used to find those depots by reading every committed plan of
 * the day as JSON on each suggestion. Null on a route made by hand. The backfill reads the
 * committed plans once, here.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('routes').addColumn('start_depot', 'text').execute();
  await db.schema.alterTable('routes').addColumn('end_depot', 'text').execute();
  await backfill(db);
}

interface Committed {
  id: string;
  depot_id: string;
  request: string;
  result: string;
}

interface Planned {
  courier_id: string;
  start_depot?: string;
  end_depot?: string;
}

/**
 * From each committed plan: its `result.route_ids` name its routes in the order of `result.routes`,
 * and `request.planned` the depots resolved for each courier (the plan's depot when a plan stored
 * before per-courier depots names none). In id order, `batch` plans at a time.
 */
export async function backfill(db: Kysely<any>, batch = 200): Promise<void> {
  let after = '';
  for (;;) {
    const { rows } = await sql<Committed>`select id, depot_id, request, result from route_plans
      where committed_at is not null and result is not null and id > ${after} order by id limit ${batch}`.execute(db);
    if (rows.length === 0) return;
    for (const plan of rows) {
      const result = JSON.parse(plan.result) as { routes?: { courier_id: string }[]; route_ids?: string[] };
      const request = JSON.parse(plan.request) as { planned?: Planned[] };
      for (const [i, routeId] of (result.route_ids ?? []).entries()) {
        const courierId = result.routes?.[i]?.courier_id;
        const planned = request.planned?.find((c) => c.courier_id === courierId);
        const start = planned?.start_depot ?? plan.depot_id;
        const end = planned?.end_depot ?? start;
        await sql`update routes set start_depot = ${start}, end_depot = ${end}
          where id = ${routeId} and start_depot is null`.execute(db);
      }
    }
    after = rows[rows.length - 1]!.id;
  }
}
