import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Config } from '../../shared/config.js';
import { haversineKm, type Point, ROAD_FACTOR } from '../../shared/geo.js';
import { type Matrices, readOsrmTable } from './osrm.js';

/**
 * The matrices live in shared memory: the solver's worker thread reads them where they are instead
 * of a copy (2 × 32 MB for 2000 stops), so a plan in flight holds them once.
 */
const matrix = (n: number) => new Float64Array(new SharedArrayBuffer(n * n * Float64Array.BYTES_PER_ELEMENT));

/** Pairs computed between two turns of the event loop: ~4 ms of haversine on this machine's cores. */
const PAIRS_PER_TURN = 50_000;

/**
 * Haversine × 1.3 at the configured speed (DESIGN §10), or OSRM's `table` when RUTA_OSRM_URL is set.
 * The haversine matrices are filled on the API's thread, which also answers requests: 2 000 stops are
 * 4 million pairs (~350 ms in one go, measured by `npm run bench:plans`: a request arriving then
 * waited for all of it), so the fill gives the event loop a turn every PAIRS_PER_TURN pairs.
 */
export async function travelMatrices(config: Config, points: Point[], signal?: AbortSignal): Promise<Matrices> {
  const n = points.length;
  const minutes = matrix(n);
  const km = matrix(n);
  if (config.osrmUrl) {
    await readOsrmTable(config.osrmUrl, points, { minutes, km }, signal);
    return { minutes, km };
  }
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
