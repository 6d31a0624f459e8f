import { firstAbove, firstAtLeast } from './bisect.js';
import type { Model } from './model.js';
import type { Rng } from './rng.js';
import type { Routes } from './routes.js';

// Greedy insertion, recreate's main way (sisr.ts): the jobs go back one by one, in the order given,
// each at its cheapest feasible place, skipping each candidate place with a small probability
// ("blinks") for diversity.

/** Blink rate: each candidate place is skipped with this probability. */
const BLINK = 0.01;

export class GreedyInsertion {
  private classGen = 1;
  private readonly classStamp: Int32Array;
  private readonly routeStamp: Int32Array;
  private routeGen = 1;

  /**
   * `granular`: neighbours whose routes are tried first (0: every route, always); `monotone`: no
   * travel or service time below zero, so a route's `es` and `ls` never fall along it.
   */
  constructor(
    private readonly m: Model,
    private readonly rng: Rng,
    private readonly granular: number,
    private readonly monotone: boolean,
  ) {
    this.classStamp = new Int32Array(m.vehicles);
    this.routeStamp = new Int32Array(m.vehicles);
  }

  /**
   * Inserts jobs[0..k), in that order; a job that fits nowhere stays out. `allowNew` lets it open an
   * empty vehicle; `byPlace` (a large instance with short routes, `Sisr.shortRoutes`) tries the
   * places next to a job's nearest jobs first. `touch` is called with every route inserted into.
   */
  run(s: Routes, jobs: Int32Array, k: number, allowNew: boolean, byPlace: boolean, touch: (v: number) => void): void {
    const m = this.m;
    const rng = this.rng;
    const { time, dist, size } = m;
    const K = m.dims;
    const S = s.stride;
    const { es, ls, sv, len, load } = s;
    const sloc = s.loc;
    const { demand, cap, vClass, ready, due, service, allowed, vMaxJobs, vMaxDist } = m;
    const V = m.vehicles;
    // Blinks drawn as gaps between skipped places (geometric), not one draw per place: same law, fewer draws.
    const logKeep = Math.log(1 - BLINK);
    let gap = 1 + Math.floor(Math.log(1 - rng.next()) / logKeep);
    for (let i = 0; i < k; i++) {
      const j = jobs[i] as number;
      const lj = m.loc[j] as number;
      const readyJ = ready[j] as number;
      const dueJ = due[j] as number;
      const svJ = service[j] as number;
      // Served no earlier than its ready time: a place whose next stop must start before that plus
      // the service is late whatever the way there.
      const doneJ = readyJ + svJ;
      let best = Number.POSITIVE_INFINITY;
      let bv = -1;
      let bp = -1;
      // Large instances with short routes: first only the places next to the job's nearest jobs
      // (PLACES_UP_TO, sisr.ts); then, if none fits, every place of every route and an empty
      // vehicle. The check is the loop's below, written out again: as a closure it cost a third of
      // the iterations.
      if (byPlace) {
        const row = j * m.neighbours;
        const rs = ++this.routeGen;
        for (let r = 0; r < 2 * this.granular; r++) {
          const nb = m.adj[row + (r >> 1)] as number;
          const v = s.routeOf[nb] as number;
          if (v < 0) continue;
          // The route's own checks once per job: rs when it passed, -rs when it failed.
          if (this.routeStamp[v] === -rs) continue;
          if (this.routeStamp[v] !== rs) {
            let fits = (len[v] as number) < (vMaxJobs[v] as number) && (allowed === null || allowed[j * V + v] !== 0);
            for (let d = 0; fits && d < K; d++) {
              if ((load[v * K + d] as number) + (demand[j * K + d] as number) > (cap[v * K + d] as number) + 1e-9) {
                fits = false;
              }
            }
            this.routeStamp[v] = fits ? rs : -rs;
            if (!fits) continue;
          }
          // Right before the neighbour, then right after it.
          const p = (s.posOf[nb] as number) - 1 + (r & 1);
          const b = v * S;
          const e = es[b + p] as number;
          if (e > dueJ) continue;
          if (--gap === 0) {
            gap = 1 + Math.floor(Math.log(1 - rng.next()) / logKeep);
            continue;
          }
          const a = sloc[b + p] as number;
          const c = sloc[b + p + 1] as number;
          const delta =
            (dist[a * size + lj] as number) + (dist[lj * size + c] as number) - (dist[a * size + c] as number);
          if (delta >= best || (s.rdist[v] as number) + delta > (vMaxDist[v] as number) + 1e-9) continue;
          const start = Math.max(e + (sv[b + p] as number) + (time[a * size + lj] as number), readyJ);
          if (start > dueJ) continue;
          if (start + svJ + (time[lj * size + c] as number) > (ls[b + p + 1] as number)) continue;
          best = delta;
          bv = v;
          bp = p;
        }
      }
      // Large instances with long routes: first only the routes of the job's nearest jobs and an
      // empty vehicle (left out, R2_10_1 kept 23 routes where the best known has 37: +11 % against
      // +2.5 % at 30 000 iterations); every route when none of those fits.
      let near = this.granular > 0 && !byPlace;
      if (near) {
        const rs = ++this.routeGen;
        const row = j * m.neighbours;
        for (let r = 0; r < this.granular; r++) {
          const v = s.routeOf[m.adj[row + r] as number] as number;
          if (v >= 0) this.routeStamp[v] = rs;
        }
      }
      for (let pass = near ? 0 : 1; pass < 2 && bv < 0; pass++) {
        near = pass === 0;
        const rs = this.routeGen;
        const cs = ++this.classGen;
        for (let v = 0; v < V; v++) {
          const n = len[v] as number;
          if (near && n > 0 && this.routeStamp[v] !== rs) continue;
          if (n >= (vMaxJobs[v] as number) || (allowed !== null && allowed[j * V + v] === 0)) continue;
          if (n === 0) {
            if (!allowNew) continue;
            const c = vClass[v] as number;
            if (this.classStamp[c] === cs) continue;
            this.classStamp[c] = cs;
          }
          let fits = true;
          for (let d = 0; d < K; d++) {
            if ((load[v * K + d] as number) + (demand[j * K + d] as number) > (cap[v * K + d] as number) + 1e-9) {
              fits = false;
              break;
            }
          }
          if (!fits) continue;
          const b = v * S;
          let p = 0;
          let end = n + 1;
          if (this.monotone) {
            // Only a window of places can fit: from the first whose next stop starts late enough
            // (ls ≥ ready + service) to the last that starts before the job's due time (es ≤ due),
            // each found by bisection. The places before the window still count for the blinks,
            // so the same places are tried and the same answers come out as with a full scan.
            end = firstAbove(es, b, 0, n + 1, dueJ);
            p = firstAtLeast(ls, b + 1, 0, end, doneJ);
            let skip = p;
            while (gap <= skip) {
              skip -= gap;
              gap = 1 + Math.floor(Math.log(1 - rng.next()) / logKeep);
            }
            gap -= skip;
          }
          for (; p < end; p++) {
            const e = es[b + p] as number;
            if (e > dueJ) break; // every later position starts even later
            if (--gap === 0) {
              gap = 1 + Math.floor(Math.log(1 - rng.next()) / logKeep);
              continue;
            }
            const a = sloc[b + p] as number;
            const c = sloc[b + p + 1] as number;
            const delta =
              (dist[a * size + lj] as number) +
              (dist[lj * size + c] as number) -
              (n === 0 ? 0 : (dist[a * size + c] as number));
            if (delta >= best || (s.rdist[v] as number) + delta > (vMaxDist[v] as number) + 1e-9) continue;
            const arr = e + (sv[b + p] as number) + (time[a * size + lj] as number);
            const start = Math.max(arr, readyJ);
            if (start > dueJ) continue;
            if (start + svJ + (time[lj * size + c] as number) > (ls[b + p + 1] as number)) continue;
            best = delta;
            bv = v;
            bp = p;
          }
        }
      }
      if (bv >= 0) {
        s.insert(j, bv, bp);
        touch(bv);
      }
    }
  }
}
