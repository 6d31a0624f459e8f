import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { isCurrency } from './currency.js';
import { DEFAULT_FILES_URL, formatFilesUrl, parseFilesUrl } from './files-url.js';
import { isTimezone } from './local-time.js';

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
  /** Where uploaded files live: `file:<absolute dir>` or `s3://bucket/prefix?…` (shared/files-url.ts). */
  filesUrl: string;
  defaultCurrency: string;
  logLevel: string;
  /** Fastify trustProxy: false, true, a hop count, or a comma-separated list of proxy addresses/CIDRs. */
  trustProxy: boolean | number | string;
  rateLimitPerMin: number;
  publicRateLimitPerMin: number;
  /** PostgreSQL: how often an instance writes its counted hits and reads the shared totals; 0 = every request. */
  rateLimitSyncMs: number;
  webhookAllowInsecure: boolean;
  webhookTimeoutMs: number;
  /** Seconds between attempt n and n+1; its length + 1 is the number of attempts. */
  webhookRetrySchedule: number[];
  webhookConcurrency: number;
  /** Route plans one process solves at once (each takes a core for its time limit); more wait queued. */
  planConcurrency: number;
  /** Old-generation heap (MB) one plan's solver thread may use; a plan that needs more fails, not the process. */
  planMemoryMb: number;
  courierSpeedKmh: number;
  serviceMinutesPerStop: number;
  fileUrlTtlSeconds: number;
  /**
   * Metres between a delivery or failed attempt and its address beyond which the dispatcher is
   * shown it (shared/geo.ts farFromAddress; docs/operations.md).
   */
  farFromAddressM: number;
  defaultPricing: Pricing;
  /** Milliseconds between heartbeat comments on an open `/v1/stream` (proxies close silent connections). */
  streamHeartbeatMs: number;
  /** Open streams one key (or session) may hold at once; one more gets 429. */
  streamMaxPerKey: number;
  /** Open tracking-page streams (`/track/{code}/events`) one client (an IPv4 address or IPv6 /64) may hold. */
  trackStreamsPerClient: number;
  /** How often the tracking streams re-read their orders (status, ETA, positions from other instances). */
  trackRefreshMs: number;
  /** Order events a resumed stream replays at most; a longer backlog gets `event: reset` (docs/stream.md). */
  streamReplayMax: number;
  /**
   * The carrier's IANA time zone: of depots created without one, and of accounts without their own
   * (a date without a time is a day in it, docs/api.md "Dates and time zones").
   */
  defaultTimezone: string;
  /** Whether RUTA_DEFAULT_TIMEZONE was set: unset, `ruta serve` says the carrier's days are UTC's. */
  defaultTimezoneSet: boolean;
  /** The carrier's working day (`HH:mm`), for couriers without a shift at depots without their own. */
  defaultShift: { start: string; end: string };
  /** An OSRM server whose `table` service gives plans their travel times; unset: haversine × 1.3. */
  osrmUrl: string | null;
  /** Leaflet tile URL template for the console's maps; its origin is allowed by the console's CSP. */
  mapTilesUrl: string;
  /** Where the built console and courier app live (dist/web); absent when running from source. */
  webDir: string;
  /**
   * How far (percent) V8 lets the heap grow past what survived the last full collection before it
   * runs the next one; 0 leaves it to V8, which allows up to 4× on a machine with plenty of memory.
   */
  heapGrowthPercent: number;
  /** `pretty`: coloured lines for a person at a terminal; `json`: one object a line for collectors; `auto`: pretty on a TTY. */
  logFormat: 'auto' | 'json' | 'pretty';
  /** A Nominatim- or Pelias-compatible geocoder (docs/geocoding.md); unset: addresses need coordinates. */
  geocoderUrl: string | null;
  /** Least milliseconds between two geocoder requests of one process (Nominatim's public instance: 1 000). */
  geocoderIntervalMs: number;
  /** Customer message providers (DESIGN §14, docs/notifications.md); none set: the `log` provider. */
  messaging: Messaging;
}

/** Where customer messages leave: each provider is null unless its variables are set. */
export interface Messaging {
  /** `smtp://user:pass@host:port` or `smtps://…` (nodemailer's URL form). */
  smtp: { url: string; from: string } | null;
  twilio: {
    accountSid: string;
    authToken: string;
    smsFrom: string | null;
    whatsappFrom: string | null;
    /** Base URL of the Messages API (https://api.twilio.com); tests point it at a local server. */
    apiUrl: string;
  } | null;
  /** Meta's WhatsApp Cloud API, preferred over Twilio for WhatsApp when set. */
  meta: {
    token: string;
    phoneNumberId: string;
    /** Base URL with the Graph API version, e.g. https://graph.facebook.com/v21.0. */
    apiUrl: string;
    /** Signs the webhooks Meta sends (X-Hub-Signature-256); null: webhooks refused. */
    appSecret: string | null;
    /** What Meta echoes when the webhook URL is registered (hub.verify_token). */
    verifyToken: string | null;
  } | null;
  /** Messages one process sends at once. */
  concurrency: number;
}

export const API_VERSION = '2025-07-01';

/** BENCHMARKS.md ("Memory"): the live heap is ~40 MB; V8's own choice let it reach 4× that in garbage. */
export const DEFAULT_HEAP_GROWTH_PERCENT = 50;

/**
 * Half the cores, at least one: a solve keeps a core busy for its whole time limit, and the rest
 * stay for the event loop and the database (BENCHMARKS.md, "Route plans under load").
 */
export const DEFAULT_PLAN_CONCURRENCY = Math.max(1, Math.floor(availableParallelism() / 2));

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

function logFormat(raw: string | undefined): Config['logFormat'] {
  const value = (raw || 'auto').trim().toLowerCase();
  if (value !== 'auto' && value !== 'json' && value !== 'pretty') {
    throw new ConfigError('RUTA_LOG_FORMAT', `must be auto, json or pretty, got "${raw}"`);
  }
  return value;
}

/** Nominatim's usage policy allows its public instance one request a second; self-hosted ones set their own. */
function geocoderInterval(env: NodeJS.ProcessEnv, url: string | null): number {
  const publicInstance = url !== null && new URL(url).hostname === 'nominatim.openstreetmap.org';
  return int(env, 'RUTA_GEOCODER_INTERVAL_MS', publicInstance ? 1000 : 0, publicInstance ? 1000 : 0, 60_000);
}

function databaseUrl(raw: string | undefined): string {
  const url = raw || 'sqlite:./data/ruta.db';
  if (!/^(sqlite:.+|postgres(ql)?:\/\/.+)$/.test(url)) {
    // A bare path holds no password, and is the usual slip: say what to write instead.
    if (!url.includes(':')) {
      throw new ConfigError(
        'DATABASE_URL',
        `must be sqlite:<path> or postgres://…, got a bare path: write sqlite:${url}`,
      );
    }
    // Only the scheme is echoed: the rest may hold a password.
    throw new ConfigError('DATABASE_URL', `must be sqlite:<path> or postgres://…, got "${url.split(':')[0]}:…"`);
  }
  return url;
}

/** Whether a URL names this machine only (localhost, 127.0.0.0/8, ::1): a phone given such a link cannot open it. */
export function isLoopbackUrl(url: string): boolean {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host.endsWith('.localhost') || /^127\.\d+\.\d+\.\d+$/.test(host) || host === '::1';
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

export const DEFAULT_MAP_TILES_URL = 'https://tile.openstreetmap.org/{z}/{x}/{y}.png';

function mapTilesUrl(raw: string | undefined): string {
  const value = (raw || DEFAULT_MAP_TILES_URL).trim();
  let parsed: URL | undefined;
  try {
    // The template's braces are not URL syntax in the host; the origin is what the CSP needs.
    parsed = new URL(value.replace(/\{[a-z]\}/g, '0'));
  } catch {}
  if (!parsed || !['http:', 'https:'].includes(parsed.protocol) || !value.includes('{z}')) {
    throw new ConfigError('RUTA_MAP_TILES_URL', `must be an http(s) URL template with {z}, {x} and {y}, got "${raw}"`);
  }
  return value;
}

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

function timezone(raw: string | undefined): string {
  const tz = raw?.trim() || 'UTC';
  if (!isTimezone(tz))
    throw new ConfigError('RUTA_DEFAULT_TIMEZONE', `must be an IANA time zone such as America/Lima, got "${raw}"`);
  return tz;
}

/** `HH:mm-HH:mm`, the start before the end: a working day within one calendar day. */
function shift(raw: string | undefined): { start: string; end: string } {
  const value = raw?.trim() || '08:00-18:00';
  const m = /^([01][0-9]|2[0-3]):([0-5][0-9])-([01][0-9]|2[0-3]):([0-5][0-9])$/.exec(value);
  if (!m || `${m[3]}:${m[4]}` <= `${m[1]}:${m[2]}`) {
    throw new ConfigError(
      'RUTA_DEFAULT_SHIFT',
      `must be HH:mm-HH:mm with the start first, such as 08:00-18:00, got "${raw}"`,
    );
  }
  return { start: `${m[1]}:${m[2]}`, end: `${m[3]}:${m[4]}` };
}

function osrmUrl(raw: string | undefined, name = 'RUTA_OSRM_URL'): string | null {
  if (raw === undefined || raw.trim() === '') return null;
  const value = raw.trim().replace(/\/+$/, '');
  let parsed: URL | undefined;
  try {
    parsed = new URL(value);
  } catch {}
  if (!parsed || !['http:', 'https:'].includes(parsed.protocol)) {
    throw new ConfigError(name, `must be an absolute http(s) URL, got "${parsed ? parsed.protocol : 'not a URL'}"`);
  }
  return value;
}

/** RUTA_FILES_URL; RUTA_FILES_DIR (the older variable) still names a directory when it is unset. */
function filesUrl(env: NodeJS.ProcessEnv): string {
  const raw =
    env.RUTA_FILES_URL?.trim() || (env.RUTA_FILES_DIR ? `file:${resolve(env.RUTA_FILES_DIR)}` : DEFAULT_FILES_URL);
  try {
    return formatFilesUrl(parseFilesUrl(raw));
  } catch (err) {
    throw new ConfigError(env.RUTA_FILES_URL?.trim() ? 'RUTA_FILES_URL' : 'RUTA_FILES_DIR', (err as Error).message);
  }
}

function baseUrl(env: NodeJS.ProcessEnv, name: string, fallback: string): string {
  const value = (env[name]?.trim() || fallback).replace(/\/+$/, '');
  let parsed: URL | undefined;
  try {
    parsed = new URL(value);
  } catch {}
  if (!parsed || !['http:', 'https:'].includes(parsed.protocol)) {
    throw new ConfigError(name, 'must be an absolute http(s) URL');
  }
  return value;
}

function messaging(env: NodeJS.ProcessEnv): Messaging {
  const v = (name: string): string | null => env[name]?.trim() || null;
  const smtpUrl = v('RUTA_SMTP_URL');
  if (smtpUrl && !/^smtps?:\/\/.+/.test(smtpUrl)) {
    throw new ConfigError('RUTA_SMTP_URL', 'must be smtp://… or smtps://…');
  }
  if (smtpUrl && !v('RUTA_EMAIL_FROM')) throw new ConfigError('RUTA_EMAIL_FROM', 'must be set with RUTA_SMTP_URL');
  const sid = v('RUTA_TWILIO_ACCOUNT_SID');
  if (sid && !v('RUTA_TWILIO_AUTH_TOKEN')) {
    throw new ConfigError('RUTA_TWILIO_AUTH_TOKEN', 'must be set with RUTA_TWILIO_ACCOUNT_SID');
  }
  const waToken = v('RUTA_WHATSAPP_TOKEN');
  if (waToken && !v('RUTA_WHATSAPP_PHONE_NUMBER_ID')) {
    throw new ConfigError('RUTA_WHATSAPP_PHONE_NUMBER_ID', 'must be set with RUTA_WHATSAPP_TOKEN');
  }
  return {
    smtp: smtpUrl ? { url: smtpUrl, from: v('RUTA_EMAIL_FROM') as string } : null,
    twilio: sid
      ? {
          accountSid: sid,
          authToken: v('RUTA_TWILIO_AUTH_TOKEN') as string,
          smsFrom: v('RUTA_TWILIO_SMS_FROM'),
          whatsappFrom: v('RUTA_TWILIO_WHATSAPP_FROM'),
          apiUrl: baseUrl(env, 'RUTA_TWILIO_API_URL', 'https://api.twilio.com'),
        }
      : null,
    meta: waToken
      ? {
          token: waToken,
          phoneNumberId: v('RUTA_WHATSAPP_PHONE_NUMBER_ID') as string,
          apiUrl: baseUrl(env, 'RUTA_WHATSAPP_API_URL', 'https://graph.facebook.com/v21.0'),
          appSecret: v('RUTA_WHATSAPP_APP_SECRET'),
          verifyToken: v('RUTA_WHATSAPP_VERIFY_TOKEN'),
        }
      : null,
    concurrency: int(env, 'RUTA_MESSAGE_CONCURRENCY', 16, 1, 1000),
  };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = int(env, 'PORT', 3000, 0, 65535);
  const currency = (env.RUTA_DEFAULT_CURRENCY || 'USD').toUpperCase();
  if (!isCurrency(currency)) {
    throw new ConfigError('RUTA_DEFAULT_CURRENCY', `must be an ISO 4217 code, got "${env.RUTA_DEFAULT_CURRENCY}"`);
  }
  return {
    port,
    host: env.HOST || '0.0.0.0',
    databaseUrl: databaseUrl(env.DATABASE_URL),
    publicUrl: publicUrl(env.RUTA_PUBLIC_URL, port),
    filesUrl: filesUrl(env),
    defaultCurrency: currency,
    logLevel: logLevel(env.RUTA_LOG_LEVEL),
    trustProxy: trustProxy(env.RUTA_TRUST_PROXY),
    rateLimitPerMin: int(env, 'RUTA_RATE_LIMIT_PER_MIN', 6000),
    publicRateLimitPerMin: int(env, 'RUTA_PUBLIC_RATE_LIMIT_PER_MIN', 60),
    rateLimitSyncMs: int(env, 'RUTA_RATE_LIMIT_SYNC_MS', 1000, 0, 60_000),
    webhookAllowInsecure: flag(env, 'RUTA_WEBHOOK_ALLOW_INSECURE'),
    webhookTimeoutMs: int(env, 'RUTA_WEBHOOK_TIMEOUT_MS', 5000, 1),
    webhookRetrySchedule: schedule(env.RUTA_WEBHOOK_RETRY_SCHEDULE),
    webhookConcurrency: int(env, 'RUTA_WEBHOOK_CONCURRENCY', 64, 1),
    planConcurrency: int(env, 'RUTA_PLAN_CONCURRENCY', DEFAULT_PLAN_CONCURRENCY, 1, 64),
    planMemoryMb: int(env, 'RUTA_PLAN_MEMORY_MB', 512, 32, 65_536),
    courierSpeedKmh: num(env, 'RUTA_COURIER_SPEED_KMH', 25),
    serviceMinutesPerStop: int(env, 'RUTA_SERVICE_MINUTES_PER_STOP', 5),
    fileUrlTtlSeconds: int(env, 'RUTA_FILE_URL_TTL_SECONDS', 3600, 1),
    farFromAddressM: int(env, 'RUTA_FAR_FROM_ADDRESS_M', 250, 1, 1_000_000),
    defaultPricing: pricing(env.RUTA_DEFAULT_PRICING),
    streamHeartbeatMs: int(env, 'RUTA_STREAM_HEARTBEAT_MS', 15_000, 10, 3_600_000),
    streamMaxPerKey: int(env, 'RUTA_STREAM_MAX_PER_KEY', 10, 1, 10_000),
    trackStreamsPerClient: int(env, 'RUTA_TRACK_STREAMS_PER_CLIENT', 20, 1, 1_000_000),
    trackRefreshMs: int(env, 'RUTA_TRACK_REFRESH_MS', 5000, 10, 600_000),
    streamReplayMax: int(env, 'RUTA_STREAM_REPLAY_MAX', 10_000, 1, 1_000_000),
    heapGrowthPercent: int(env, 'RUTA_HEAP_GROWTH_PERCENT', DEFAULT_HEAP_GROWTH_PERCENT, 0, 1000),
    defaultTimezone: timezone(env.RUTA_DEFAULT_TIMEZONE),
    defaultTimezoneSet: Boolean(env.RUTA_DEFAULT_TIMEZONE?.trim()),
    defaultShift: shift(env.RUTA_DEFAULT_SHIFT),
    osrmUrl: osrmUrl(env.RUTA_OSRM_URL),
    mapTilesUrl: mapTilesUrl(env.RUTA_MAP_TILES_URL),
    messaging: messaging(env),
    webDir: resolve(env.RUTA_WEB_DIR || resolve(import.meta.dirname, '../../dist/web')),
    logFormat: logFormat(env.RUTA_LOG_FORMAT),
    geocoderUrl: osrmUrl(env.RUTA_GEOCODER_URL, 'RUTA_GEOCODER_URL'),
    geocoderIntervalMs: geocoderInterval(env, osrmUrl(env.RUTA_GEOCODER_URL, 'RUTA_GEOCODER_URL')),
  };
}
