import type { Scope } from '../../shared/auth.js';
import type { Executor } from '../../shared/db/index.js';
import type { CouriersTable, OrderStatus, RoutesTable } from '../../shared/db/schema.js';
import type { StopKind } from '../../shared/db/tables/route_stops.js';
import type { OrderRow } from '../orders/repo.js';
import type { ConstraintColumns } from './constraints.js';

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
  // A courier session sees itself only.
  if (scope.courierId !== undefined) q = q.where('id', '=', scope.courierId);
  return q.executeTakeFirst();
}

/** Depots belong to planning, which dispatch may not import; a shared table read, as for sessions below. */
export async function depotExists(db: Executor, mode: CourierRow['mode'], id: string): Promise<boolean> {
  const row = await db
    .selectFrom('depots')
    .select('id')
    .where('id', '=', id)
    .where('mode', '=', mode)
    .executeTakeFirst();
  return row !== undefined;
}

/** The zone of a courier's start depot, null without one: a route's day is read in it (assign-route.ts). */
export async function courierDepotZone(db: Executor, courierId: string): Promise<string | null> {
  const row = await db
    .selectFrom('couriers')
    .innerJoin('depots', 'depots.id', 'couriers.start_depot')
    .select('depots.timezone')
    .where('couriers.id', '=', courierId)
    .executeTakeFirst();
  return row?.timezone ?? null;
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
  if (scope.courierId !== undefined) q = q.where('id', '=', scope.courierId);
  if (f.after !== undefined) q = q.where('id', '<', f.after);
  return q
    .orderBy('id', 'desc')
    .limit(f.limit + 1)
    .execute();
}

export async function updateCourier(
  db: Executor,
  id: string,
  set: Partial<
    Pick<
      CourierRow,
      | 'name'
      | 'phone'
      | 'vehicle'
      | 'status'
      | 'updated_at'
      | 'capacity_kg'
      | 'capacity_packages'
      | 'shift_start'
      | 'shift_end'
      | 'start_depot'
      | 'end_depot'
      | keyof ConstraintColumns
    >
  >,
): Promise<CourierRow> {
  return db.updateTable('couriers').set(set).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

/**
 * Disabling a courier ends its phone sessions at once (DESIGN §9). The sessions table belongs to
 * people, which dispatch may not import; the row delete is plain SQL on a shared table type.
 */
export async function endCourierSessions(db: Executor, courierId: string): Promise<void> {
  await db.deleteFrom('courier_sessions').where('courier_id', '=', courierId).execute();
}

/** Orders carry the courier's name for webhooks and tracking; a rename keeps them right. */
export async function renameOnOrders(db: Executor, courierId: string, name: string): Promise<void> {
  await db.updateTable('orders').set({ courier_name: name }).where('courier_id', '=', courierId).execute();
}

export async function recentLocations(db: Executor, courierId: string) {
  return db
    .selectFrom('courier_locations')
    .select(['lat', 'lng', 'recorded_at'])
    .where('courier_id', '=', courierId)
    .orderBy('seq', 'desc')
    .execute();
}

/** One stop of a route as written: the order, and whether it is collected (`pickup`) or delivered there. */
export interface StopRef {
  order_id: string;
  kind: StopKind;
}

export async function insertRoute(db: Executor, row: RouteRow, stops: StopRef[]): Promise<void> {
  await db.insertInto('routes').values(row).execute();
  await db
    .insertInto('route_stops')
    .values(stops.map((s, i) => ({ route_id: row.id, position: i + 1, order_id: s.order_id, kind: s.kind })))
    .execute();
}

export async function findRoute(db: Executor, scope: Scope, id: string): Promise<RouteRow | undefined> {
  let q = db.selectFrom('routes').selectAll().where('id', '=', id).where('mode', '=', scope.mode);
  if (scope.accountId !== null) q = q.where('account_id', '=', scope.accountId);
  // A courier session sees its own routes only.
  if (scope.courierId !== undefined) q = q.where('courier_id', '=', scope.courierId);
  return q.executeTakeFirst();
}

/** Which routes a list asks for: of one day (the route's own `date`), of one courier, a page. */
export interface RouteFilter {
  date?: string;
  courier?: string;
  limit: number;
  after?: string;
}

/**
 * A page of the routes visible in `scope`, newest first (ids are time-ordered), with one row more
 * than the page for `has_more`.
 */
export function listRoutesQuery(db: Executor, scope: Scope, f: RouteFilter) {
  let q = db.selectFrom('routes').selectAll().where('mode', '=', scope.mode);
  if (scope.accountId !== null) q = q.where('account_id', '=', scope.accountId);
  if (scope.courierId !== undefined) q = q.where('courier_id', '=', scope.courierId);
  if (f.date !== undefined) q = q.where('date', '=', f.date);
  if (f.courier !== undefined) q = q.where('courier_id', '=', f.courier);
  if (f.after !== undefined) q = q.where('id', '<', f.after);
  return q.orderBy('id', 'desc').limit(f.limit + 1);
}

export async function listRoutes(db: Executor, scope: Scope, f: RouteFilter): Promise<RouteRow[]> {
  return listRoutesQuery(db, scope, f).execute();
}

/** The couriers of these ids, in one read (a page of routes names up to 100). */
export async function couriersByIds(db: Executor, ids: string[]): Promise<CourierRow[]> {
  if (ids.length === 0) return [];
  return db.selectFrom('couriers').selectAll().where('id', 'in', ids).execute();
}

/**
 * Adds an order as the route's last stop unless it is already on it; a paired order (`paired`)
 * as its pickup then its delivery.
 */
export async function appendStop(db: Executor, routeId: string, orderId: string, paired = false): Promise<void> {
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
  const next = (Number(last) || 0) + 1;
  const kinds: StopKind[] = paired ? ['pickup', 'delivery'] : ['delivery'];
  await db
    .insertInto('route_stops')
    .values(kinds.map((kind, i) => ({ route_id: routeId, position: next + i, order_id: orderId, kind })))
    .execute();
}

export interface StopRow {
  position: number;
  order_id: string;
  kind: StopKind;
  pickup_address: OrderRow['pickup_address'];
  tracking_code: string;
  status: OrderStatus;
  route_id: string | null;
  delivery_address: OrderRow['delivery_address'];
  loaded_at: number | null;
}

/** The stops of these routes with what each stop needs of its order, in no particular order. */
function stopsQuery(db: Executor, routeIds: string[]) {
  return db
    .selectFrom('route_stops as s')
    .innerJoin('orders as o', 'o.id', 's.order_id')
    .select([
      's.route_id as stop_route',
      's.position',
      's.order_id',
      's.kind',
      'o.pickup_address',
      'o.tracking_code',
      'o.status',
      'o.route_id',
      'o.delivery_address',
      'o.loaded_at',
    ])
    .where('s.route_id', 'in', routeIds);
}

function stopRow({
  stop_route: _,
  ...r
}: Awaited<ReturnType<ReturnType<typeof stopsQuery>['execute']>>[number]): StopRow {
  return {
    ...r,
    delivery_address: JSON.parse(r.delivery_address),
    pickup_address: r.pickup_address === null ? null : JSON.parse(r.pickup_address),
  };
}

/** A route's stops in stop order; with `beforeOrder`, those before that order's delivery. */
export async function stopsOf(db: Executor, routeId: string, beforeOrder?: string): Promise<StopRow[]> {
  let q = stopsQuery(db, [routeId]);
  if (beforeOrder !== undefined) {
    q = q.where('s.position', '<', (eb) =>
      eb
        .selectFrom('route_stops')
        .select('position')
        .where('route_id', '=', routeId)
        .where('order_id', '=', beforeOrder)
        .where('kind', '=', 'delivery'),
    );
  }
  return (await q.orderBy('s.position', 'asc').execute()).map(stopRow);
}

/** The stops of these routes in stop order, by route: a page of routes in one read. */
export async function stopsOfRoutes(db: Executor, routeIds: string[]): Promise<Map<string, StopRow[]>> {
  const out = new Map<string, StopRow[]>(routeIds.map((id) => [id, []]));
  if (routeIds.length === 0) return out;
  const rows = await stopsQuery(db, routeIds).orderBy('s.route_id').orderBy('s.position', 'asc').execute();
  for (const r of rows) out.get(r.stop_route)?.push(stopRow(r));
  return out;
}
