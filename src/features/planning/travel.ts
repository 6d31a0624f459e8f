import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Config } from '../../shared/config.js';
import { haversineKm, type Point, ROAD_FACTOR } from '../../shared/geo.js';

/** Travel between every pair of places, row-major: minutes and kilometres. */
export interface Matrices {
  minutes: Float64Array;
  km: Float64Array;
}

/**
 * The matrices live in shared memory: the solver's worker thread reads them where they are instead
 * of a copy (2 × 32 MB for 2000 stops), so a plan in flight holds them once.
 */
const matrix = (n: number) => new Float64Array(new SharedArrayBuffer(n * n * Float64Array.BYTES_PER_ELEMENT));

/** OSRM answers a table within this long or the plan fails (it would not be better later). */
const OSRM_TIMEOUT_MS = 30_000;

/** Pairs computed between two turns of the event loop: ~4 ms of haversine on this machine's cores. */
const PAIRS_PER_TURN = 50_000;

/**
 * Haversine × 1.3 at the configured speed (DESIGN §10), or OSRM's `table` when RUTA_OSRM_URL is set.
 * The haversine matrices are filled on the API's thread, which also answers requests: 2 000 stops are
 * 4 million pairs (~350 ms in one go, measured by `npm run bench:plans`: a request arriving then
 * waited for all of it), so the fill gives the event loop a turn every PAIRS_PER_TURN pairs.
 */
export async function travelMatrices(config: Config, points: Point[], signal?: AbortSignal): Promise<Matrices> {
  if (config.osrmUrl) return osrmTable(config.osrmUrl, points, signal);
  const n = points.length;
  const minutes = matrix(n);
  const km = matrix(n);
  let sinceTurn = 0;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      if (i === j) continue;
      const d = haversineKm(points[i] as Point, points[j] as Point) * ROAD_FACTOR;
      km[i * n + j] = d;
      minutes[i * n + j] = (d / config.courierSpeedKmh) * 60;
    }
    sinceTurn += n;
    if (sinceTurn >= PAIRS_PER_TURN) {
      sinceTurn = 0;
      await nextTurn();
      signal?.throwIfAborted();
    }
  }
  return { minutes, km };
}

interface OsrmTable {
  code?: string;
  message?: string;
  durations?: (number | null)[][];
  distances?: (number | null)[][];
}

/**
 * OSRM's table service: `/table/v1/driving/{lng,lat;…}?annotations=duration,distance` answers
 * seconds and metres. An unreachable pair (null) gets a prohibitive cost rather than failing the plan.
 */
async function osrmTable(base: string, points: Point[], signal?: AbortSignal): Promise<Matrices> {
  const coords = points.map((p) => `${p.lng.toFixed(6)},${p.lat.toFixed(6)}`).join(';');
  const url = `${base}/table/v1/driving/${coords}?annotations=duration,distance`;
  const timeout = AbortSignal.timeout(OSRM_TIMEOUT_MS);
  const res = await fetch(url, { signal: signal ? AbortSignal.any([signal, timeout]) : timeout });
  const body = (await res.json().catch(() => ({}))) as OsrmTable;
  if (!res.ok || body.code !== 'Ok' || !body.durations || !body.distances) {
    throw new Error(`OSRM table failed: HTTP ${res.status} ${body.code ?? ''} ${body.message ?? ''}`.trim());
  }
  const n = points.length;
  const minutes = matrix(n);
  const km = matrix(n);
  const UNREACHABLE = 1e7;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      const s = body.durations[i]?.[j];
      const m = body.distances[i]?.[j];
      minutes[i * n + j] = typeof s === 'number' ? s / 60 : UNREACHABLE;
      km[i * n + j] = typeof m === 'number' ? m / 1000 : UNREACHABLE;
    }
  }
  return { minutes, km };
}
