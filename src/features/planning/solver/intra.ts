import type { Model } from './model.js';
import type { Routes } from './routes.js';

// Moves within one route for the granular local search (ls.ts), for a job u and its neighbour w in
// the same route: or-opt (a string of 1–3 stops that starts or ends at u moved next to w, kept in
// order or reversed) and 2-opt (the stretch between them reversed so that they become adjacent).
// Long routes (R2, RC2: 15–35 stops) are ordered by these; moves between routes cannot.
//
// A move's distance change is O(1): each route keeps its cumulative distance forwards and backwards
// (they differ when the matrix is asymmetric), so a reversed stretch costs bwd[b] − bwd[a]. Only an
// improving move is tested for feasibility, by replaying just the stretch it reorders, from the
// earliest departure before it (`es`) to the latest start after it (`ls`): the rest of the route is
// unchanged, and its capacity is too.

/** Smallest saving that counts as one (as ls.ts). */
const EPS = 1e-9;
/** Longest string or-opt moves. */
const OR_MAX = 3;

export class IntraRoute {
  /** Per position (v * stride + p): distance from the start to p along the route, and the same driven backwards. */
  private fwd: Float64Array = new Float64Array(0);
  private bwd: Float64Array = new Float64Array(0);
  /** The route's new order after a successful `improve` (seq[0..count)). */
  readonly seq: Int32Array;
  /** The reordered stretch, being tested. */
  private readonly part: Int32Array;

  constructor(private readonly m: Model) {
    this.seq = new Int32Array(m.n + 2);
    this.part = new Int32Array(m.n + 2);
  }

  /** Recomputes route v's cumulative distances (after any change to it). */
  index(s: Routes, v: number): void {
    const m = this.m;
    const S = s.stride;
    if (this.fwd.length !== S * m.vehicles) {
      this.fwd = new Float64Array(S * m.vehicles);
      this.bwd = new Float64Array(S * m.vehicles);
    }
    const b = v * S;
    const n = s.len[v] as number;
    const { dist, size } = m;
    const fwd = this.fwd;
    const bwd = this.bwd;
    fwd[b] = 0;
    bwd[b] = 0;
    for (let p = 1; p <= n + 1; p++) {
      const x = s.loc[b + p - 1] as number;
      const y = s.loc[b + p] as number;
      fwd[b + p] = (fwd[b + p - 1] as number) + (dist[x * size + y] as number);
      bwd[b + p] = (bwd[b + p - 1] as number) + (dist[y * size + x] as number);
    }
  }

  /**
   * Tries the moves that put u next to w (same route); on the first improving feasible one, writes
   * the route's new order to `seq` and returns its length; else -1.
   */
  improve(s: Routes, u: number, w: number): number {
    const v = s.routeOf[u] as number;
    const i = s.posOf[u] as number;
    const p = s.posOf[w] as number;
    const n = s.len[v] as number;
    for (let k = 1; k <= OR_MAX; k++) {
      // String starting at u: after w forwards (w, u, …); before w reversed (…, u, w).
      if (i + k - 1 <= n) {
        if (this.orOpt(s, v, i, i + k - 1, p, false)) return n;
        if (k > 1 && this.orOpt(s, v, i, i + k - 1, p - 1, true)) return n;
      }
      // String ending at u: before w forwards (…, u, w); after w reversed (w, u, …).
      if (i - k + 1 >= 1) {
        if (this.orOpt(s, v, i - k + 1, i, p - 1, false)) return n;
        if (k > 1 && this.orOpt(s, v, i - k + 1, i, p, true)) return n;
      }
    }
    // 2-opt: the earlier of the two followed by the later, the stretch after the earlier reversed.
    const lo = Math.min(i, p);
    const hi = Math.max(i, p);
    if (hi - lo >= 2 && this.twoOpt(s, v, lo, hi)) return n;
    return -1;
  }

  private d(a: number, c: number): number {
    return this.m.dist[a * this.m.size + c] as number;
  }

  /** Positions a..b moved between positions x and x + 1 (x outside a−1..b), reversed or not. */
  private orOpt(s: Routes, v: number, a: number, b: number, x: number, reversed: boolean): boolean {
    if (x >= a - 1 && x <= b) return false;
    const B = v * s.stride;
    const L = s.loc;
    const pa = L[B + a - 1] as number;
    const fa = L[B + a] as number;
    const lb = L[B + b] as number;
    const nb = L[B + b + 1] as number;
    const px = L[B + x] as number;
    const nx = L[B + x + 1] as number;
    let delta = this.d(pa, nb) - this.d(pa, fa) - this.d(lb, nb) - this.d(px, nx);
    if (reversed) {
      delta +=
        this.d(px, lb) +
        this.d(fa, nx) +
        ((this.bwd[B + b] as number) - (this.bwd[B + a] as number)) -
        ((this.fwd[B + b] as number) - (this.fwd[B + a] as number));
    } else delta += this.d(px, fa) + this.d(lb, nx);
    if (delta > -EPS) return false;
    // The stretch that changes: x+1..b when the string moves earlier, a..x when it moves later.
    // No closure for the string's copy: this runs per improving move, and closures allocate.
    const part = this.part;
    let c = 0;
    let from = a;
    if (x < a) {
      from = x + 1;
      c = this.copyString(s, B, a, b, reversed, 0);
      for (let q = x + 1; q < a; q++) part[c++] = s.job[B + q] as number;
    } else {
      for (let q = b + 1; q <= x; q++) part[c++] = s.job[B + q] as number;
      c = this.copyString(s, B, a, b, reversed, c);
    }
    return this.fits(s, v, from, c);
  }

  /** Copies positions a..b (reversed or not) to part[c..]; returns the new end. */
  private copyString(s: Routes, B: number, a: number, b: number, reversed: boolean, c: number): number {
    const part = this.part;
    if (reversed) for (let q = b; q >= a; q--) part[c++] = s.job[B + q] as number;
    else for (let q = a; q <= b; q++) part[c++] = s.job[B + q] as number;
    return c;
  }

  /** Positions lo+1..hi reversed. */
  private twoOpt(s: Routes, v: number, lo: number, hi: number): boolean {
    const B = v * s.stride;
    const L = s.loc;
    const x = L[B + lo] as number;
    const y = L[B + lo + 1] as number;
    const z = L[B + hi] as number;
    const t = L[B + hi + 1] as number;
    const delta =
      this.d(x, z) +
      this.d(y, t) -
      this.d(x, y) -
      this.d(z, t) +
      ((this.bwd[B + hi] as number) - (this.bwd[B + lo + 1] as number)) -
      ((this.fwd[B + hi] as number) - (this.fwd[B + lo + 1] as number));
    if (delta > -EPS) return false;
    const part = this.part;
    let c = 0;
    for (let q = hi; q > lo; q--) part[c++] = s.job[B + q] as number;
    return this.fits(s, v, lo + 1, c);
  }

  /**
   * Whether route v with positions from..from+count−1 replaced by part[0..count) is on time; if so,
   * the whole new order goes to `seq`.
   */
  private fits(s: Routes, v: number, from: number, count: number): boolean {
    const m = this.m;
    const { time, size } = m;
    const B = v * s.stride;
    const part = this.part;
    let at = s.loc[B + from - 1] as number;
    let clock = (s.es[B + from - 1] as number) + (s.sv[B + from - 1] as number);
    for (let q = 0; q < count; q++) {
      const j = part[q] as number;
      const lj = m.loc[j] as number;
      clock += time[at * size + lj] as number;
      if (clock < (m.ready[j] as number)) clock = m.ready[j] as number;
      if (clock > (m.due[j] as number)) return false;
      clock += m.service[j] as number;
      at = lj;
    }
    const next = B + from + count;
    if (clock + (time[at * size + (s.loc[next] as number)] as number) > (s.ls[next] as number)) return false;
    const n = s.len[v] as number;
    const seq = this.seq;
    let c = 0;
    for (let q = 1; q < from; q++) seq[c++] = s.job[B + q] as number;
    for (let q = 0; q < count; q++) seq[c++] = part[q] as number;
    for (let q = from + count; q <= n; q++) seq[c++] = s.job[B + q] as number;
    return true;
  }
}
