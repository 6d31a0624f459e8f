import type { Config } from '../../shared/config.js';
import type { Executor } from '../../shared/db/index.js';
import { type Point, roadKm } from '../orders/pricing.js';
import type { OrderRow } from '../orders/repo.js';
import * as repo from './repo.js';

/** Stops the courier still has to serve: assigned to it and not yet finished. */
const AHEAD = new Set(['assigned', 'ready_for_pickup', 'picked_up', 'in_transit', 'arriving', 'at_location']);

export function pointOf(a: { lat?: number; lng?: number }): Point | null {
  return typeof a.lat === 'number' && typeof a.lng === 'number' ? { lat: a.lat, lng: a.lng } : null;
}

/**
 * Route-aware minutes to arrival: from the courier's last position through every unfinished stop
 * before this order on its route, then to this order, at road distance (haversine × 1.3) over the
 * configured speed, plus the service time of each stop on the way. null when any point is unknown.
 */
export async function etaMinutes(
  db: Executor,
  config: Config,
  order: Pick<OrderRow, 'id' | 'courier_id' | 'route_id' | 'delivery_address'>,
  /** Acknowledged pings not yet written (withPending in location-writer.ts). */
  pending: (row: repo.CourierRow) => repo.CourierRow = (row) => row,
): Promise<number | null> {
  if (!order.courier_id) return null;
  const found = await repo.courierById(db, order.courier_id);
  const courier = found && pending(found);
  if (!courier || courier.last_lat === null || courier.last_lng === null) return null;
  const dest = pointOf(order.delivery_address);
  if (!dest) return null;
  const path: Point[] = [];
  if (order.route_id) {
    for (const stop of await repo.stopsOf(db, order.route_id, order.id)) {
      if (stop.route_id !== order.route_id || !AHEAD.has(stop.status)) continue;
      const p = pointOf(stop.delivery_address);
      if (!p) return null;
      path.push(p);
    }
  }
  path.push(dest);
  let km = 0;
  let from: Point = { lat: courier.last_lat, lng: courier.last_lng };
  for (const p of path) {
    km += roadKm(from, p);
    from = p;
  }
  return Math.ceil((km / config.courierSpeedKmh) * 60 + config.serviceMinutesPerStop * (path.length - 1));
}
