import { ConfigError } from './config-values.js';

export interface Pricing {
  /** All money amounts in minor units (cents). */
  base_fee: number;
  per_km: number;
  per_kg: number;
  included_kg: number;
  urgent_fee: number;
  /** Fraction of cash_on_delivery charged as a fee, e.g. 0.01. */
  cod_fee_rate: number;
  minimum: number;
}

export const DEFAULT_PRICING: Pricing = {
  base_fee: 500,
  per_km: 50,
  per_kg: 40,
  included_kg: 5,
  urgent_fee: 300,
  cod_fee_rate: 0.01,
  minimum: 500,
};

/** Fields of Pricing that are money, so integer minor units (cents). */
const MONEY_FIELDS = ['base_fee', 'per_km', 'per_kg', 'urgent_fee', 'minimum'] as const;

export function pricing(raw: string | undefined): Pricing {
  if (raw === undefined || raw.trim() === '') return DEFAULT_PRICING;
  const name = 'RUTA_DEFAULT_PRICING';
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (err) {
    throw new ConfigError(name, `must be a JSON object, e.g. {"base_fee":700}: ${(err as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ConfigError(name, 'must be a JSON object, e.g. {"base_fee":700}');
  }
  const known = Object.keys(DEFAULT_PRICING);
  for (const [key, value] of Object.entries(parsed)) {
    if (!known.includes(key)) {
      throw new ConfigError(name, `has an unknown key "${key}"; the keys are ${known.join(', ')}`);
    }
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw new ConfigError(`${name}.${key}`, `must be a number >= 0, got ${JSON.stringify(value)}`);
    }
    if ((MONEY_FIELDS as readonly string[]).includes(key) && !Number.isSafeInteger(value)) {
      throw new ConfigError(`${name}.${key}`, `is money in minor units (cents): it must be an integer, got ${value}`);
    }
    if (key === 'cod_fee_rate' && value > 1) {
      throw new ConfigError(`${name}.${key}`, `is a fraction and must be from 0 to 1, got ${value}`);
    }
  }
  return { ...DEFAULT_PRICING, ...(parsed as Partial<Pricing>) };
}
