import { loadFits, timeFits } from './fits.js';
import type { Model } from './model.js';
import type { Rng } from './rng.js';
import { Routes } from './routes.js';

// Route minimisation by ejection (after Nagata & Bräysy, "A powerful route minimization heuristic
// for the vehicle routing problem with time windows", 2009), for the plain path: empty one route,
// then put its jobs back one at a time. A job that fits nowhere goes in anyway, in place of up to
// K_MAX jobs of one nearby route, chosen by how rarely those jobs were themselves stuck: every job
// counts how often it found no place, so the hard ones end up placed and the easy ones are moved
// on to look elsewhere. After each such ejection a few random feasible moves between routes shake
// the solution so the same jobs do not bounce between the same places. Without the paper's
// "squeeze" (a penalised local search before ejecting). Used by `min_vehicles` on large instances,
// where SISR's fleet minimisation alone stops short (C1_10_2: 99 routes against 91 with this).
// Not by `min_distance`: the routes it saves cost far more distance than the annealing can win
// back within a minute, whether run before the annealing, in its middle, or as a rare move of it
// (24 instances at 60 s: +0.19 points worse; BENCHMARKS.md, "Route minimisation by ejection").

/** Most jobs ejected for one insertion. */
const K_MAX = 2;
/** Ejected jobs lie within this many places of the insertion (long routes would cost n³ otherwise). */
const WINDOW = 6;
/** Random moves after each ejection. */
const PERTURB = 100;
/** Steps spent on one route before it is put back and another is tried, per job it had. */
const STEPS_PER_JOB = 200;

export class RouteMin {
  /** How often each job found no feasible place (Nagata & Bräysy's p[v]). */
  private readonly stuck: Int32Array;
  private readonly backup: Routes;
  private readonly routeStamp: Int32Array;
  private gen = 0;
  /** Cumulative distance along the route being searched, by position. */
  private readonly cum: Float64Array;
  private bestP = 0;
  private bestD = 0;
  private bv = -1;
  private bp = -1;
  private be1 = -1;
  private be2 = -1;

  constructor(
    private readonly m: Model,
    private readonly rng: Rng,
    private readonly hopeless: Uint8Array,
  ) {
    this.stuck = new Int32Array(m.n);
    this.backup = new Routes(m);
    this.routeStamp = new Int32Array(m.vehicles);
    this.cum = new Float64Array(m.n + 2);
  }

  /**
   * Empties routes of `s` one at a time while `more()` holds. `s` must serve every job it can
   * (only hopeless jobs out) and stays that way: a route whose jobs cannot all be placed again is
   * restored. Returns how many routes it emptied.
   */
  run(s: Routes, more: () => boolean): number {
    let emptied = 0;
    while (s.used > 1) {
      this.backup.copyAll(s);
      const jobs = s.dropShort(this.rng, false);
      let budget = STEPS_PER_JOB * jobs;
      let j = this.nextOut(s);
      for (; j >= 0; j = this.nextOut(s)) {
        if (!more()) {
          s.copyAll(this.backup);
          return emptied;
        }
        if (budget-- === 0) break;
        if (this.insertBest(s, j)) continue;
        this.stuck[j] = (this.stuck[j] as number) + 1;
        if (this.ejectInsert(s, j)) this.perturb(s);
      }
      if (j >= 0) s.copyAll(this.backup);
      else emptied++;
    }
    return emptied;
  }

  /** The most recently ejected job still out (the out list is a stack here), or -1. */
  private nextOut(s: Routes): number {
    for (let i = s.nOut - 1; i >= 0; i--) {
      const j = s.out[i] as number;
      if (this.hopeless[j] === 0) return j;
    }
    return -1;
  }

  /** Whether route v has room for one more job, j. */
  private fits(s: Routes, v: number, j: number): boolean {
    return (s.len[v] as number) < (this.m.vMaxJobs[v] as number) && loadFits(this.m, s, v, j, -1, -1);
  }

  /** Whether j can start right after position p of route v without making anything late. */
  private fitsAfter(s: Routes, v: number, p: number, j: number): boolean {
    const b = v * s.stride + p;
    return timeFits(this.m, s, s.loc[b] as number, (s.es[b] as number) + (s.sv[b] as number), j, b + 1);
  }

  /** Puts j at its cheapest feasible place in a used route; false when there is none. */
  private insertBest(s: Routes, j: number): boolean {
    const m = this.m;
    const { dist, size } = m;
    const lj = m.loc[j] as number;
    let best = Number.POSITIVE_INFINITY;
    let bv = -1;
    let bp = -1;
    for (let v = 0; v < m.vehicles; v++) {
      const n = s.len[v] as number;
      if (n === 0 || !this.fits(s, v, j)) continue;
      const b = v * s.stride;
      for (let p = 0; p <= n; p++) {
        if ((s.es[b + p] as number) > (m.due[j] as number)) break;
        const a = s.loc[b + p] as number;
        const c = s.loc[b + p + 1] as number;
        const delta =
          (dist[a * size + lj] as number) + (dist[lj * size + c] as number) - (dist[a * size + c] as number);
        if (delta < best && this.fitsAfter(s, v, p, j)) {
          best = delta;
          bv = v;
          bp = p;
        }
      }
    }
    if (bv < 0) return false;
    s.insert(j, bv, bp);
    return true;
  }

  /**
   * Puts j into one of its neighbours' routes in place of one or two of its jobs: the ejection
   * whose jobs were stuck least often in total, then the shortest. False when none is feasible.
   */
  private ejectInsert(s: Routes, j: number): boolean {
    const m = this.m;
    this.bestP = Number.POSITIVE_INFINITY;
    this.bestD = Number.POSITIVE_INFINITY;
    this.bv = -1;
    const g = ++this.gen;
    for (let r = 0; r < m.neighbours; r++) {
      const v = s.routeOf[m.adj[j * m.neighbours + r] as number] as number;
      if (v < 0 || this.routeStamp[v] === g) continue;
      this.routeStamp[v] = g;
      this.searchRoute(s, v, j);
    }
    const v = this.bv;
    if (v < 0) return false;
    let p = this.bp;
    // The later job first, so the earlier one keeps its position.
    if (this.be2 > 0) s.removeSpan(v, this.be2, 1);
    s.removeSpan(v, this.be1, 1);
    if (this.be1 <= p) p--;
    if (this.be2 > 0 && this.be2 <= p) p--;
    s.insert(j, v, p);
    return true;
  }

  private searchRoute(s: Routes, v: number, j: number): void {
    const m = this.m;
    const b = v * s.stride;
    const n = s.len[v] as number;
    const cum = this.cum;
    cum[0] = 0;
    for (let q = 1; q <= n + 1; q++) {
      cum[q] =
        (cum[q - 1] as number) + (m.dist[(s.loc[b + q - 1] as number) * m.size + (s.loc[b + q] as number)] as number);
    }
    // Whether j overloads the route: then an ejection must also free enough room.
    const over = !loadFits(m, s, v, j, -1, -1);
    for (let p = 0; p <= n; p++) {
      const lo = Math.max(1, p - WINDOW + 1);
      const hi = Math.min(n, p + WINDOW);
      for (let e1 = lo; e1 <= hi; e1++) {
        if (e1 === p) continue;
        const j1 = s.job[b + e1] as number;
        const p1 = this.stuck[j1] as number;
        if (p1 > this.bestP) continue;
        if (!over || loadFits(m, s, v, j, j1, -1)) this.evaluate(s, v, j, p, e1, -1, p1);
        if (K_MAX < 2) continue;
        for (let e2 = e1 + 1; e2 <= hi; e2++) {
          if (e2 === p) continue;
          const j2 = s.job[b + e2] as number;
          const p2 = p1 + (this.stuck[j2] as number);
          if (p2 > this.bestP) continue;
          if (!over || loadFits(m, s, v, j, j1, j2)) this.evaluate(s, v, j, p, e1, e2, p2);
        }
      }
    }
  }

  /**
   * Route v with the jobs at positions e1 (and e2 > e1, when positive) taken out and j put after
   * position p (neither of them): replays the schedule from the first change until the original
   * route resumes, where its latest starts say whether the rest is still on time. Keeps it as the
   * best ejection when it is feasible and better.
   */
  private evaluate(s: Routes, v: number, j: number, p: number, e1: number, e2: number, pSum: number): void {
    const m = this.m;
    const { time, dist, size } = m;
    const b = v * s.stride;
    const prev = Math.min(p + 1, e1) - 1;
    const end = Math.max(p, e1, e2) + 1;
    let t = s.es[b + prev] as number;
    let a = s.loc[b + prev] as number;
    let sv = s.sv[b + prev] as number;
    let d = 0;
    const lj = m.loc[j] as number;
    // Position prev is where the replay starts (already in t, a, sv): it is only left, not visited.
    for (let q = prev; q <= end; q++) {
      if (q > prev) {
        if (q === e1 || q === e2) continue;
        const lq = s.loc[b + q] as number;
        const arr = t + sv + (time[a * size + lq] as number);
        d += dist[a * size + lq] as number;
        if (q === end) {
          if (arr > (s.ls[b + q] as number)) return;
          break;
        }
        const jq = s.job[b + q] as number;
        const start = Math.max(arr, m.ready[jq] as number);
        if (start > (m.due[jq] as number)) return;
        t = start;
        a = lq;
        sv = s.sv[b + q] as number;
      }
      if (q === p) {
        const sj = Math.max(t + sv + (time[a * size + lj] as number), m.ready[j] as number);
        if (sj > (m.due[j] as number)) return;
        d += dist[a * size + lj] as number;
        t = sj;
        a = lj;
        sv = m.service[j] as number;
      }
    }
    const delta = d - ((this.cum[end] as number) - (this.cum[prev] as number));
    if (pSum < this.bestP || (pSum === this.bestP && delta < this.bestD)) {
      this.bestP = pSum;
      this.bestD = delta;
      this.bv = v;
      this.bp = p;
      this.be1 = e1;
      this.be2 = e2;
    }
  }

  /** Random feasible moves of a job next to one of its near neighbours in another route. */
  private perturb(s: Routes): void {
    const m = this.m;
    const rng = this.rng;
    const near = Math.min(m.neighbours, 10);
    for (let i = 0; i < PERTURB; i++) {
      const u = rng.int(m.n);
      const v = s.routeOf[u] as number;
      if (v < 0) continue;
      const w = m.adj[u * m.neighbours + rng.int(near)] as number;
      const v2 = s.routeOf[w] as number;
      if (v2 < 0 || v2 === v || !this.fits(s, v2, u)) continue;
      const p = (s.posOf[w] as number) - 1 + rng.int(2);
      if (!this.fitsAfter(s, v2, p, u)) continue;
      s.removeSpan(v, s.posOf[u] as number, 1);
      s.insert(u, v2, p);
    }
  }
}
