import { firstAbove, firstAtLeast } from './bisect.js';
import { loadFits, timeFits } from './fits.js';
import type { Model } from './model.js';
import type { Rng } from './rng.js';
import type { Routes } from './routes.js';

// The cells of regret insertion's table (regret.ts): a job's cheapest place in one route, blinks
// included, and the cell updated after a job went into that route, mostly without a scan.

/** Blink rate, as recreate's (greedy.ts): each candidate place is skipped with this probability. */
const BLINK = 0.01;

export class RegretPlaces {
  /** Places until the next blink (geometric, as in greedy.ts), and the last scan's best place. */
  gap = 1;
  place = -1;
  private readonly logKeep = Math.log(1 - BLINK);

  constructor(
    private readonly m: Model,
    private readonly rng: Rng,
  ) {}

  /**
   * Job j's cell `idx` of route v after a job went in at place `at` of v, without a scan. With no
   * negative times, an insertion only makes the route's other places later (es) or tighter (ls),
   * its load heavier and its distance longer: a place that did not fit still does not, and the old
   * cheapest place, if it still fits, is still the cheapest of the old ones (its cost is the same
   * unless it was the edge the new job split). So the cell is the cheaper of that place and the two
   * new ones beside the new job; a full scan only when the old place was the split edge or fits no
   * more. Exact up to blinks, which stay random draws.
   */
  update(s: Routes, j: number, cost: Float64Array, pos: Int32Array, idx: number, v: number, at: number): void {
    if (!this.admits(s, j, v)) {
      cost[idx] = Number.POSITIVE_INFINITY;
      return;
    }
    let best = Number.POSITIVE_INFINITY;
    let place = -1;
    if ((cost[idx] as number) < Number.POSITIVE_INFINITY) {
      const q = pos[idx] as number;
      if (q === at) {
        cost[idx] = this.cheapestIn(s, j, v);
        pos[idx] = this.place;
        return;
      }
      const p = q < at ? q : q + 1;
      best = this.placeDelta(s, j, v, p);
      if (best === Number.POSITIVE_INFINITY) {
        cost[idx] = this.cheapestIn(s, j, v);
        pos[idx] = this.place;
        return;
      }
      place = p;
    }
    for (let p = at; p <= at + 1; p++) {
      if (--this.gap === 0) {
        this.gap = this.nextGap();
        continue;
      }
      const c = this.placeDelta(s, j, v, p);
      if (c < best) {
        best = c;
        place = p;
      }
    }
    cost[idx] = best;
    pos[idx] = place;
  }

  /** Whether route v may take job j at all: its stop count, the job's skills, its capacity. */
  private admits(s: Routes, j: number, v: number): boolean {
    const m = this.m;
    return (
      (s.len[v] as number) < (m.vMaxJobs[v] as number) &&
      (m.allowed === null || m.allowed[j * m.vehicles + v] !== 0) &&
      loadFits(m, s, v, j, -1, -1)
    );
  }

  /**
   * Job j's cost at place p of non-empty route v (between its stops p and p + 1), +∞ when it does
   * not fit there; the route-level tests (`admits`) are the caller's.
   */
  private placeDelta(s: Routes, j: number, v: number, p: number): number {
    const m = this.m;
    const { dist, size } = m;
    const b = v * s.stride + p;
    const lj = m.loc[j] as number;
    const a = s.loc[b] as number;
    const c = s.loc[b + 1] as number;
    const delta = (dist[a * size + lj] as number) + (dist[lj * size + c] as number) - (dist[a * size + c] as number);
    if ((s.rdist[v] as number) + delta > (m.vMaxDist[v] as number) + 1e-9) return Number.POSITIVE_INFINITY;
    return timeFits(m, s, a, (s.es[b] as number) + (s.sv[b] as number), j, b + 1) ? delta : Number.POSITIVE_INFINITY;
  }

  nextGap(): number {
    return 1 + Math.floor(Math.log(1 - this.rng.next()) / this.logKeep);
  }

  /** Job j's cheapest feasible place in route v, blinks included: its cost (+∞ when none), the place in `this.place`. */
  cheapestIn(s: Routes, j: number, v: number): number {
    const m = this.m;
    const n = s.len[v] as number;
    if (!this.admits(s, j, v)) return Number.POSITIVE_INFINITY;
    const { time, dist, size } = m;
    const { es, ls, sv } = s;
    const loc = s.loc;
    const lj = m.loc[j] as number;
    const ready = m.ready[j] as number;
    const due = m.due[j] as number;
    const service = m.service[j] as number;
    const b = v * s.stride;
    // The window of places that can fit (as in greedy.ts); the places before it still count for blinks.
    const end = firstAbove(es, b, 0, n + 1, due);
    let p = firstAtLeast(ls, b + 1, 0, end, ready + service);
    let skip = p;
    while (this.gap <= skip) {
      skip -= this.gap;
      this.gap = this.nextGap();
    }
    this.gap -= skip;
    let best = Number.POSITIVE_INFINITY;
    for (; p < end; p++) {
      if (--this.gap === 0) {
        this.gap = this.nextGap();
        continue;
      }
      const a = loc[b + p] as number;
      const c = loc[b + p + 1] as number;
      const delta =
        (dist[a * size + lj] as number) +
        (dist[lj * size + c] as number) -
        (n === 0 ? 0 : (dist[a * size + c] as number));
      if (delta >= best || (s.rdist[v] as number) + delta > (m.vMaxDist[v] as number) + 1e-9) continue;
      const start = Math.max((es[b + p] as number) + (sv[b + p] as number) + (time[a * size + lj] as number), ready);
      if (start > due) continue;
      if (start + service + (time[lj * size + c] as number) > (ls[b + p + 1] as number)) continue;
      best = delta;
      this.place = p;
    }
    return best;
  }
}
