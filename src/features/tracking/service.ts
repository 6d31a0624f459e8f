import { presentTimeline } from '../orders/present.js';
import * as orders from '../orders/repo.js';
import type { OrderStatus } from '../orders/schemas.js';
import type { OrdersContext } from '../orders/service.js';

export interface TrackingView {
  object: 'tracking';
  order: string;
  tracking_code: string;
  status: OrderStatus;
  courier: { name: string; lat: number | null; lng: number | null } | null;
  eta_minutes: number | null;
  timeline: ReturnType<typeof presentTimeline>;
}

/** The tracking state of one order, shared by the authenticated API and the public page. */
export async function trackingOf(ctx: OrdersContext, order: orders.OrderRow): Promise<TrackingView> {
  return {
    object: 'tracking',
    order: order.id,
    tracking_code: order.tracking_code,
    status: order.status as OrderStatus,
    courier: null,
    eta_minutes: null,
    timeline: presentTimeline(await orders.timelineOf(ctx.db, order.id)),
  };
}
