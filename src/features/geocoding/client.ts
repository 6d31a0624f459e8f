import type { Config } from '../../shared/config.js';
import type { AppContext } from '../../shared/context.js';
import { instanceKey } from '../../shared/instance.js';

/**
 * How precise a match is: `address` (a house or building), `street` (the street, no number),
 * `area` (a neighbourhood, district or city: a courier cannot drive to it), `none` (no match, or the
 * geocoder failed). Orders whose match is not `address` or `street` are flagged for review.
 */
export type GeocodeQuality = 'address' | 'street' | 'area' | 'none';

export interface GeocodeMatch {
  lat: number;
  lng: number;
  /** The geocoder's own name for the place, for a person to compare with what was asked. */
  label: string;
  quality: Exclude<GeocodeQuality, 'none'>;
  /** 0 to 1: Pelias's confidence; Nominatim has none, so it is derived from the match's rank. */
  confidence: number;
}

/** A geocoder answers within this long, or the address is left without coordinates. */
const TIMEOUT_MS = 10_000;
/** Answers kept per process: Nominatim's usage policy asks clients to cache, and imports repeat streets. */
const CACHE_SIZE = 5_000;
const CACHE_TTL_MS = 24 * 3600_000;

export function geocoderKind(url: string): 'nominatim' | 'pelias' {
  // Pelias's API lives under /v1 (…/v1/search); Nominatim's /search sits at its root.
  return /\/v1\/?$/.test(new URL(url).pathname) ? 'pelias' : 'nominatim';
}

/** The URL of one search: Nominatim's /search (jsonv2) or Pelias's /v1/search, with the base's own query kept. */
export function searchUrl(base: string, text: string, limit: number): string {
  const url = new URL(base);
  const kind = geocoderKind(base);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/search`;
  if (kind === 'pelias') {
    url.searchParams.set('text', text);
    url.searchParams.set('size', String(limit));
  } else {
    url.searchParams.set('q', text);
    url.searchParams.set('format', 'jsonv2');
    url.searchParams.set('limit', String(limit));
    url.searchParams.set('addressdetails', '0');
  }
  return url.toString();
}

/** Nominatim's place_rank: 30 a building or house number, 26–27 a street, less an area. */
function nominatimQuality(rank: number): GeocodeMatch['quality'] {
  return rank >= 28 ? 'address' : rank >= 26 ? 'street' : 'area';
}

interface NominatimPlace {
  lat?: string;
  lon?: string;
  display_name?: string;
  place_rank?: number;
  importance?: number;
}

interface PeliasFeature {
  geometry?: { coordinates?: [number, number] };
  properties?: { label?: string; layer?: string; confidence?: number; match_type?: string };
}

/** Reads either protocol's answer into matches; anything unreadable is skipped, not trusted. */
export function readAnswer(kind: 'nominatim' | 'pelias', body: unknown): GeocodeMatch[] {
  const out: GeocodeMatch[] = [];
  if (kind === 'nominatim') {
    for (const p of Array.isArray(body) ? (body as NominatimPlace[]) : []) {
      const lat = Number(p.lat);
      const lng = Number(p.lon);
      if (!Number.isFinite(lat) || !Number.isFinite(lng)) continue;
      const quality = nominatimQuality(Number(p.place_rank ?? 0));
      const base = quality === 'address' ? 0.9 : quality === 'street' ? 0.7 : 0.3;
      out.push({ lat, lng, label: String(p.display_name ?? ''), quality, confidence: base });
    }
    return out;
  }
  const features = (body as { features?: PeliasFeature[] } | null)?.features;
  for (const f of Array.isArray(features) ? features : []) {
    const [lng, lat] = f.geometry?.coordinates ?? [];
    if (typeof lat !== 'number' || typeof lng !== 'number') continue;
    const layer = f.properties?.layer ?? '';
    const quality = layer === 'address' || layer === 'venue' ? 'address' : layer === 'street' ? 'street' : 'area';
    const confidence = Math.max(0, Math.min(1, Number(f.properties?.confidence ?? 0.5)));
    out.push({ lat, lng, label: String(f.properties?.label ?? ''), quality, confidence });
  }
  return out;
}

/**
 * One process's way to the geocoder: answers cached, requests paced (RUTA_GEOCODER_INTERVAL_MS; the
 * public Nominatim allows one a second), and a User-Agent naming this installation, as Nominatim's
 * usage policy requires.
 */
class Geocoder {
  private readonly cache = new Map<string, { at: number; matches: GeocodeMatch[] }>();
  private nextAt = 0;

  constructor(
    private readonly config: Config,
    private readonly clock: () => number,
  ) {}

  async search(text: string, limit: number): Promise<GeocodeMatch[]> {
    const url = this.config.geocoderUrl;
    if (!url) throw new Error('geocoder not configured');
    const key = `${limit}\u0000${text.trim().toLowerCase().replace(/\s+/g, ' ')}`;
    const hit = this.cache.get(key);
    if (hit && this.clock() - hit.at < CACHE_TTL_MS) return hit.matches;
    await this.pace();
    const res = await fetch(searchUrl(url, text, limit), {
      headers: {
        'User-Agent': `Ruta/0.1 (last-mile delivery; ${this.config.publicUrl})`,
        Accept: 'application/json',
      },
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    if (!res.ok) throw new Error(`geocoder answered HTTP ${res.status}`);
    const matches = readAnswer(geocoderKind(url), await res.json()).slice(0, limit);
    if (this.cache.size >= CACHE_SIZE) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(key, { at: this.clock(), matches });
    return matches;
  }

  /** Waits for this request's turn: each one RUTA_GEOCODER_INTERVAL_MS after the one before. */
  private async pace(): Promise<void> {
    const interval = this.config.geocoderIntervalMs;
    if (interval === 0) return;
    const now = this.clock();
    const at = Math.max(now, this.nextAt);
    this.nextAt = at + interval;
    if (at > now) await new Promise((resolve) => setTimeout(resolve, at - now));
  }

  close(): void {
    this.cache.clear();
  }
}

const GEOCODER = instanceKey('geocoder', (ctx: AppContext) => new Geocoder(ctx.config, ctx.clock));

export function geocoderConfigured(ctx: AppContext): boolean {
  return ctx.config.geocoderUrl !== null;
}

/** Up to `limit` matches for a free-text address, best first. Throws when the geocoder cannot be reached. */
export function searchAddress(ctx: AppContext, text: string, limit = 5): Promise<GeocodeMatch[]> {
  return ctx.instance.get(GEOCODER).search(text, limit);
}
