import { resolve } from 'node:path';

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

export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  publicUrl: string;
  filesDir: string;
  defaultCurrency: string;
  logLevel: string;
  /** Fastify trustProxy: false, true, a hop count, or a comma-separated list of proxy addresses/CIDRs. */
  trustProxy: boolean | number | string;
  rateLimitPerMin: number;
  publicRateLimitPerMin: number;
  webhookAllowInsecure: boolean;
  webhookTimeoutMs: number;
  /** Seconds between attempt n and n+1; its length + 1 is the number of attempts. */
  webhookRetrySchedule: number[];
  webhookConcurrency: number;
  courierSpeedKmh: number;
  serviceMinutesPerStop: number;
  fileUrlTtlSeconds: number;
  defaultPricing: Pricing;
}

export const API_VERSION = '2025-07-01';

const DEFAULT_RETRY_SCHEDULE = [30, 120, 600, 1800, 3600, 7200, 14400, 28800, 28800];

export const DEFAULT_PRICING: Pricing = {
  base_fee: 500,
  per_km: 50,
  per_kg: 40,
  included_kg: 5,
  urgent_fee: 300,
  cod_fee_rate: 0.01,
  minimum: 500,
};

function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 0): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be an integer >= ${min}, got "${raw}"`);
  return n;
}

function num(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number, got "${raw}"`);
  return n;
}

function trustProxy(raw: string | undefined): boolean | number | string {
  if (raw === undefined || raw === '' || raw === '0' || raw === 'false') return false;
  if (raw === 'true') return true;
  return /^\d+$/.test(raw) ? Number(raw) : raw;
}

function schedule(raw: string | undefined): number[] {
  if (raw === undefined || raw.trim() === '') return DEFAULT_RETRY_SCHEDULE;
  const parts = raw.split(',').map((s) => Number(s.trim()));
  if (parts.some((n) => !Number.isFinite(n) || n < 0)) {
    throw new Error(`RUTA_WEBHOOK_RETRY_SCHEDULE must be comma-separated seconds, got "${raw}"`);
  }
  return parts;
}

function pricing(raw: string | undefined): Pricing {
  if (!raw) return DEFAULT_PRICING;
  const parsed = JSON.parse(raw) as Partial<Pricing>;
  return { ...DEFAULT_PRICING, ...parsed };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const databaseUrl = env.DATABASE_URL || 'sqlite:./data/ruta.db';
  const port = int(env, 'PORT', 3000);
  const currency = (env.RUTA_DEFAULT_CURRENCY || 'USD').toUpperCase();
  if (!/^[A-Z]{3}$/.test(currency))
    throw new Error(`RUTA_DEFAULT_CURRENCY must be an ISO 4217 code, got "${currency}"`);
  return {
    port,
    host: env.HOST || '0.0.0.0',
    databaseUrl,
    publicUrl: (env.RUTA_PUBLIC_URL || `http://localhost:${port}`).replace(/\/+$/, ''),
    filesDir: resolve(env.RUTA_FILES_DIR || './data/files'),
    defaultCurrency: currency,
    logLevel: env.RUTA_LOG_LEVEL || 'info',
    trustProxy: trustProxy(env.RUTA_TRUST_PROXY),
    rateLimitPerMin: int(env, 'RUTA_RATE_LIMIT_PER_MIN', 6000),
    publicRateLimitPerMin: int(env, 'RUTA_PUBLIC_RATE_LIMIT_PER_MIN', 60),
    webhookAllowInsecure: env.RUTA_WEBHOOK_ALLOW_INSECURE === '1',
    webhookTimeoutMs: int(env, 'RUTA_WEBHOOK_TIMEOUT_MS', 5000, 1),
    webhookRetrySchedule: schedule(env.RUTA_WEBHOOK_RETRY_SCHEDULE),
    webhookConcurrency: int(env, 'RUTA_WEBHOOK_CONCURRENCY', 64, 1),
    courierSpeedKmh: num(env, 'RUTA_COURIER_SPEED_KMH', 25),
    serviceMinutesPerStop: int(env, 'RUTA_SERVICE_MINUTES_PER_STOP', 5),
    fileUrlTtlSeconds: int(env, 'RUTA_FILE_URL_TTL_SECONDS', 3600, 1),
    defaultPricing: pricing(env.RUTA_DEFAULT_PRICING),
  };
}
