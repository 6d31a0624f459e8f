import { toMajor } from './pricing.js';
import type { OrderRow, TimelineRow } from './repo.js';
import type { Order, OrderStatus } from './schemas.js';

export const iso = (ms: number): string => new Date(ms).toISOString();

/** The JSON-text columns of an order, as objects. */
export interface OrderJson {
  customer: unknown;
  delivery_address: unknown;
  items: unknown;
  time_window: unknown;
  metadata: unknown;
}

function parseJson(r: OrderRow): OrderJson {
  return {
    customer: JSON.parse(r.customer),
    delivery_address: JSON.parse(r.delivery_address),
    items: JSON.parse(r.items),
    time_window: r.time_window === null ? null : JSON.parse(r.time_window),
    metadata: JSON.parse(r.metadata),
  };
}

/** `json`: the objects the text columns were just serialised from (create), to skip parsing them back. */
export function presentOrder(r: OrderRow, json: OrderJson = parseJson(r)): Order {
  return {
    id: r.id,
    object: 'order',
    livemode: r.mode === 'live',
    tracking_code: r.tracking_code,
    external_order_id: r.external_order_id,
    source: r.source as Order['source'],
    status: r.status as OrderStatus,
    customer: json.customer as Order['customer'],
    delivery_address: json.delivery_address as Order['delivery_address'],
    items: json.items as Order['items'],
    weight_kg: r.weight_kg,
    packages: r.packages,
    cash_on_delivery: toMajor(r.cash_on_delivery),
    shipping_cost: toMajor(r.shipping_cost),
    currency: r.currency,
    requested_date: r.requested_date,
    time_window: json.time_window as Order['time_window'],
    priority: r.priority,
    is_urgent: r.is_urgent === 1,
    requires_signature: r.requires_signature === 1,
    requires_photo: r.requires_photo === 1,
    customer_notes: r.customer_notes,
    metadata: json.metadata as Order['metadata'],
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
    status: t.status as OrderStatus,
    occurred_at: iso(t.occurred_at),
    lat: t.lat,
    lng: t.lng,
  }));
}
