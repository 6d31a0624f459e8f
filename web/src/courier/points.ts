/**
 * The phone's location points, kept in IndexedDB until the server confirms them. Since issue 18
 * (#11) a 2xx on POST /v1/couriers/{id}/locations means the points are stored, so that is the only
 * answer that lets the phone forget them: a point sent into a timeout, a 5xx or a dead network
 * stays, and is sent again with the next batch.
 */
import { run, tx } from './idb';
import type { Answer } from './queue';

/** A fix as the API takes it (one point of POST /v1/couriers/{id}/locations). */
export interface Fix {
  lat: number;
  lng: number;
  recorded_at: string;
  accuracy_m?: number;
  speed_mps?: number;
  heading?: number;
}

interface Stored extends Fix {
  seq?: number;
  courierId: string;
}

/** How the points reach the API (client.ts); each call throws when the network fails. */
export interface LocationTransport {
  batch(courierId: string, points: Fix[]): Promise<Answer>;
  single(courierId: string, point: Fix): Promise<Answer>;
}

/** Points kept while offline; past this the oldest go (a day offline at one fix every 20 s). */
const KEEP = 5000;
/** The API's largest batch. */
const BATCH = 100;

/** Keeps a fix (dropping the oldest beyond KEEP), in one transaction. */
export function keepPoint(courierId: string, fix: Fix): Promise<void> {
  return run('points', 'readwrite', (s) => {
    s.add({ ...fix, courierId } satisfies Stored);
    const count = s.count();
    count.onsuccess = () => {
      let extra = count.result - KEEP;
      if (extra <= 0) return;
      const cursor = s.openCursor();
      cursor.onsuccess = () => {
        const c = cursor.result;
        if (!c || extra-- <= 0) return;
        c.delete();
        c.continue();
      };
    };
    return () => undefined;
  });
}

/** The oldest `limit` points of `courierId`, oldest first; points another courier left here are dropped. */
function oldest(courierId: string, limit: number): Promise<Stored[]> {
  return run('points', 'readwrite', (s) => {
    const out: Stored[] = [];
    const cursor = s.openCursor();
    cursor.onsuccess = () => {
      const c = cursor.result;
      if (!c || out.length >= limit) return;
      const p = c.value as Stored;
      if (p.courierId === courierId) out.push(p);
      else c.delete();
      c.continue();
    };
    return () => out;
  });
}

const drop = (seqs: number[]) =>
  run('points', 'readwrite', (s) => {
    for (const seq of seqs) s.delete(seq);
    return () => undefined;
  });

export const clearPoints = () => tx('points', 'readwrite', (s) => s.clear());

const strip = ({ seq: _seq, courierId: _courier, ...fix }: Stored): Fix => fix;

/** Whether a server without the batch route was met (it then gets the newest point on the single route). */
const routes = { batch: true };
let sending: Promise<void> | null = null;

/**
 * Sends the kept points, oldest first, 100 at a time, until none are left or the server cannot take
 * them now. One send at a time: two would post the same points twice.
 */
export function sendPoints(api: LocationTransport, courierId: string): Promise<void> {
  sending ??= sendAll(api, courierId)
    .catch(() => {})
    .finally(() => {
      sending = null;
    });
  return sending;
}

async function sendAll(api: LocationTransport, courierId: string): Promise<void> {
  // Bounded, so that a server refusing point after point cannot keep the phone busy.
  for (let round = 0; round < 200; round++) {
    const points = await oldest(courierId, BATCH);
    if (points.length === 0) return;
    const seqs = points.map((p) => p.seq!);
    let res: Answer | null = null;
    if (routes.batch) {
      res = await api.batch(courierId, points.map(strip));
      if (res.status === 404 || res.status === 405) routes.batch = false;
    }
    if (!routes.batch) res = await api.single(courierId, strip(points[points.length - 1]!));
    if (!res) return;
    // Not now (server trouble, rate limit, signed out): kept for the next round.
    if (res.status >= 500 || res.status === 429 || res.status === 401) return;
    const named = routes.batch && res.status === 422 ? pointNamed(res.json) : undefined;
    // One point refused (a fix from a wrong clock): it goes, the others are sent again. Any other
    // answer is final for the whole batch: stored (2xx), or refused for good.
    await drop(named !== undefined && named < seqs.length ? [seqs[named]!] : seqs);
  }
}

/** The index of the point a 422 names (`points[3].recorded_at` → 3), if it names one. */
function pointNamed(json: unknown): number | undefined {
  const param = (json as { error?: { param?: string } } | null)?.error?.param;
  const m = param ? /^points\[(\d+)\]/.exec(param) : null;
  return m ? Number(m[1]) : undefined;
}
