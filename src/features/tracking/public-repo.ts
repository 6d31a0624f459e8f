import type { Executor } from '../../shared/db/index.js';
import { fromColumns, type OrderRow } from '../orders/repo.js';

export type PublicOrderRow = OrderRow & {
  account_name: string;
  brand_name: string | null;
  brand_color: string | null;
  brand_logo_file: string | null;
};

/**
 * The one lookup that ignores account and environment: a tracking code is globally unique
 * (unique index) and is itself the credential of the public page, so both test and live orders
 * resolve. The caller decides what of the row may be shown.
 */
export async function findOrderByTrackingCode(db: Executor, code: string): Promise<PublicOrderRow | undefined> {
  const row = await db
    .selectFrom('orders')
    .innerJoin('accounts', 'accounts.id', 'orders.account_id')
    .selectAll('orders')
    .select(['accounts.name as account_name', 'brand_name', 'brand_color', 'brand_logo_file'])
    .where('orders.tracking_code', '=', code)
    .executeTakeFirst();
  if (!row) return undefined;
  const { account_name, brand_name, brand_color, brand_logo_file } = row;
  return { ...fromColumns(row), account_name, brand_name, brand_color, brand_logo_file };
}

/** A customer's rating joins its courier's running sum (average = total / count), with the order's update. */
export async function addCourierRating(db: Executor, courierId: string, rating: number): Promise<void> {
  await db
    .updateTable('couriers')
    .set((eb) => ({ rating_count: eb('rating_count', '+', 1), rating_total: eb('rating_total', '+', rating) }))
    .where('id', '=', courierId)
    .execute();
}

/** What the live tracking streams watch of their orders, read for many at once on each refresh. */
export interface WatchedRow {
  id: string;
  status: string;
  event_seq: number;
  courier_id: string | null;
  route_id: string | null;
  delivery_address: string;
  timezone: string;
}

export function watchedOrders(db: Executor, ids: string[]): Promise<WatchedRow[]> {
  return db
    .selectFrom('orders')
    .select(['id', 'status', 'event_seq', 'courier_id', 'route_id', 'delivery_address', 'timezone'])
    .where('id', 'in', ids)
    .execute();
}

/** The stops of many routes in order, with their status and point: the ETA of every watched stop without a query each. */
export function stopsOfRoutes(db: Executor, routeIds: string[]) {
  return (
    db
      .selectFrom('route_stops as s')
      .innerJoin('orders as o', 'o.id', 's.order_id')
      .select(['s.route_id', 's.position', 's.order_id', 'o.status', 'o.route_id as order_route', 'o.delivery_address'])
      .where('s.route_id', 'in', routeIds)
      // Deliveries only: a pickup stop (032_pickup_pairs) is not a customer's door on the page's count.
      .where('s.kind', '=', 'delivery')
      .orderBy('s.route_id')
      .orderBy('s.position')
      .execute()
  );
}

/** Couriers' last positions, for the streams opened or refreshed. */
export function courierPositions(db: Executor, ids: string[]) {
  return db.selectFrom('couriers').select(['id', 'last_lat', 'last_lng']).where('id', 'in', ids).execute();
}
