import type { Order } from '../shared/api';

export const uuid = () => crypto.randomUUID();

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
