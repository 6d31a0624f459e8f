import type { Model } from './model.js';
import type { Routes } from './routes.js';

// Insertion under breaks and pickup-and-delivery pairs. The O(1) tests of the plain path (earliest and
// latest starts computed without breaks) stay as necessary conditions: a break only delays a route, so
// a place they reject is infeasible here too. What passes them, and is cheaper than the best place so
// far, is confirmed by timing the whole route with its break (O(route length)). Only problems with a
// break or a pair come here: the plain VRPTW path keeps its speed.

const EPS = 1e-9;
/** What `schedule` answers for a route that cannot be timed within its windows and shift. */
export const INFEASIBLE = -2;
/** What `schedule` answers for a feasible route that takes no break. */
export const NO_BREAK = -1;

/**
 * Times `seq[0..count)` on vehicle v and answers where its break goes (after how many jobs), NO_BREAK
 * or INFEASIBLE. Exact for breaks taken at the start or after a stop's service: the earliest time
 * each stop can be left having taken the break is the earlier of carrying on from the previous stop's
 * (break taken) and taking it now, which is all a route with waiting allowed needs to know.
 */
export function schedule(m: Model, v: number, seq: Int32Array, count: number): number {
  const { time, size } = m;
  const E = m.vBreak[v * 3] as number;
  const L = m.vBreak[v * 3 + 1] as number;
  const D = m.vBreak[v * 3 + 2] as number;
  const hasBreak = !Number.isNaN(E);
  const take = (t: number) => {
    const b = Math.max(t, E);
    return b <= L + EPS ? b + D : Number.POSITIVE_INFINITY;
  };
  let t0 = m.vShiftStart[v] as number;
  let t1 = hasBreak ? take(t0) : Number.POSITIVE_INFINITY;
  let after = 0;
  let at = m.vStart[v] as number;
  for (let k = 0; k < count; k++) {
    const j = seq[k] as number;
    const lj = m.loc[j] as number;
    const tt = time[at * size + lj] as number;
    const ready = m.ready[j] as number;
    const due = m.due[j] as number;
    const s0 = Math.max(t0 + tt, ready);
    t0 = s0 > due + EPS ? Number.POSITIVE_INFINITY : s0 + (m.service[j] as number);
    const s1 = Math.max(t1 + tt, ready);
    t1 = s1 > due + EPS ? Number.POSITIVE_INFINITY : s1 + (m.service[j] as number);
    at = lj;
    if (hasBreak && t0 < Number.POSITIVE_INFINITY) {
      const tb = take(t0);
      if (tb < t1) {
        t1 = tb;
        after = k + 1;
      }
    }
  }
  const back = time[at * size + (m.vEnd[v] as number)] as number;
  const limit = (m.vShiftEnd[v] as number) + EPS;
  const end0 = t0 + back;
  if (!hasBreak) return end0 <= limit ? NO_BREAK : INFEASIBLE;
  // A route over before the break could start needs none.
  if (end0 <= limit && end0 <= E + EPS) return NO_BREAK;
  return t1 + back <= limit ? after : INFEASIBLE;
}

export class Constrained {
  private readonly seq: Int32Array;

  constructor(private readonly m: Model) {
    this.seq = new Int32Array(m.n + 2);
  }

  /** Route v's jobs with `j` after position p, and `q` (if ≥ 0) after position p2 ≥ p; then timed. */
  private fits(s: Routes, v: number, j: number, p: number, q: number, p2: number): boolean {
    const b = v * s.stride;
    const n = s.len[v] as number;
    const seq = this.seq;
    let k = 0;
    if (p === 0) {
      seq[k++] = j;
      if (q >= 0 && p2 === 0) seq[k++] = q;
    }
    for (let i = 1; i <= n; i++) {
      seq[k++] = s.job[b + i] as number;
      if (i === p) {
        seq[k++] = j;
        if (q >= 0 && p2 === p) seq[k++] = q;
      } else if (q >= 0 && i === p2) seq[k++] = q;
    }
    return schedule(this.m, v, seq, k) !== INFEASIBLE;
  }

  /**
   * Puts job j (with its delivery, when j is a pickup) at its cheapest feasible place and answers the
   * route, or -1. `tryVehicle` says whether a vehicle is worth trying (capacity, skills, empty-class rule).
   */
  insert(s: Routes, j: number, tryVehicle: (v: number) => boolean): number {
    const m = this.m;
    const { time, dist, size } = m;
    const q = m.isPickup[j] === 1 ? (m.partner[j] as number) : -1;
    const lj = m.loc[j] as number;
    const lq = q >= 0 ? (m.loc[q] as number) : -1;
    const extra = q >= 0 ? 2 : 1;
    let best = Number.POSITIVE_INFINITY;
    let bv = -1;
    let bp = -1;
    let bp2 = -1;
    for (let v = 0; v < m.vehicles; v++) {
      const n = s.len[v] as number;
      if (n + extra > (m.vMaxJobs[v] as number) || !tryVehicle(v)) continue;
      const b = v * s.stride;
      const room = (m.vMaxDist[v] as number) - (s.rdist[v] as number) + EPS;
      for (let p = 0; p <= n; p++) {
        const e = s.es[b + p] as number;
        if (e > (m.due[j] as number)) break;
        const a = s.loc[b + p] as number;
        const c = s.loc[b + p + 1] as number;
        // An empty route counts 0 (routes.ts): into it, the whole way.
        const ac = n === 0 ? 0 : (dist[a * size + c] as number);
        const d1 = (dist[a * size + lj] as number) + (dist[lj * size + c] as number) - ac;
        if (d1 >= best && q < 0) continue;
        const start = Math.max(e + (s.sv[b + p] as number) + (time[a * size + lj] as number), m.ready[j] as number);
        if (start > (m.due[j] as number)) continue;
        if (q < 0) {
          if (start + (m.service[j] as number) + (time[lj * size + c] as number) > (s.ls[b + p + 1] as number))
            continue;
          if (d1 > room || !this.fits(s, v, j, p, -1, -1)) continue;
          best = d1;
          bv = v;
          bp = p;
          continue;
        }
        for (let p2 = p; p2 <= n; p2++) {
          const x = s.loc[b + p2] as number;
          const y = s.loc[b + p2 + 1] as number;
          const delta =
            p2 === p
              ? (dist[a * size + lj] as number) +
                (dist[lj * size + lq] as number) +
                (dist[lq * size + c] as number) -
                ac
              : d1 + (dist[x * size + lq] as number) + (dist[lq * size + y] as number) - (dist[x * size + y] as number);
          if (delta >= best || delta > room) continue;
          if (p2 > p && (s.es[b + p2] as number) > (m.due[q] as number)) break;
          if (!this.fits(s, v, j, p, q, p2)) continue;
          best = delta;
          bv = v;
          bp = p;
          bp2 = p2;
        }
      }
    }
    if (bv < 0) return -1;
    s.insert(j, bv, bp);
    if (q >= 0) s.insert(q, bv, bp2 + 1);
    return bv;
  }

  /** After a ruin: a pair is never split, so the partner of every job taken out comes out too. */
  unpair(s: Routes, touch: (v: number) => void): void {
    for (let i = 0; i < s.nOut; i++) {
      const other = this.m.partner[s.out[i] as number] as number;
      if (other < 0) continue;
      const v = s.routeOf[other] as number;
      if (v < 0) continue;
      s.removeSpan(v, s.posOf[other] as number, 1);
      touch(v);
    }
  }
}
