import { sql } from 'kysely';
import type { Scope } from '../../shared/auth.js';
import { type Executor, isPostgres } from '../../shared/db/index.js';
import type { CouriersTable, RoutesTable } from '../../shared/db/schema.js';

export type CourierRow = CouriersTable;
export type RouteRow = RoutesTable;

/** How many recent pings each courier keeps; older ones are overwritten in place. */
export const LOCATION_HISTORY = 100;

export async function insertCourier(db: Executor, row: CourierRow): Promise<void> {
  await db.insertInto('couriers').values(row).execute();
}

/** A courier visible in `scope`: its environment, and its account unless the caller is an operator. */
export async function findCourier(db: Executor, scope: Scope, id: string): Promise<CourierRow | undefined> {
  let q = db.selectFrom('couriers').selectAll().where('id', '=', id).where('mode', '=', scope.mode);
  if (scope.accountId !== null) q = q.where('account_id', '=', scope.accountId);
  return q.executeTakeFirst();
}

export async function courierById(db: Executor, id: string): Promise<CourierRow | undefined> {
  return db.selectFrom('couriers').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listCouriers(
  db: Executor,
  scope: Scope,
  f: { limit: number; after?: string },
): Promise<CourierRow[]> {
  let q = db.selectFrom('couriers').selectAll().where('mode', '=', scope.mode);
  if (scope.accountId !== null) q = q.where('account_id', '=', scope.accountId);
  if (f.after !== undefined) q = q.where('id', '<', f.after);
  return q
    .orderBy('id', 'desc')
    .limit(f.limit + 1)
    .execute();
}

export async function updateCourier(
  db: Executor,
  id: string,
  set: Partial<Pick<CourierRow, 'name' | 'phone' | 'vehicle' | 'updated_at'>>,
): Promise<CourierRow> {
  return db.updateTable('couriers').set(set).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

/** Orders carry the courier's name for webhooks and tracking; a rename keeps them right. */
export async function renameOnOrders(db: Executor, courierId: string, name: string): Promise<void> {
  await db.updateTable('orders').set({ courier_name: name }).where('courier_id', '=', courierId).execute();
}

/**
 * The hot path: one conditional UPDATE of the latest position (a ping older than the stored one
 * is ignored, so out-of-order delivery never moves a courier backwards) and one upsert into the
 * bounded ring of recent pings. The scope check rides on the UPDATE itself. Returns undefined
 * when nothing was written (unknown courier, or a stale ping). On PostgreSQL both writes are one
 * statement (the upsert reads the UPDATE's RETURNING in a CTE), so a ping is one round trip with
 * no BEGIN/COMMIT; on SQLite the caller's transaction holds the two in-process statements.
 */
export async function recordPing(
  db: Executor,
  scope: Scope,
  id: string,
  p: { lat: number; lng: number; recordedAt: number; now: number },
): Promise<CourierRow | undefined> {
  let q = db
    .updateTable('couriers')
    .set((eb) => ({
      last_lat: p.lat,
      last_lng: p.lng,
      last_recorded_at: p.recordedAt,
      ping_count: eb('ping_count', '+', 1),
      updated_at: p.now,
    }))
    .where('id', '=', id)
    .where('mode', '=', scope.mode)
    .where((eb) => eb.or([eb('last_recorded_at', 'is', null), eb('last_recorded_at', '<=', p.recordedAt)]));
  if (scope.accountId !== null) q = q.where('account_id', '=', scope.accountId);
  const entry = { lat: p.lat, lng: p.lng, recorded_at: p.recordedAt };
  if (isPostgres(db)) {
    return db
      .with('c', () => q.returningAll())
      .with('l', (w) =>
        w
          .insertInto('courier_locations')
          .columns(['courier_id', 'slot', 'seq', 'lat', 'lng', 'recorded_at'])
          .expression((eb) =>
            eb
              .selectFrom('c')
              .select([
                'c.id',
                sql<number>`c.ping_count % ${sql.lit(LOCATION_HISTORY)}`.as('slot'),
                'c.ping_count',
                'c.last_lat',
                'c.last_lng',
                'c.last_recorded_at',
              ]),
          )
          .onConflict((oc) =>
            oc.columns(['courier_id', 'slot']).doUpdateSet((eb) => ({
              seq: eb.ref('excluded.seq'),
              lat: eb.ref('excluded.lat'),
              lng: eb.ref('excluded.lng'),
              recorded_at: eb.ref('excluded.recorded_at'),
            })),
          ),
      )
      .selectFrom('c')
      .selectAll()
      .executeTakeFirst() as Promise<CourierRow | undefined>;
  }
  const row = await q.returningAll().executeTakeFirst();
  if (!row) return undefined;
  await db
    .insertInto('courier_locations')
    .values({ courier_id: id, slot: row.ping_count % LOCATION_HISTORY, seq: row.ping_count, ...entry })
    .onConflict((oc) => oc.columns(['courier_id', 'slot']).doUpdateSet({ seq: row.ping_count, ...entry }))
    .execute();
  return row;
}

export async function recentLocations(db: Executor, courierId: string) {
  return db
    .selectFrom('courier_locations')
    .select(['lat', 'lng', 'recorded_at'])
    .where('courier_id', '=', courierId)
    .orderBy('seq', 'desc')
    .execute();
}

export async function insertRoute(db: Executor, row: RouteRow, orderIds: string[]): Promise<void> {
  await db.insertInto('routes').values(row).execute();
  await db
    .insertInto('route_stops')
    .values(orderIds.map((order_id, i) => ({ route_id: row.id, position: i + 1, order_id })))
    .execute();
}

export async function findRoute(db: Executor, scope: Scope, id: string): Promise<RouteRow | undefined> {
  let q = db.selectFrom('routes').selectAll().where('id', '=', id).where('mode', '=', scope.mode);
  if (scope.accountId !== null) q = q.where('account_id', '=', scope.accountId);
  return q.executeTakeFirst();
}

/** Adds an order as the route's last stop unless it is already on it. */
export async function appendStop(db: Executor, routeId: string, orderId: string): Promise<void> {
  const present = await db
    .selectFrom('route_stops')
    .select('position')
    .where('route_id', '=', routeId)
    .where('order_id', '=', orderId)
    .executeTakeFirst();
  if (present) return;
  // A no-op write locks the route row, so concurrent appends to one route take turns numbering stops.
  await db.updateTable('routes').set({ id: routeId }).where('id', '=', routeId).execute();
  const { last } = await db
    .selectFrom('route_stops')
    .select((eb) => eb.fn.max<number>('position').as('last'))
    .where('route_id', '=', routeId)
    .executeTakeFirstOrThrow();
  await db
    .insertInto('route_stops')
    .values({ route_id: routeId, position: (Number(last) || 0) + 1, order_id: orderId })
    .execute();
}

export interface StopRow {
  position: number;
  order_id: string;
  tracking_code: string;
  status: string;
  route_id: string | null;
  delivery_address: string;
}

export async function stopsOf(db: Executor, routeId: string, beforeOrder?: string): Promise<StopRow[]> {
  let q = db
    .selectFrom('route_stops as s')
    .innerJoin('orders as o', 'o.id', 's.order_id')
    .select(['s.position', 's.order_id', 'o.tracking_code', 'o.status', 'o.route_id', 'o.delivery_address'])
    .where('s.route_id', '=', routeId);
  if (beforeOrder !== undefined) {
    q = q.where('s.position', '<', (eb) =>
      eb
        .selectFrom('route_stops')
        .select('position')
        .where('route_id', '=', routeId)
        .where('order_id', '=', beforeOrder),
    );
  }
  return q.orderBy('s.position', 'asc').execute();
}
