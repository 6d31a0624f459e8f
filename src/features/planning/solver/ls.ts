import { CAP_EPS, loadFits, timeFits } from './fits.js';
import { IntraRoute } from './intra.js';
import type { Model } from './model.js';
import type { Routes } from './routes.js';

// A granular local search (Toth & Vigo's granular neighbourhoods, as in Vidal's HGS): each job is
// only ever moved next to one of its nearest jobs. Operators between routes: relocate (a job before
// or after a neighbour), swap (a job with a neighbour) and 2-opt* (two routes exchange their tails so
// that a job is followed by its neighbour); within a route (intra.ts): or-opt of strings of 1–3 and
// 2-opt. A move's distance change is computed first (O(1)); only improving moves are tested for
// feasibility, in O(1) from the routes' earliest (`es`) and latest (`ls`) service starts for moves
// between routes, by replaying the reordered stretch for moves within a route. First improvement,
// from the jobs of the routes the last ruin and recreate changed, then from the routes each round
// changed, until no move improves.
//
// Only the plain path uses it (no breaks, pairs, skills or maximum distance: see `usable`), so the
// constrained path keeps its behaviour; a vehicle's maximum number of stops is respected.

/** Smallest saving that counts as one; feasibility is tested exactly, as recreate tests it. */
const EPS = 1e-9;
/**
 * Neighbours of a job tried per move. 10 finds as much per iteration as 20 (Solomon at 15 000
 * iterations) for about a fifth less time per iteration, so more search within a time limit: Solomon
 * +0.43 % against +0.47 % at 1 s and +0.66 % against +0.72 % at 0.3 s (BENCHMARKS.md, 2026-12-03).
 * On the long routes of 1 000 customers, 6 did worse on R2 with more iterations and 15 no better
 * (BENCHMARKS.md "Six more tries on 1000 customers").
 */
const GRANULAR = 10;

export class LocalSearch {
  /** Routes changed by the last `improve` (the caller syncs them), listed once each. */
  readonly changed: Int32Array;
  nChanged = 0;
  private readonly mark: Int32Array;
  private gen = 1;
  /** Load before each position, per dimension: (v * stride + p) * dims + d. */
  private pre: Float64Array = new Float64Array(0);
  private readonly bufA: Int32Array;
  private readonly bufB: Int32Array;
  private readonly k: number;
  private readonly todo: Int32Array;
  private readonly dirty: Int32Array;
  private readonly dirty2: Int32Array;
  private nextDirty: Int32Array;
  private nNext = 0;
  private readonly roundMark: Int32Array;
  private roundGen = 1;
  private readonly intra: IntraRoute;

  constructor(private readonly m: Model) {
    this.changed = new Int32Array(m.vehicles);
    this.mark = new Int32Array(m.vehicles);
    this.bufA = new Int32Array(m.n + 2);
    this.bufB = new Int32Array(m.n + 2);
    this.k = Math.min(GRANULAR, m.neighbours);
    this.todo = new Int32Array(m.n);
    this.dirty = new Int32Array(m.vehicles);
    this.dirty2 = new Int32Array(m.vehicles);
    this.nextDirty = this.dirty;
    this.roundMark = new Int32Array(m.vehicles);
    this.intra = new IntraRoute(m);
  }

  /** Whether the model is one this search handles exactly (it checks time windows, capacity and stops only). */
  static usable(m: Model): boolean {
    if (m.constrained || m.allowed !== null || m.n < 2) return false;
    for (let v = 0; v < m.vehicles; v++) if (Number.isFinite(m.vMaxDist[v] as number)) return false;
    return true;
  }

  /**
   * Improves `s` in place, starting from the jobs of routes `from[0..count)` (those ruin and
   * recreate changed: the rest was as good before); then from the routes each round changed.
   * Returns how much distance it saved.
   */
  improve(s: Routes, from: Int32Array, count: number): number {
    const m = this.m;
    const S = s.stride;
    if (this.pre.length !== S * m.vehicles * m.dims) this.pre = new Float64Array(S * m.vehicles * m.dims);
    this.gen++;
    this.nChanged = 0;
    for (let v = 0; v < m.vehicles; v++) if ((s.len[v] as number) > 0) this.prefix(s, v);
    const before = s.distance;
    const jobs = this.todo;
    let dirty = this.dirty;
    let nDirty = 0;
    for (let i = 0; i < count; i++) dirty[nDirty++] = from[i] as number;
    for (let round = 0; nDirty > 0 && round < 50; round++) {
      let n = 0;
      for (let i = 0; i < nDirty; i++) {
        const v = dirty[i] as number;
        const b = v * S;
        for (let q = 1; q <= (s.len[v] as number); q++) jobs[n++] = s.job[b + q] as number;
      }
      // This round's changes are the next round's start.
      this.roundGen++;
      dirty = dirty === this.dirty ? this.dirty2 : this.dirty;
      this.nextDirty = dirty;
      this.nNext = 0;
      for (let i = 0; i < n; i++) {
        const u = jobs[i] as number;
        for (let r = 0; r < this.k; r++) {
          if ((s.routeOf[u] as number) < 0) break;
          const w = m.adj[u * m.neighbours + r] as number;
          if ((s.routeOf[w] as number) < 0) continue;
          if (s.routeOf[u] === s.routeOf[w]) this.inRoute(s, u, w);
          else this.relocate(s, u, w) || this.swap(s, u, w) || this.twoOptStar(s, u, w);
        }
      }
      nDirty = this.nNext;
    }
    return before - s.distance;
  }

  private note(v: number): void {
    if (this.mark[v] !== this.gen) {
      this.mark[v] = this.gen;
      this.changed[this.nChanged++] = v;
    }
  }

  private prefix(s: Routes, v: number): void {
    this.intra.index(s, v);
    const K = this.m.dims;
    const b = v * s.stride;
    const n = s.len[v] as number;
    const pre = this.pre;
    for (let d = 0; d < K; d++) pre[b * K + d] = 0;
    for (let p = 1; p <= n + 1; p++) {
      const j = s.job[b + p - 1] as number;
      for (let d = 0; d < K; d++) {
        pre[(b + p) * K + d] =
          (pre[(b + p - 1) * K + d] as number) + (j >= 0 ? (this.m.demand[j * K + d] as number) : 0);
      }
    }
  }

  /** u moved right after w, or right before it (w in another route). */
  private relocate(s: Routes, u: number, w: number): boolean {
    const { dist: D, size: Z } = this.m;
    const m = this.m;
    const S = s.stride;
    const v1 = s.routeOf[u] as number;
    const v2 = s.routeOf[w] as number;
    const b1 = v1 * S;
    const i = s.posOf[u] as number;
    const n1 = s.len[v1] as number;
    const lu = m.loc[u] as number;
    const la = s.loc[b1 + i - 1] as number;
    const lc = s.loc[b1 + i + 1] as number;
    const gain =
      n1 === 1
        ? (s.rdist[v1] as number)
        : (D[la * Z + lu] as number) + (D[lu * Z + lc] as number) - (D[la * Z + lc] as number);
    const b2 = v2 * S;
    const p = s.posOf[w] as number;
    for (let side = 0; side < 2; side++) {
      // Insert between positions j and j + 1 of v2.
      const j = side === 0 ? p : p - 1;
      const x = s.loc[b2 + j] as number;
      const y = s.loc[b2 + j + 1] as number;
      const cost = (D[x * Z + lu] as number) + (D[lu * Z + y] as number) - (D[x * Z + y] as number);
      if (cost - gain > -EPS) continue;
      if ((s.len[v2] as number) + 1 > (m.vMaxJobs[v2] as number) || !loadFits(m, s, v2, u, -1, -1)) continue;
      // Leaving u out of v1 must keep v1 on time (distances need not obey the triangle inequality).
      if (n1 > 1) {
        const leave = (s.es[b1 + i - 1] as number) + (s.sv[b1 + i - 1] as number);
        if (leave + (m.time[la * m.size + lc] as number) > (s.ls[b1 + i + 1] as number)) continue;
      }
      if (!timeFits(m, s, x, (s.es[b2 + j] as number) + (s.sv[b2 + j] as number), u, b2 + j + 1)) continue;
      this.moveBetween(s, v1, i, v2, j);
      return true;
    }
    return false;
  }

  /** Or-opt and 2-opt towards w, in u's own route (intra.ts). */
  private inRoute(s: Routes, u: number, w: number): boolean {
    const v = s.routeOf[u] as number;
    const c = this.intra.improve(s, u, w);
    if (c < 0) return false;
    s.setRoute(v, this.intra.seq, c);
    this.after(s, v);
    return true;
  }

  /** u and w (of another route) trade places. */
  private swap(s: Routes, u: number, w: number): boolean {
    const { dist: D, size: Z } = this.m;
    const m = this.m;
    const S = s.stride;
    const v1 = s.routeOf[u] as number;
    const v2 = s.routeOf[w] as number;
    if (v1 === v2) return false;
    const b1 = v1 * S;
    const b2 = v2 * S;
    const i = s.posOf[u] as number;
    const p = s.posOf[w] as number;
    const lu = m.loc[u] as number;
    const lw = m.loc[w] as number;
    const a1 = s.loc[b1 + i - 1] as number;
    const c1 = s.loc[b1 + i + 1] as number;
    const a2 = s.loc[b2 + p - 1] as number;
    const c2 = s.loc[b2 + p + 1] as number;
    const delta =
      (D[a1 * Z + lw] as number) +
      (D[lw * Z + c1] as number) -
      (D[a1 * Z + lu] as number) -
      (D[lu * Z + c1] as number) +
      (D[a2 * Z + lu] as number) +
      (D[lu * Z + c2] as number) -
      (D[a2 * Z + lw] as number) -
      (D[lw * Z + c2] as number);
    if (delta > -EPS) return false;
    if (!loadFits(m, s, v1, w, u, -1) || !loadFits(m, s, v2, u, w, -1)) return false;
    if (!timeFits(m, s, a1, (s.es[b1 + i - 1] as number) + (s.sv[b1 + i - 1] as number), w, b1 + i + 1)) return false;
    if (!timeFits(m, s, a2, (s.es[b2 + p - 1] as number) + (s.sv[b2 + p - 1] as number), u, b2 + p + 1)) return false;
    const A = this.bufA;
    const B = this.bufB;
    const n1 = s.len[v1] as number;
    const n2 = s.len[v2] as number;
    for (let q = 1; q <= n1; q++) A[q - 1] = q === i ? w : (s.job[b1 + q] as number);
    for (let q = 1; q <= n2; q++) B[q - 1] = q === p ? u : (s.job[b2 + q] as number);
    s.setRoute(v1, A, n1);
    s.setRoute(v2, B, n2);
    this.after(s, v1);
    this.after(s, v2);
    return true;
  }

  /** Tails exchanged so that u is followed by w, or w by u. */
  private twoOptStar(s: Routes, u: number, w: number): boolean {
    const v1 = s.routeOf[u] as number;
    const v2 = s.routeOf[w] as number;
    if (v1 === v2) return false;
    const m = this.m;
    if (m.vEnd[v1] !== m.vEnd[v2] || m.vShiftEnd[v1] !== m.vShiftEnd[v2]) return false;
    const i = s.posOf[u] as number;
    const p = s.posOf[w] as number;
    return this.tails(s, v1, i, v2, p - 1) || this.tails(s, v2, p, v1, i - 1);
  }

  /** v1 keeps positions 0..i and takes v2's jobs after p; v2 keeps 0..p and takes v1's after i. */
  private tails(s: Routes, v1: number, i: number, v2: number, p: number): boolean {
    const { dist: D, size: Z } = this.m;
    const m = this.m;
    const S = s.stride;
    const b1 = v1 * S;
    const b2 = v2 * S;
    const n1 = s.len[v1] as number;
    const n2 = s.len[v2] as number;
    const x1 = s.loc[b1 + i] as number;
    const y1 = s.loc[b1 + i + 1] as number;
    const x2 = s.loc[b2 + p] as number;
    const y2 = s.loc[b2 + p + 1] as number;
    const len1 = i + (n2 - p);
    const len2 = p + (n1 - i);
    let delta =
      (D[x1 * Z + y2] as number) + (D[x2 * Z + y1] as number) - (D[x1 * Z + y1] as number) - (D[x2 * Z + y2] as number);
    // An emptied route drives nothing (not even its start-to-end leg).
    if (len1 === 0) delta -= D[(m.vStart[v1] as number) * Z + (m.vEnd[v1] as number)] as number;
    if (len2 === 0) delta -= D[(m.vStart[v2] as number) * Z + (m.vEnd[v2] as number)] as number;
    if (delta > -EPS) return false;
    if (len1 > (m.vMaxJobs[v1] as number) || len2 > (m.vMaxJobs[v2] as number)) return false;
    const K = m.dims;
    const pre = this.pre;
    for (let d = 0; d < K; d++) {
      const h1 = pre[(b1 + i + 1) * K + d] as number;
      const h2 = pre[(b2 + p + 1) * K + d] as number;
      const t1 = (s.load[v1 * K + d] as number) - h1;
      const t2 = (s.load[v2 * K + d] as number) - h2;
      if (h1 + t2 > (m.cap[v1 * K + d] as number) + CAP_EPS || h2 + t1 > (m.cap[v2 * K + d] as number) + CAP_EPS) {
        return false;
      }
    }
    const leave1 = (s.es[b1 + i] as number) + (s.sv[b1 + i] as number);
    if (leave1 + (m.time[x1 * m.size + y2] as number) > (s.ls[b2 + p + 1] as number)) return false;
    const leave2 = (s.es[b2 + p] as number) + (s.sv[b2 + p] as number);
    if (leave2 + (m.time[x2 * m.size + y1] as number) > (s.ls[b1 + i + 1] as number)) return false;
    const A = this.bufA;
    const B = this.bufB;
    let c = 0;
    for (let q = 1; q <= i; q++) A[c++] = s.job[b1 + q] as number;
    for (let q = p + 1; q <= n2; q++) A[c++] = s.job[b2 + q] as number;
    let e = 0;
    for (let q = 1; q <= p; q++) B[e++] = s.job[b2 + q] as number;
    for (let q = i + 1; q <= n1; q++) B[e++] = s.job[b1 + q] as number;
    s.setRoute(v1, A, c);
    s.setRoute(v2, B, e);
    this.after(s, v1);
    this.after(s, v2);
    return true;
  }

  private moveBetween(s: Routes, v1: number, i: number, v2: number, j: number): void {
    const S = s.stride;
    const A = this.bufA;
    const B = this.bufB;
    const n1 = s.len[v1] as number;
    const n2 = s.len[v2] as number;
    const u = s.job[v1 * S + i] as number;
    let c = 0;
    for (let q = 1; q <= n1; q++) if (q !== i) A[c++] = s.job[v1 * S + q] as number;
    let e = 0;
    if (j === 0) B[e++] = u;
    for (let q = 1; q <= n2; q++) {
      B[e++] = s.job[v2 * S + q] as number;
      if (q === j) B[e++] = u;
    }
    s.setRoute(v1, A, c);
    s.setRoute(v2, B, e);
    this.after(s, v1);
    this.after(s, v2);
  }

  private after(s: Routes, v: number): void {
    this.note(v);
    if (this.roundMark[v] !== this.roundGen) {
      this.roundMark[v] = this.roundGen;
      this.nextDirty[this.nNext++] = v;
    }
    if ((s.len[v] as number) > 0) this.prefix(s, v);
  }
}
