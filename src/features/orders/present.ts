import { iso } from '../../shared/time.js';
import type { ListedOrder } from './list-repo.js';
import { requestedDay } from './local-days.js';
import { toMajor } from './pricing.js';
import { proofLevelsOf } from './proof-settings.js';
import type { OrderRow, TimelineRow } from './repo.js';
import type { Order } from './schemas.js';

/**
 * `withPin`: the delivery PIN itself, for the merchant only (its key or its users). Everyone else
 * (couriers, the carrier's people, webhook payloads, the tracking page) sees the PIN's state, never
 * the code (DESIGN §14).
 */
export function presentOrder(r: OrderRow, withPin = false): Order {
  const order: Order = {
    id: r.id,
    object: 'order',
    livemode: r.mode === 'live',
    tracking_code: r.tracking_code,
    external_order_id: r.external_order_id,
    source: r.source,
    status: r.status,
    customer: r.customer,
    delivery_address: r.delivery_address,
    pickup_address: r.pickup_address,
    geocode: r.geocode,
    items: r.items,
    weight_kg: r.weight_kg,
    packages: r.packages,
    cash_on_delivery: toMajor(r.cash_on_delivery),
    shipping_cost: toMajor(r.shipping_cost),
    currency: r.currency,
    requested_date: r.requested_date,
    requested_day: requestedDay(r.requested_date, r.timezone),
    timezone: r.timezone,
    time_window: r.time_window,
    requirements: r.requirements,
    priority: r.priority,
    is_urgent: r.is_urgent === 1,
    requires_signature: r.requires_signature === 1,
    requires_photo: r.requires_photo === 1,
    proof_requirements: proofLevelsOf(r),
    pin: r.pin_state === null ? null : { state: r.pin_state, attempts: r.pin_attempts },
    customer_notes: r.customer_notes,
    metadata: r.metadata,
    courier: r.courier_id === null ? null : { id: r.courier_id, name: r.courier_name ?? '' },
    route: r.route_id,
    loaded_at: r.loaded_at === null ? null : iso(r.loaded_at),
    cancellation_reason: r.cancellation_reason,
    failure_reason: r.failure_reason,
    failure_notes: r.failure_notes,
    attempts: r.attempts,
    attempt_position:
      r.attempt_lat === null || r.attempt_lng === null || r.attempt_recorded_at === null
        ? null
        : {
            lat: r.attempt_lat,
            lng: r.attempt_lng,
            accuracy_m: r.attempt_accuracy_m,
            recorded_at: iso(r.attempt_recorded_at),
            distance_from_address_m: r.attempt_distance_m,
            far_from_address: r.attempt_far === null ? null : r.attempt_far === 1,
          },
    delivery_instructions: r.delivery_instructions,
    safe_place: r.safe_place,
    feedback:
      r.feedback_rating === null || r.feedback_at === null
        ? null
        : { rating: r.feedback_rating, comment: r.feedback_comment, created_at: iso(r.feedback_at) },
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
  if (withPin && r.delivery_pin !== null) order.delivery_pin = r.delivery_pin;
  return order;
}

/** An order of GET /v1/orders; in a list filtered by cod_status, with what its proof recorded collecting. */
export function presentListed({ row, collected }: ListedOrder, withPin = false): Order {
  const order = presentOrder(row, withPin);
  if (collected !== undefined) order.collected_amount = collected === null ? null : toMajor(collected);
  return order;
}

export function presentTimeline(rows: TimelineRow[]) {
  return rows.map((t) => ({
    status: t.status,
    occurred_at: iso(t.occurred_at),
    lat: t.lat,
    lng: t.lng,
    accuracy_m: t.accuracy_m,
    recorded_at: t.recorded_at === null ? null : iso(t.recorded_at),
  }));
}
