import { resolve } from 'node:path';
import ipaddr from 'ipaddr.js';
import { DEFAULT_FILES_URL, formatFilesUrl, parseFilesUrl } from './files-url.js';
import { isTimezone } from './local-time.js';

// Each variable's reading, apart from loadConfig's list of them: every refusal names its variable
// (ConfigError), so a start-up that fails says what to fix.

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

export function int(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: number,
  min = 0,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isInteger(n) || n < min || n > max) {
    throw new ConfigError(name, `must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return n;
}

export function num(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || n <= 0) {
    throw new ConfigError(name, `must be a positive number, got "${raw}"`);
  }
  return n;
}

export function flag(env: NodeJS.ProcessEnv, name: string): boolean {
  const raw = (env[name] ?? '').trim().toLowerCase();
  if (raw === '1' || raw === 'true') return true;
  if (raw === '' || raw === '0' || raw === 'false') return false;
  throw new ConfigError(name, `must be 1 (on) or 0 (off), got "${env[name]}"`);
}

/** Named ranges @fastify/proxy-addr knows, besides addresses and CIDRs. */
const PROXY_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** One entry of a proxy list as Fastify reads it: an address, address/bits, address/netmask, or a named range. */
function isProxyEntry(entry: string): boolean {
  if (PROXY_RANGES.has(entry)) return true;
  const [address = '', range, extra] = entry.split('/');
  if (extra !== undefined || !ipaddr.isValid(address)) return false;
  if (range === undefined) return true;
  if (/^\d{1,3}$/.test(range)) return Number(range) <= (ipaddr.parse(address).kind() === 'ipv4' ? 32 : 128);
  return ipaddr.isValid(range);
}

/**
 * Off, `true`, a hop count, or proxy addresses. Checked here because Fastify refuses a bad list
 * only when the app is built ("invalid IP address: yes", naming no variable), and a worker, which
 * builds none, would have started with it.
 */
export function trustProxy(raw: string | undefined): boolean | number | string {
  const value = (raw ?? '').trim();
  const lower = value.toLowerCase();
  if (lower === '' || lower === '0' || lower === 'false') return false;
  if (lower === 'true') return true;
  if (/^\d+$/.test(value)) return Number(value);
  const entries = value.split(',').map((s) => s.trim());
  if (!entries.every(isProxyEntry)) {
    throw new ConfigError(
      'RUTA_TRUST_PROXY',
      `must be true, a number of proxy hops, or comma-separated proxy addresses or CIDRs such as 127.0.0.1,10.0.0.0/8, got "${raw}"`,
    );
  }
  return entries.join(',');
}

const DEFAULT_RETRY_SCHEDULE = [30, 120, 600, 1800, 3600, 7200, 14400, 28800, 28800];

export function schedule(raw: string | undefined): number[] {
  if (raw === undefined || raw.trim() === '') return DEFAULT_RETRY_SCHEDULE;
  const parts = raw.split(',').map((s) => s.trim());
  if (parts.some((s) => s === '' || !Number.isFinite(Number(s)) || Number(s) < 0)) {
    throw new ConfigError('RUTA_WEBHOOK_RETRY_SCHEDULE', `must be comma-separated seconds (>= 0), got "${raw}"`);
  }
  return parts.map(Number);
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export function logLevel(raw: string | undefined): string {
  const level = (raw || 'info').trim().toLowerCase();
  if (!LOG_LEVELS.includes(level)) {
    throw new ConfigError('RUTA_LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}, got "${raw}"`);
  }
  return level;
}

export type LogFormat = 'auto' | 'json' | 'pretty';

export function logFormat(raw: string | undefined): LogFormat {
  const value = (raw || 'auto').trim().toLowerCase();
  if (value !== 'auto' && value !== 'json' && value !== 'pretty') {
    throw new ConfigError('RUTA_LOG_FORMAT', `must be auto, json or pretty, got "${raw}"`);
  }
  return value;
}

/** Nominatim's usage policy allows its public instance one request a second; self-hosted ones set their own. */
export function geocoderInterval(env: NodeJS.ProcessEnv, url: string | null): number {
  const publicInstance = url !== null && new URL(url).hostname === 'nominatim.openstreetmap.org';
  return int(env, 'RUTA_GEOCODER_INTERVAL_MS', publicInstance ? 1000 : 0, publicInstance ? 1000 : 0, 60_000);
}

export function databaseUrl(raw: string | undefined): string {
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

export function publicUrl(raw: string | undefined, port: number): string {
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

export const DEFAULT_MAP_TILES_URL = 'https://tile.openstreetmap.org/{z}/{x}/{y}.png';

export function mapTilesUrl(raw: string | undefined): string {
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

export function timezone(raw: string | undefined): string {
  const tz = raw?.trim() || 'UTC';
  if (!isTimezone(tz))
    throw new ConfigError('RUTA_DEFAULT_TIMEZONE', `must be an IANA time zone such as America/Lima, got "${raw}"`);
  return tz;
}

/** `HH:mm-HH:mm`, the start before the end: a working day within one calendar day. */
export function shift(raw: string | undefined): { start: string; end: string } {
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

export function osrmUrl(raw: string | undefined, name = 'RUTA_OSRM_URL'): string | null {
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
export function filesUrl(env: NodeJS.ProcessEnv): string {
  const raw =
    env.RUTA_FILES_URL?.trim() || (env.RUTA_FILES_DIR ? `file:${resolve(env.RUTA_FILES_DIR)}` : DEFAULT_FILES_URL);
  try {
    return formatFilesUrl(parseFilesUrl(raw));
  } catch (err) {
    throw new ConfigError(env.RUTA_FILES_URL?.trim() ? 'RUTA_FILES_URL' : 'RUTA_FILES_DIR', (err as Error).message);
  }
}
