import type { Order, OrderStatus } from '../shared/api';

/**
 * The statuses of stops and orders in the courier app's words (the app is in English, its one
 * language): the badges on the stops and in "Done today", and the notes on moves another phone made
 * first (refusals.ts, lower-cased). A status the app does not know yet reads as its code in words.
 */
export const STATUS_WORDS: Record<OrderStatus, string> = {
  pending: 'Pending',
  validated: 'Confirmed',
  assigned: 'Assigned',
  ready_for_pickup: 'Ready for pickup',
  picked_up: 'Picked up',
  in_transit: 'On the way',
  arriving: 'Arriving',
  at_location: 'At the door',
  delivered: 'Delivered',
  partially_delivered: 'Partly delivered',
  failed: 'Failed',
  rescheduled: 'Rescheduled',
  returned: 'Returned',
  cancelled: 'Cancelled',
};

export function statusWords(status: string): string {
  return STATUS_WORDS[status as OrderStatus] ?? status.replace(/_/g, ' ');
}

export function firstName(name: string): string {
  return name.trim().split(/\s+/)[0] ?? name;
}

/** A link that opens the phone's map app with directions to the stop. */
/** Directions to the order's delivery address, or to `to` (a pair's pickup address). */
export function navLink(o: Order, to?: Order['delivery_address']): string {
  const a = to ?? o.delivery_address;
  const dest =
    typeof a.lat === 'number' && typeof a.lng === 'number'
      ? `${a.lat},${a.lng}`
      : [a.address, a.district, a.city].filter(Boolean).join(', ');
  return `https://www.google.com/maps/dir/?api=1&destination=${encodeURIComponent(dest)}`;
}
