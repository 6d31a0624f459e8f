import type { Pricing } from '../../shared/config.js';

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

export function roadKm(a: Point | null, b: Point | null): number {
  return a && b ? haversineKm(a, b) * ROAD_FACTOR : 0;
}

export interface PriceInput {
  km: number;
  weightKg: number;
  isUrgent: boolean;
  /** minor units */
  cashOnDelivery: number;
}

export interface PriceBreakdown {
  base_fee: number;
  distance: number;
  weight: number;
  urgent: number;
  cod_fee: number;
  minimum_adjustment: number;
  total: number;
}

/** All amounts in minor units; each component is rounded on its own so the breakdown adds up exactly. */
export function price(p: Pricing, input: PriceInput): PriceBreakdown {
  const base_fee = p.base_fee;
  const distance = Math.round(p.per_km * input.km);
  const weight = Math.round(p.per_kg * Math.max(0, input.weightKg - p.included_kg));
  const urgent = input.isUrgent ? p.urgent_fee : 0;
  const cod_fee = Math.round(p.cod_fee_rate * input.cashOnDelivery);
  const sum = base_fee + distance + weight + urgent + cod_fee;
  const minimum_adjustment = Math.max(0, p.minimum - sum);
  return { base_fee, distance, weight, urgent, cod_fee, minimum_adjustment, total: sum + minimum_adjustment };
}

/** Major units (as sent by clients, e.g. 12.5) to integer minor units; undefined if it has sub-cent digits. */
export function toMinor(amount: number): number | undefined {
  const minor = Math.round(amount * 100);
  return Math.abs(minor - amount * 100) < 1e-6 ? minor : undefined;
}

export const toMajor = (minor: number): number => Math.round(minor) / 100;
