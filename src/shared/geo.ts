// Distances between coordinates, for pricing (orders), ETA (dispatch) and the planner's travel
// matrix without OSRM (planning): one formula and one road factor, so a quote, an ETA and a plan
// agree on how far a place is.

const EARTH_RADIUS_KM = 6371.0088;
/** Streets are not straight lines: road distance is taken as 1.3 × the great-circle distance. */
export const ROAD_FACTOR = 1.3;

export interface Point {
  lat: number;
  lng: number;
}

export function haversineKm(a: Point, b: Point): number {
  const rad = Math.PI / 180;
  const dLat = (b.lat - a.lat) * rad;
  const dLng = (b.lng - a.lng) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(dLng / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** Road kilometres between two places; 0 when either is unknown (a price then has no distance part). */
export function roadKm(a: Point | null, b: Point | null): number {
  return a && b ? haversineKm(a, b) * ROAD_FACTOR : 0;
}

/** Default of RUTA_FAR_FROM_ADDRESS_M: a courier this far from the address was not at the door. */
export const FAR_FROM_ADDRESS_M = 250;

/** Whole metres between two places, as the crow flies. */
export function distanceM(a: Point, b: Point): number {
  return Math.round(haversineKm(a, b) * 1000);
}

/**
 * Whether a fix (with its accuracy radius, metres) was taken far from the address. The phone is
 * somewhere inside the accuracy circle, so a fix counts as far only when even the circle's nearest
 * point is beyond the threshold: distance − accuracy > threshold. A coarse fix (accuracy worse than
 * its distance) is therefore never far: it cannot tell the door from the next street. An unknown
 * accuracy counts as exact.
 */
export function farFromAddress(distance: number, accuracyM: number | null, thresholdM = FAR_FROM_ADDRESS_M): boolean {
  return distance - (accuracyM ?? 0) > thresholdM;
}
