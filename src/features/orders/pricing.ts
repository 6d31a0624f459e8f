import type { Pricing } from '../../shared/config-pricing.js';

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

/** Major units (as sent by clients, e.g. 12.5) to integer minor units, and back: one rule, shared/money.ts. */
export { fromMajor as toMinor, toMajor } from '../../shared/money.js';
