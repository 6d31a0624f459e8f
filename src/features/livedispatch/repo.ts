import type { Executor } from '../../shared/db/index.js';
import type {
  AutoDispatchesTable,
  AutoDispatchMode,
  CouriersTable,
  DepotsTable,
  Mode,
  RoutesTable,
} from '../../shared/db/schema.js';
import { COURIER_ACTIVE_STATUSES } from '../../shared/db/tables/orders.js';
import type { StopKind } from '../../shared/db/tables/route_stops.js';
import type { StopRef } from '../dispatch/repo.js';
import { fromColumns, type OrderRow } from '../orders/repo.js';

/** The carrier's own row of dispatch_settings (an account's row overrides it). */
export const CARRIER = '';

export async function settingsOf(
  db: Executor,
  mode: Mode,
  accountIds: string[],
): Promise<Map<string, AutoDispatchMode>> {
  const rows = await db
    .selectFrom('dispatch_settings')
    .select(['account_id', 'auto_dispatch'])
    .where('mode', '=', mode)
    .where('account_id', 'in', [CARRIER, ...accountIds])
    .execute();
  return new Map(rows.map((r) => [r.account_id, r.auto_dispatch]));
}

/** An account's auto-dispatch mode: its own, else the carrier's, else `off`. */
export async function autoDispatchOf(db: Executor, mode: Mode, accountId: string): Promise<AutoDispatchMode> {
  const s = await settingsOf(db, mode, [accountId]);
  return s.get(accountId) ?? s.get(CARRIER) ?? 'off';
}

export async function allSettings(db: Executor, mode: Mode) {
  return db
    .selectFrom('dispatch_settings')
    .select(['account_id', 'auto_dispatch', 'updated_at'])
    .where('mode', '=', mode)
    .orderBy('account_id')
    .execute();
}

/** Sets (or, with null, removes) one row: the carrier's ('') or an account's override. */
export async function putSetting(
  db: Executor,
  row: { mode: Mode; account_id: string; auto_dispatch: AutoDispatchMode | null; updated_at: number },
): Promise<void> {
  const existing = await db
    .selectFrom('dispatch_settings')
    .select('auto_dispatch')
    .where('mode', '=', row.mode)
    .where('account_id', '=', row.account_id)
    .executeTakeFirst();
  // Unchanged: keep its updated_at (auto-dispatch applies to orders created since `assign` began).
  if (existing?.auto_dispatch === row.auto_dispatch) return;
  await db
    .deleteFrom('dispatch_settings')
    .where('mode', '=', row.mode)
    .where('account_id', '=', row.account_id)
    .execute();
  if (row.auto_dispatch === null) return;
  await db
    .insertInto('dispatch_settings')
    .values({ ...row, auto_dispatch: row.auto_dispatch })
    .execute();
}

export async function accountExists(db: Executor, id: string): Promise<boolean> {
  return (await db.selectFrom('accounts').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
}

export async function accountDepot(db: Executor, accountId: string): Promise<string | null> {
  const row = await db.selectFrom('accounts').select('depot_id').where('id', '=', accountId).executeTakeFirst();
  return row?.depot_id ?? null;
}

/** Active couriers who may serve an account's order: the carrier's, and that account's sandbox ones. */
export async function couriersFor(db: Executor, mode: Mode, accountId: string): Promise<CouriersTable[]> {
  return db
    .selectFrom('couriers')
    .selectAll()
    .where('mode', '=', mode)
    .where('status', '=', 'active')
    .where((eb) => eb.or([eb('account_id', 'is', null), eb('account_id', '=', accountId)]))
    .orderBy('id')
    .execute();
}

export async function depotsByIds(db: Executor, mode: Mode, ids: string[]): Promise<DepotsTable[]> {
  if (ids.length === 0) return [];
  return db.selectFrom('depots').selectAll().where('mode', '=', mode).where('id', 'in', ids).execute();
}

/**
 * The routes of a day for these couriers (every route is dated: 039_routes_dated).
 * Newest first, so the first one per courier is its current route.
 */
export async function dayRoutes(db: Executor, mode: Mode, courierIds: string[], day: string): Promise<RoutesTable[]> {
  if (courierIds.length === 0) return [];
  return db
    .selectFrom('routes')
    .selectAll()
    .where('mode', '=', mode)
    .where('courier_id', 'in', courierIds)
    .where('date', '=', day)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

/** What timing a stop needs of its order (a route of 30 stops × 50 couriers is read on every suggestion). */
export type StopOrder = Pick<
  OrderRow,
  | 'id'
  | 'status'
  | 'route_id'
  | 'packages'
  | 'weight_kg'
  | 'time_window'
  | 'timezone'
  | 'delivery_address'
  | 'pickup_address'
  | 'requirements'
>;

export interface RouteStop {
  route_id: string;
  position: number;
  /** A paired order has two stops: its pickup, then its delivery (032_pickup_pairs). */
  kind: StopKind;
  /** The order, with the stop's kind beside it (a lane's stop as it is, without a copy per suggestion). */
  order: StopOrder & { kind: StopKind };
}

/** Every stop of these routes with what its order needs for timing, in stop order. */
export async function stopsWithOrders(db: Executor, routeIds: string[]): Promise<RouteStop[]> {
  if (routeIds.length === 0) return [];
  const rows = await db
    .selectFrom('route_stops as s')
    .innerJoin('orders as o', 'o.id', 's.order_id')
    .select([
      's.route_id as stop_route',
      's.position',
      's.kind',
      'o.id',
      'o.status',
      'o.route_id',
      'o.packages',
      'o.weight_kg',
      'o.time_window',
      'o.timezone',
      'o.delivery_address',
      'o.pickup_address',
      'o.requirements',
    ])
    .where('s.route_id', 'in', routeIds)
    .orderBy('s.route_id')
    .orderBy('s.position')
    .execute();
  return rows.map((r) => ({
    route_id: r.stop_route,
    position: r.position,
    kind: r.kind,
    order: {
      kind: r.kind,
      id: r.id,
      status: r.status,
      route_id: r.route_id,
      packages: r.packages,
      weight_kg: r.weight_kg,
      time_window: r.time_window === null ? null : JSON.parse(r.time_window),
      timezone: r.timezone,
      delivery_address: JSON.parse(r.delivery_address),
      pickup_address: r.pickup_address === null ? null : JSON.parse(r.pickup_address),
      requirements: r.requirements === null ? [] : JSON.parse(r.requirements),
    },
  }));
}

/** Orders whose parcel is still to be collected: a pickup stop of theirs is ahead. */
const UNCOLLECTED: readonly string[] = ['assigned', 'ready_for_pickup'];

/**
 * A stop the courier still has to serve on this route: its order is on it and not finished; a
 * pickup stop only until the parcel is collected.
 */
export function isAhead(s: RouteStop): boolean {
  if (s.order.route_id !== s.route_id) return false;
  const open: readonly string[] = s.kind === 'pickup' ? UNCOLLECTED : COURIER_ACTIVE_STATUSES;
  return open.includes(s.order.status);
}

/**
 * Writes a route's stops in a new order, numbered from 1. The route row is locked first (a no-op
 * update) so that concurrent rewrites and appends take turns; the stops are deleted and inserted
 * again rather than renumbered in place, because PostgreSQL checks the (route_id, position) key
 * row by row during an UPDATE.
 */
export async function rewriteStops(db: Executor, routeId: string, stops: StopRef[]): Promise<void> {
  await db.updateTable('routes').set({ id: routeId }).where('id', '=', routeId).execute();
  await db.deleteFrom('route_stops').where('route_id', '=', routeId).execute();
  if (stops.length === 0) return;
  await db
    .insertInto('route_stops')
    .values(stops.map((x, i) => ({ route_id: routeId, position: i + 1, order_id: x.order_id, kind: x.kind })))
    .execute();
}

/** A route's stop order as stored now (locked with the route when called in a transaction after rewriteStops' lock). */
export async function stopRefs(db: Executor, routeId: string): Promise<StopRef[]> {
  return db
    .selectFrom('route_stops')
    .select(['order_id', 'kind'])
    .where('route_id', '=', routeId)
    .orderBy('position')
    .execute();
}

export async function lockRoute(db: Executor, routeId: string): Promise<void> {
  await db.updateTable('routes').set({ id: routeId }).where('id', '=', routeId).execute();
}

/**
 * Orders the auto-dispatch sweep has not handled yet: unassigned, assignable, of these days
 * (the caller keeps those due today in their own zone), oldest first.
 */
export async function sweepCandidates(
  db: Executor,
  mode: Mode,
  days: string[],
  limit: number,
): Promise<{ order: OrderRow; dueDay: string }[]> {
  const rows = await db
    .selectFrom('orders as o')
    .leftJoin('auto_dispatches as a', 'a.order_id', 'o.id')
    .selectAll('o')
    .where('o.mode', '=', mode)
    .where('o.due_day', 'in', days)
    .where('o.status', 'in', ['pending', 'validated'])
    .where('o.courier_id', 'is', null)
    .where('a.order_id', 'is', null)
    .orderBy('o.created_at')
    .orderBy('o.id')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ order: fromColumns(r), dueDay: r.due_day }));
}

export async function recordAutoDispatch(db: Executor, row: AutoDispatchesTable): Promise<void> {
  await db
    .insertInto('auto_dispatches')
    .values(row)
    .onConflict((oc) => oc.column('order_id').doNothing())
    .execute();
}

export async function findAutoDispatch(db: Executor, orderId: string): Promise<AutoDispatchesTable | undefined> {
  return db.selectFrom('auto_dispatches').selectAll().where('order_id', '=', orderId).executeTakeFirst();
}

/** Whether an auto-dispatch sweep of this environment is queued or running (its ref starts with the mode). */
export async function sweepQueued(db: Executor, kind: string, mode: Mode): Promise<boolean> {
  const row = await db
    .selectFrom('jobs')
    .select('id')
    .where('kind', '=', kind)
    .where('ref', 'like', `${mode}:%`)
    .where('status', '<>', 'failed')
    .executeTakeFirst();
  return row !== undefined;
}
