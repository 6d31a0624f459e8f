import type { Executor } from '../../shared/db/index.js';
import { fromColumns, type OrderRow } from '../orders/repo.js';

/**
 * The orders still on a route, in stop order, with their stop number. An order moved to another
 * route keeps its old stop row (the route's history) but prints on its new route only.
 */
export async function ordersOnRoute(db: Executor, routeId: string): Promise<{ position: number; order: OrderRow }[]> {
  const rows = await db
    .selectFrom('route_stops as s')
    .innerJoin('orders as o', 'o.id', 's.order_id')
    .selectAll('o')
    .select('s.position as stop_position')
    .where('s.route_id', '=', routeId)
    .where('o.route_id', '=', routeId)
    // A paired order's pickup stop (032_pickup_pairs) prints no label of its own: its parcel has one.
    .where('s.kind', '=', 'delivery')
    .orderBy('s.position', 'asc')
    .execute();
  return rows.map(({ stop_position, ...o }) => ({ position: stop_position, order: fromColumns(o) }));
}

/**
 * Marks the parcel loaded. The first scan's time stays: `loaded_at IS NULL` makes a second scan
 * (the phone's queue resending, or the courier scanning twice) a no-op.
 */
export async function markLoaded(db: Executor, orderId: string, at: number): Promise<void> {
  await db
    .updateTable('orders')
    .set({ loaded_at: at })
    .where('id', '=', orderId)
    .where('loaded_at', 'is', null)
    .execute();
}
