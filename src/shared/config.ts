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

/** A configuration mistake, caught at start-up; the message always begins with the variable's name. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    detail: string,
  ) {
    super(`${variable} ${detail}`);
    this.name = 'ConfigError';
  }
}

function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isInteger(n) || n < min || n > max) {
    throw new ConfigError(name, `must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return n;
}

function num(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || n <= 0) {
    throw new ConfigError(name, `must be a positive number, got "${raw}"`);
  }
  return n;
}

function flag(env: NodeJS.ProcessEnv, name: string): boolean {
  const raw = (env[name] ?? '').trim().toLowerCase();
  if (raw === '1' || raw === 'true') return true;
  if (raw === '' || raw === '0' || raw === 'false') return false;
  throw new ConfigError(name, `must be 1 (on) or 0 (off), got "${env[name]}"`);
}

function trustProxy(raw: string | undefined): boolean | number | string {
  if (raw === undefined || raw === '' || raw === '0' || raw === 'false') return false;
  if (raw === 'true') return true;
  return /^\d+$/.test(raw) ? Number(raw) : raw;
}

function schedule(raw: string | undefined): number[] {
  if (raw === undefined || raw.trim() === '') return DEFAULT_RETRY_SCHEDULE;
  const parts = raw.split(',').map((s) => s.trim());
  if (parts.some((s) => s === '' || !Number.isFinite(Number(s)) || Number(s) < 0)) {
    throw new ConfigError('RUTA_WEBHOOK_RETRY_SCHEDULE', `must be comma-separated seconds (>= 0), got "${raw}"`);
  }
  return parts.map(Number);
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function logLevel(raw: string | undefined): string {
  const level = (raw || 'info').trim().toLowerCase();
  if (!LOG_LEVELS.includes(level)) {
    throw new ConfigError('RUTA_LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}, got "${raw}"`);
  }
  return level;
}

function databaseUrl(raw: string | undefined): string {
  const url = raw || 'sqlite:./data/ruta.db';
  if (!/^(sqlite:.+|postgres(ql)?:\/\/.+)$/.test(url)) {
    // Only the scheme is echoed: the rest may hold a password.
    throw new ConfigError('DATABASE_URL', `must be sqlite:<path> or postgres://…, got "${url.split(':')[0]}:…"`);
  }
  return url;
}

function publicUrl(raw: string | undefined, port: number): string {
  const value = (raw || `http://localhost:${port}`).replace(/\/+$/, '');
  let parsed: URL | undefined;
  try {
    parsed = new URL(value);
  } catch {}
  if (!parsed || !['http:', 'https:'].includes(parsed.protocol) || parsed.search || parsed.hash) {
    throw new ConfigError('RUTA_PUBLIC_URL', `must be an absolute http(s) URL without query or fragment, got "${raw}"`);
  }
  return value;
}

/** Fields of Pricing that are money, so integer minor units (cents). */
const MONEY_FIELDS = ['base_fee', 'per_km', 'per_kg', 'urgent_fee', 'minimum'] as const;

function pricing(raw: string | undefined): Pricing {
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

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = int(env, 'PORT', 3000, 0, 65535);
  const currency = (env.RUTA_DEFAULT_CURRENCY || 'USD').toUpperCase();
  if (!/^[A-Z]{3}$/.test(currency)) {
    throw new ConfigError('RUTA_DEFAULT_CURRENCY', `must be an ISO 4217 code, got "${env.RUTA_DEFAULT_CURRENCY}"`);
  }
  return {
    port,
    host: env.HOST || '0.0.0.0',
    databaseUrl: databaseUrl(env.DATABASE_URL),
    publicUrl: publicUrl(env.RUTA_PUBLIC_URL, port),
    filesDir: resolve(env.RUTA_FILES_DIR || './data/files'),
    defaultCurrency: currency,
    logLevel: logLevel(env.RUTA_LOG_LEVEL),
    trustProxy: trustProxy(env.RUTA_TRUST_PROXY),
    rateLimitPerMin: int(env, 'RUTA_RATE_LIMIT_PER_MIN', 6000),
    publicRateLimitPerMin: int(env, 'RUTA_PUBLIC_RATE_LIMIT_PER_MIN', 60),
    webhookAllowInsecure: flag(env, 'RUTA_WEBHOOK_ALLOW_INSECURE'),
    webhookTimeoutMs: int(env, 'RUTA_WEBHOOK_TIMEOUT_MS', 5000, 1),
    webhookRetrySchedule: schedule(env.RUTA_WEBHOOK_RETRY_SCHEDULE),
    webhookConcurrency: int(env, 'RUTA_WEBHOOK_CONCURRENCY', 64, 1),
    courierSpeedKmh: num(env, 'RUTA_COURIER_SPEED_KMH', 25),
    serviceMinutesPerStop: int(env, 'RUTA_SERVICE_MINUTES_PER_STOP', 5),
    fileUrlTtlSeconds: int(env, 'RUTA_FILE_URL_TTL_SECONDS', 3600, 1),
    defaultPricing: pricing(env.RUTA_DEFAULT_PRICING),
  };
}
