import type { Point } from '../../shared/geo.js';
import { startWorker } from '../../shared/worker-thread.js';

/** Travel between every pair of places, row-major: minutes and kilometres. */
export interface Matrices {
  minutes: Float64Array;
  km: Float64Array;
}

/** OSRM answers a table within this long or the plan fails (it would not be better later). */
const OSRM_TIMEOUT_MS = 30_000;

/** What an unreachable pair (null in OSRM's answer) costs, rather than failing the plan. */
const UNREACHABLE = 1e7;

/**
 * Up to this many places, the table is read on the calling thread: about 1.6 MB of JSON, parsed in
 * ~10 ms. Above it, on a thread of its own: 2 000 stops answer ~70 MB of JSON, whose parse and copy
 * hold a thread for about a second, which on the API's thread every other request would wait for
 * (issue #21: the API's p99 < 50 ms beside a 2000-stop plan; BENCHMARKS.md, "A real-size OSRM table").
 */
const INLINE_MAX_PLACES = 300;

interface OsrmAnswer {
  code?: string;
  message?: string;
  durations?: (number | null)[][];
  distances?: (number | null)[][];
}

/** What the table's thread (osrm-worker.ts) is given: the URL, and the shared matrices to fill. */
export interface OsrmJob {
  url: string;
  minutes: SharedArrayBuffer;
  km: SharedArrayBuffer;
}

/**
 * OSRM's table service, `/table/v1/driving/{lng,lat;…}?annotations=duration,distance` (seconds and
 * metres), written into `into` (matrices of `points.length`², in shared memory). Every failure is an
 * error whose message starts with "OSRM" (what the plan's failure and the edit's 503 show); an abort
 * rejects with the signal's reason.
 */
export async function readOsrmTable(
  base: string,
  points: Point[],
  into: Matrices,
  signal?: AbortSignal,
): Promise<void> {
  const coords = points.map((p) => `${p.lng.toFixed(6)},${p.lat.toFixed(6)}`).join(';');
  const url = `${base}/table/v1/driving/${coords}?annotations=duration,distance`;
  if (points.length <= INLINE_MAX_PLACES) return fetchTable(url, into, signal);
  return inThread(
    { url, minutes: into.minutes.buffer as SharedArrayBuffer, km: into.km.buffer as SharedArrayBuffer },
    signal,
  );
}

/** Fetches the table at `url` and writes it into `into`, on the calling thread. */
export async function fetchTable(url: string, into: Matrices, signal?: AbortSignal): Promise<void> {
  const timeout = AbortSignal.timeout(OSRM_TIMEOUT_MS);
  let res: Response;
  let body: OsrmAnswer;
  try {
    res = await fetch(url, { signal: signal ? AbortSignal.any([signal, timeout]) : timeout });
    body = (await res.json().catch(() => ({}))) as OsrmAnswer;
  } catch (err) {
    if (signal?.aborted) throw signal.reason;
    const why = timeout.aborted ? `no answer within ${OSRM_TIMEOUT_MS / 1000} s` : (err as Error).message;
    throw new Error(`OSRM table failed: ${why}`);
  }
  const { durations, distances } = body;
  if (!res.ok || body.code !== 'Ok' || !durations || !distances) {
    throw new Error(`OSRM table failed: HTTP ${res.status} ${body.code ?? ''} ${body.message ?? ''}`.trim());
  }
  const n = Math.round(Math.sqrt(into.minutes.length));
  for (let i = 0; i < n; i++) {
    const secondsRow = durations[i];
    const metresRow = distances[i];
    for (let j = 0; j < n; j++) {
      const s = secondsRow?.[j];
      const m = metresRow?.[j];
      into.minutes[i * n + j] = typeof s === 'number' ? s / 60 : UNREACHABLE;
      into.km[i * n + j] = typeof m === 'number' ? m / 1000 : UNREACHABLE;
    }
  }
}

/** The same on a thread of its own (osrm-worker.ts), which is stopped when `signal` aborts. */
async function inThread(job: OsrmJob, signal?: AbortSignal): Promise<void> {
  signal?.throwIfAborted();
  const worker = startWorker(import.meta.url, 'osrm-worker', { workerData: job });
  let onAbort: (() => void) | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      onAbort = () => reject(signal?.reason);
      signal?.addEventListener('abort', onAbort, { once: true });
      worker.once('message', (m: { error?: string }) =>
        m.error === undefined ? resolve() : reject(new Error(m.error)),
      );
      // A thread that died (out of memory on a huge answer, say) fails the table like a bad answer would.
      worker.once('error', (err) => reject(new Error(`OSRM table failed: ${err.message}`)));
      worker.once('exit', (code) => reject(new Error(`OSRM table failed: its thread exited (code ${code})`)));
    });
  } finally {
    if (onAbort) signal?.removeEventListener('abort', onAbort);
    void worker.terminate();
  }
}
