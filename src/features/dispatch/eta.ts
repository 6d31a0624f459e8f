import type { Config } from '../../shared/config.js';
import type { Executor } from '../../shared/db/index.js';
import { type Point, roadKm } from '../../shared/geo.js';
import type { OrderRow } from '../orders/repo.js';
import * as repo from './repo.js';

/** Stops the courier still has to serve: assigned to it and not yet finished. */
const AHEAD = new Set(['assigned', 'ready_for_pickup', 'picked_up', 'in_transit', 'arriving', 'at_location']);
/** A pickup stop is still to drive to while its order is in one of these (not collected yet). */
const UNCOLLECTED = new Set(['assigned', 'ready_for_pickup']);

export function pointOf(a: { lat?: number; lng?: number }): Point | null {
  return typeof a.lat === 'number' && typeof a.lng === 'number' ? { lat: a.lat, lng: a.lng } : null;
}

/** Minutes to arrival (null when any point is unknown) and how many unfinished stops come first. */
export interface RouteEta {
  minutes: number | null;
  /** Unfinished stops before this order on its courier's route; 0 without a route; null without a courier. */
  stopsBefore: number | null;
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
): Promise<number | null> {
  return (await routeEta(db, config, order)).minutes;
}

/** etaMinutes with the count of stops before this one ("3 stops before yours" on the tracking page). */
export async function routeEta(
  db: Executor,
  config: Config,
  order: Pick<OrderRow, 'id' | 'courier_id' | 'route_id' | 'delivery_address'>,
): Promise<RouteEta> {
  if (!order.courier_id) return { minutes: null, stopsBefore: null };
  const path: (Point | null)[] = [];
  if (order.route_id) {
    for (const stop of await repo.stopsOf(db, order.route_id, order.id)) {
      if (stop.route_id !== order.route_id || !AHEAD.has(stop.status)) continue;
      if (stop.kind === 'pickup') {
        // A pickup stop is ahead until its parcel is collected, and is driven to like any other.
        if (!UNCOLLECTED.has(stop.status) || !stop.pickup_address) continue;
        path.push(pointOf(stop.pickup_address));
      } else path.push(pointOf(stop.delivery_address));
    }
  }
  const stopsBefore = path.length;
  const courier = await repo.courierById(db, order.courier_id);
  const dest = pointOf(order.delivery_address);
  if (!courier || courier.last_lat === null || courier.last_lng === null || !dest || path.includes(null)) {
    return { minutes: null, stopsBefore };
  }
  path.push(dest);
  let km = 0;
  let from: Point = { lat: courier.last_lat, lng: courier.last_lng };
  for (const p of path as Point[]) {
    km += roadKm(from, p);
    from = p;
  }
  const minutes = Math.ceil((km / config.courierSpeedKmh) * 60 + config.serviceMinutesPerStop * (path.length - 1));
  return { minutes, stopsBefore };
}
