import { iso } from '../../shared/time.js';
import { toMajor } from './pricing.js';
import type { OrderRow, TimelineRow } from './repo.js';
import type { Order } from './schemas.js';

export function presentOrder(r: OrderRow): Order {
  return {
    id: r.id,
    object: 'order',
    livemode: r.mode === 'live',
    tracking_code: r.tracking_code,
    external_order_id: r.external_order_id,
    source: r.source,
    status: r.status,
    customer: r.customer,
    delivery_address: r.delivery_address,
    items: r.items,
    weight_kg: r.weight_kg,
    packages: r.packages,
    cash_on_delivery: toMajor(r.cash_on_delivery),
    shipping_cost: toMajor(r.shipping_cost),
    currency: r.currency,
    requested_date: r.requested_date,
    time_window: r.time_window,
    priority: r.priority,
    is_urgent: r.is_urgent === 1,
    requires_signature: r.requires_signature === 1,
    requires_photo: r.requires_photo === 1,
    customer_notes: r.customer_notes,
    metadata: r.metadata,
    courier: r.courier_id === null ? null : { id: r.courier_id, name: r.courier_name ?? '' },
    route: r.route_id,
    cancellation_reason: r.cancellation_reason,
    failure_reason: r.failure_reason,
    attempts: r.attempts,
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
}

export function presentTimeline(rows: TimelineRow[]) {
  return rows.map((t) => ({
    status: t.status,
    occurred_at: iso(t.occurred_at),
    lat: t.lat,
    lng: t.lng,
  }));
}
