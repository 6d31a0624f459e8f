import type { AppContext } from '../../shared/context.js';
import { normalizeTrackingCode } from '../../shared/ids.js';
import { type OrderStatus, TERMINAL_STATUSES } from '../orders/schemas.js';
import { findOrderByTrackingCode, type PublicOrderRow } from './public-repo.js';
import type { PublicTracking } from './public-schemas.js';
import { type TrackingView, trackingOf } from './service.js';

/** The courier's first name and live position are public only while the parcel is with them. */
export const LIVE_STATUSES: readonly OrderStatus[] = ['picked_up', 'in_transit', 'arriving', 'at_location'];

export const STATUS_LABELS: Record<OrderStatus, string> = {
  pending: 'Order received',
  validated: 'Order confirmed',
  assigned: 'Courier assigned',
  ready_for_pickup: 'Ready for pickup',
  picked_up: 'Picked up',
  in_transit: 'On the way',
  arriving: 'Arriving soon',
  at_location: 'Courier has arrived',
  delivered: 'Delivered',
  partially_delivered: 'Partially delivered',
  failed: 'Delivery attempt failed',
  returned: 'Returned to sender',
  rescheduled: 'Delivery rescheduled',
  cancelled: 'Cancelled',
};

/**
 * The first word of a name, and nothing that looks like contact data: a customer "name" of
 * `ana@example.com` or a phone number must not leak through the one field the page shows.
 */
export function firstName(name: unknown): string | null {
  if (typeof name !== 'string') return null;
  const first = name.trim().split(/\s+/)[0]?.slice(0, 40) ?? '';
  if (first === '' || /[@\d]/.test(first)) return null;
  return first;
}

function text(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const s = value.trim();
  return s === '' ? null : s.slice(0, 100);
}

/**
 * Builds the public view by allow-listing: only the fields named here leave the server. Street
 * address, contact data, documents, notes, metadata, money and external ids never do.
 */
export function presentPublic(
  row: Pick<PublicOrderRow, 'tracking_code' | 'mode' | 'customer' | 'delivery_address' | 'account_name'>,
  view: TrackingView,
): PublicTracking {
  const status = view.status;
  const live = LIVE_STATUSES.includes(status);
  return {
    object: 'public_tracking',
    tracking_code: row.tracking_code,
    livemode: row.mode === 'live',
    status,
    status_label: STATUS_LABELS[status] ?? status,
    merchant: { name: row.account_name },
    customer: { first_name: firstName(row.customer.name) },
    destination: { district: text(row.delivery_address.district), city: text(row.delivery_address.city) },
    courier:
      live && view.courier
        ? { name: firstName(view.courier.name), lat: view.courier.lat ?? null, lng: view.courier.lng ?? null }
        : null,
    eta_minutes: TERMINAL_STATUSES.includes(status) ? null : (view.eta_minutes ?? null),
    timeline: view.timeline.map((t) => ({
      status: t.status,
      label: STATUS_LABELS[t.status] ?? t.status,
      occurred_at: t.occurred_at,
    })),
  };
}

/** Any order in any account or environment, by its (case-insensitive) tracking code; undefined when unknown. */
export async function publicTracking(ctx: AppContext, rawCode: string): Promise<PublicTracking | undefined> {
  // Printed codes are often grouped ("7KQ2-M9XD-4T1B"); Crockford says hyphens carry no meaning.
  const code = normalizeTrackingCode(rawCode.replace(/[-\s]/g, ''));
  if (!code) return undefined;
  const row = await findOrderByTrackingCode(ctx.db, code);
  if (!row) return undefined;
  return presentPublic(row, await trackingOf(ctx, row));
}
