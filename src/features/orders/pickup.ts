import type { AppContext } from '../../shared/context.js';
import type { Mode } from '../../shared/db/schema.js';
import { ApiError } from '../../shared/errors.js';
import { distanceM, type Point } from '../../shared/geo.js';
import { locateAddress } from '../geocoding/locate.js';
import { PICKUP_AT_DEPOT_M } from './address-schemas.js';
import { depotPoints } from './pickup-repo.js';
import type { Order, OrderCreate } from './schemas.js';

// Pickup-and-delivery pairs (DESIGN §16): an order sent with a pickup_address that is not a depot is
// collected there by the courier who delivers it, earlier on the same route. Everything an order's
// pickup needs at creation is here; orders without one never reach it.

export type PickupAddress = NonNullable<Order['pickup_address']>;

/** The point of an address with both coordinates, else null. */
export const pointOfAddress = (a: { lat?: number; lng?: number }): Point | null =>
  typeof a.lat === 'number' && typeof a.lng === 'number' ? { lat: a.lat, lng: a.lng } : null;

/**
 * 422 for half a point (lat without lng, or the reverse), naming the missing one: it would price as
 * 0 km, stay off every map and plan, or have its one coordinate overwritten by the geocoder. Both or
 * neither, for a delivery address and a pickup address alike.
 */
export function requireWholePoint(a: { lat?: number; lng?: number }, field: 'delivery_address' | 'pickup_address') {
  if ((a.lat === undefined) === (a.lng === undefined)) return;
  const missing = a.lat === undefined ? 'lat' : 'lng';
  throw new ApiError(
    'parameter_invalid',
    `Invalid ${field}: ${missing} is missing; send both lat and lng, or neither to have the address located.`,
    `${field}.${missing}`,
  );
}

/**
 * The pickup address as stored: checked (422 with `param` for what the schema cannot say), located
 * like the delivery address when it came without coordinates, and matched to a depot within
 * PICKUP_AT_DEPOT_M. A pickup must be somewhere a courier can drive to: one that has no coordinates
 * and cannot be located is refused rather than kept (unlike a delivery address, which a person can
 * still fix before it is planned, nothing would ever route the pickup).
 */
export async function pickupOf(
  ctx: AppContext,
  mode: Mode,
  sent: OrderCreate['pickup_address'],
): Promise<PickupAddress | null> {
  if (sent === undefined || sent === null) return null;
  if (sent.address.trim() === '') {
    throw new ApiError(
      'parameter_invalid',
      'Invalid pickup_address.address: must not be blank.',
      'pickup_address.address',
    );
  }
  requireWholePoint(sent, 'pickup_address');
  let point = pointOfAddress(sent);
  if (!point) point = (await locateAddress(ctx, sent))?.point ?? null;
  if (!point) {
    throw new ApiError(
      'parameter_invalid',
      'Invalid pickup_address: it has no lat/lng and the geocoder could not locate it (or none is configured); send lat and lng.',
      'pickup_address',
    );
  }
  const depot = (await depotPoints(ctx.db, mode)).find((d) => distanceM(d, point) <= PICKUP_AT_DEPOT_M);
  return { ...sent, lat: point.lat, lng: point.lng, depot: depot?.id ?? null };
}

/** Whether the order is a pickup-and-delivery pair: collected at an address of its own, not at a depot. */
export function isPaired(o: { pickup_address: Order['pickup_address'] }): boolean {
  return o.pickup_address != null && o.pickup_address.depot == null && pointOfAddress(o.pickup_address) !== null;
}
