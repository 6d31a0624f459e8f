import type { AppContext } from '../../shared/context.js';
import { routeEta } from '../dispatch/eta.js';
import { courierById } from '../dispatch/repo.js';
import { presentTimeline } from '../orders/present.js';
import * as orders from '../orders/repo.js';
import type { OrderStatus } from '../orders/schemas.js';

export interface TrackingView {
  object: 'tracking';
  order: string;
  tracking_code: string;
  status: OrderStatus;
  courier: { name: string; lat: number | null; lng: number | null } | null;
  eta_minutes: number | null;
  /** Unfinished stops before this one on the courier's route (not part of the API's Tracking). */
  stops_before: number | null;
  timeline: ReturnType<typeof presentTimeline>;
}

/** While the courier carries the parcel, the ETA follows its route; before that it cannot be known. */
const EN_ROUTE: readonly string[] = ['picked_up', 'in_transit', 'arriving'];

/** The tracking state of one order, shared by the authenticated API and the public page. */
export async function trackingOf(ctx: AppContext, order: orders.OrderRow): Promise<TrackingView> {
  const c = order.courier_id ? await courierById(ctx.db, order.courier_id) : undefined;
  let eta: number | null = null;
  let stopsBefore: number | null = null;
  if (order.status === 'at_location') stopsBefore = eta = 0;
  else if (EN_ROUTE.includes(order.status)) {
    const r = await routeEta(ctx.db, ctx.config, order);
    eta = r.minutes;
    stopsBefore = r.stopsBefore;
  }
  return {
    object: 'tracking',
    order: order.id,
    tracking_code: order.tracking_code,
    status: order.status,
    courier:
      order.courier_id === null
        ? null
        : { name: order.courier_name ?? c?.name ?? '', lat: c?.last_lat ?? null, lng: c?.last_lng ?? null },
    eta_minutes: eta,
    stops_before: stopsBefore,
    timeline: presentTimeline(await orders.timelineOf(ctx.db, order.id)),
  };
}
