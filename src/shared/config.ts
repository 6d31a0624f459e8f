import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { type Messaging, messaging } from './config-messaging.js';
import { type Pricing, pricing } from './config-pricing.js';
import {
  ConfigError,
  databaseUrl,
  filesUrl,
  flag,
  geocoderInterval,
  int,
  type LogFormat,
  logFormat,
  logLevel,
  mapTilesUrl,
  num,
  osrmUrl,
  publicUrl,
  schedule,
  shift,
  timezone,
  trustProxy,
} from './config-values.js';
import { isCurrency } from './currency.js';
import { isLoopbackUrl, isPlainHttpUrl } from './public-url.js';

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
  logFormat: LogFormat;
  /** A Nominatim- or Pelias-compatible geocoder (docs/geocoding.md); unset: addresses need coordinates. */
  geocoderUrl: string | null;
  /** Least milliseconds between two geocoder requests of one process (Nominatim's public instance: 1 000). */
  geocoderIntervalMs: number;
  /** Customer message providers (DESIGN §14, docs/notifications.md); none set: the `log` provider. */
  messaging: Messaging;
}

export const API_VERSION = '2025-07-01';

/** BENCHMARKS.md ("Memory"): the live heap is ~40 MB; V8's own choice let it reach 4× that in garbage. */
export const DEFAULT_HEAP_GROWTH_PERCENT = 50;

/**
 * Half the cores, at least one: a solve keeps a core busy for its whole time limit, and the rest
 * stay for the event loop and the database (BENCHMARKS.md, "Route plans under load").
 */
export const DEFAULT_PLAN_CONCURRENCY = Math.max(1, Math.floor(availableParallelism() / 2));

/**
 * What start-up warns about RUTA_PUBLIC_URL, if anything. A loopback address reaches no phone. Plain
 * http to another host reaches phones, but browsers keep location, the camera and the offline
 * shell (service workers) for secure contexts, so the courier app loses all three there.
 */
export function publicUrlWarning(url: string): string | undefined {
  if (isLoopbackUrl(url)) {
    return 'RUTA_PUBLIC_URL is a loopback address: links in invitations, e-mails and the courier sign-in QR code open only on this machine. Set it to the address phones and browsers reach (docs/operations.md, "The public address and https").';
  }
  if (isPlainHttpUrl(url)) {
    return 'RUTA_PUBLIC_URL is plain http: phones can sign in and deliver, but browsers give the courier app no location, camera or offline start outside https. Serve Ruta over https for couriers (docs/operations.md, "The public address and https").';
  }
  return undefined;
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
