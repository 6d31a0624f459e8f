import type { Model } from './model.js';
import type { Routes } from './routes.js';

// Moves within one route for the granular local search (ls.ts), for a job u and its neighbour w in
// the same route: or-opt (a string of 1–3 stops that starts or ends at u moved next to w, kept in
// order or reversed) and 2-opt (the stretch between them reversed so that they become adjacent).
// Long routes (R2, RC2: 15–35 stops) are ordered by these; moves between routes cannot.
//
// A move's distance change is O(1): each route keeps its cumulative distance forwards and backwards
// (they differ when the matrix is asymmetric), so a reversed stretch costs bwd[b] − bwd[a]. Only an
// improving move is tested for feasibility (an or-opt first by `mayFit`, the string alone), by
// replaying just the stretch it reorders, from the earliest departure before it (`es`) to the
// latest start after it (`ls`): the rest of the route is unchanged, and its capacity is too.

/** Smallest saving that counts as one (as ls.ts). */
const EPS = 1e-9;
/**
 * The or-opt moves tried for u and w, in order, for strings of 1–3 stops (OR-opt's longest: 3):
 * the string's slot (0–2 start at u, 3–4 end at it; see `strings`), whether it goes after w (1) or
 * before it (0), and whether reversed. Strings starting at u go after w forwards (w, u, …) or
 * before it reversed (…, u, w); strings ending at u before w forwards or after it reversed.
 */
const SLOT = [0, 0, 1, 1, 3, 3, 2, 2, 4, 4];
const SIDE = [1, 0, 1, 0, 0, 1, 1, 0, 0, 1];
const REV = [0, 0, 0, 1, 0, 1, 0, 1, 0, 1];
const MOVES = SLOT.length;

export class IntraRoute {
  /** Per position (v * stride + p): distance from the start to p along the route, and the same driven backwards. */
  private fwd: Float64Array = new Float64Array(0);
  private bwd: Float64Array = new Float64Array(0);
  /** The route's new order after a successful `improve` (seq[0..count)). */
  readonly seq: Int32Array;
  /** Bumped by every `index`: the strings cached for job `cu` hold while `cver` equals it. */
  private ver = 0;
  private cu = -1;
  private cver = -1;
  private readonly sOk = new Uint8Array(5);
  private readonly sA = new Int32Array(5);
  private readonly sB = new Int32Array(5);
  private readonly sFirst = new Int32Array(5);
  private readonly sLast = new Int32Array(5);
  private readonly sGain = new Float64Array(5);
  private readonly sBwd = new Float64Array(5);
  private readonly sFwd = new Float64Array(5);
  /** The replay's place and departure time. */
  private at = 0;
  private clock = 0;

  constructor(private readonly m: Model) {
    this.seq = new Int32Array(m.n + 2);
  }

  /** Recomputes route v's cumulative distances (after any change to it). */
  index(s: Routes, v: number): void {
    const m = this.m;
    const S = s.stride;
    if (this.fwd.length !== S * m.vehicles) {
      this.fwd = new Float64Array(S * m.vehicles);
      this.bwd = new Float64Array(S * m.vehicles);
    }
    this.ver++;
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
    const { dist: D, size: Z } = this.m;
    const v = s.routeOf[u] as number;
    const i = s.posOf[u] as number;
    const p = s.posOf[w] as number;
    const n = s.len[v] as number;
    const B = v * s.stride;
    // u is tried against each of its neighbours in turn: its strings' removal gains are the same
    // for all of them until the route changes.
    if (this.cu !== u || this.cver !== this.ver) this.strings(s, B, u, i, n);
    const L = s.loc;
    const lw = L[B + p] as number;
    const after = D[lw * Z + (L[B + p + 1] as number)] as number;
    const before = D[(L[B + p - 1] as number) * Z + lw] as number;
    // The moves in a fixed order (the loop, not a call per move: most fail on distance).
    for (let t = 0; t < MOVES; t++) {
      const slot = SLOT[t] as number;
      if (this.sOk[slot] === 0) continue;
      const a = this.sA[slot] as number;
      const b = this.sB[slot] as number;
      const side = SIDE[t] === 1;
      const x = side ? p : p - 1;
      if (x >= a - 1 && x <= b) continue;
      const px = L[B + x] as number;
      const nx = L[B + x + 1] as number;
      const fa = this.sFirst[slot] as number;
      const lb = this.sLast[slot] as number;
      let delta = (this.sGain[slot] as number) - (side ? after : before);
      const reversed = REV[t] === 1;
      if (reversed) {
        delta +=
          (D[px * Z + lb] as number) +
          (D[fa * Z + nx] as number) +
          (this.sBwd[slot] as number) -
          (this.sFwd[slot] as number);
      } else delta += (D[px * Z + fa] as number) + (D[lb * Z + nx] as number);
      if (delta <= -EPS && this.mayFit(s, B, a, b, x, reversed) && this.orOpt(s, v, a, b, x, reversed)) return n;
    }
    // 2-opt: the earlier of the two followed by the later, the stretch after the earlier reversed.
    const lo = Math.min(i, p);
    const hi = Math.max(i, p);
    if (hi - lo >= 2 && this.twoOpt(s, v, lo, hi)) return n;
    return -1;
  }

  /**
   * The strings of u's or-opt moves, by slot: 0–2 start at u (1–3 stops), 3–4 end at it (2–3
   * stops). For each, what removing it saves and its length driven backwards and forwards.
   */
  private strings(s: Routes, B: number, u: number, i: number, n: number): void {
    const { dist: D, size: Z } = this.m;
    this.cu = u;
    this.cver = this.ver;
    const L = s.loc;
    for (let slot = 0; slot < 5; slot++) {
      const a = slot < 3 ? i : i - slot + 2;
      const b = slot < 3 ? i + slot : i;
      this.sOk[slot] = a >= 1 && b <= n ? 1 : 0;
      if (this.sOk[slot] === 0) continue;
      this.sA[slot] = a;
      this.sB[slot] = b;
      const pa = L[B + a - 1] as number;
      const fa = L[B + a] as number;
      const lb = L[B + b] as number;
      const nb = L[B + b + 1] as number;
      this.sFirst[slot] = fa;
      this.sLast[slot] = lb;
      this.sGain[slot] = (D[pa * Z + nb] as number) - (D[pa * Z + fa] as number) - (D[lb * Z + nb] as number);
      this.sBwd[slot] = (this.bwd[B + b] as number) - (this.bwd[B + a] as number);
      this.sFwd[slot] = (this.fwd[B + b] as number) - (this.fwd[B + a] as number);
    }
  }

  /**
   * A necessary condition for `orOpt` in at most three steps: the string alone, served after x, must
   * reach the stop after it in time. x is left at its earliest departure when the string moves
   * earlier (the route up to x is unchanged), else no earlier than its ready time plus its service;
   * the stop after the string must start by its latest start when the rest of the route is
   * unchanged, else by its due time. Neither bound needs the triangle inequality, so the search
   * finds exactly what it found without the test. On long routes with windows nearly every move that
   * saves distance is late (R2_10_1: 14 million replays of the stretch for 4 700 moves made); this
   * leaves 22 000, for 5–17 % less time on RC2_10_1 and R2_10_1 (BENCHMARKS.md "A quick time test").
   */
  private mayFit(s: Routes, B: number, a: number, b: number, x: number, reversed: boolean): boolean {
    const m = this.m;
    const later = x > b;
    const jx = s.job[B + x] as number;
    this.at = s.loc[B + x] as number;
    this.clock = later
      ? (m.ready[jx] as number) + (m.service[jx] as number)
      : (s.es[B + x] as number) + (s.sv[B + x] as number);
    if (!this.run(s, B, a, b, reversed)) return false;
    const next = B + x + 1;
    const limit = later ? (s.ls[next] as number) : (m.due[s.job[next] as number] as number);
    return this.clock + (m.time[this.at * m.size + (s.loc[next] as number)] as number) <= limit;
  }

  /** Whether positions a..b moved between positions x and x + 1 (x outside a−1..b), reversed or not, stay on time. */
  private orOpt(s: Routes, v: number, a: number, b: number, x: number, reversed: boolean): boolean {
    const B = v * s.stride;
    // The stretch that changes, replayed in its new order from the route's own arrays: the
    // string then x+1..a−1 when it moves earlier, b+1..x then the string when it moves later.
    if (x < a) {
      this.begin(s, B + x);
      if (!this.run(s, B, a, b, reversed) || !this.run(s, B, x + 1, a - 1, false) || !this.reach(s, B + b + 1)) {
        return false;
      }
      let c = this.copy(s, B, 1, x, 0);
      c = this.copy(s, B, a, b, c, reversed);
      c = this.copy(s, B, x + 1, a - 1, c);
      this.copy(s, B, b + 1, s.len[v] as number, c);
    } else {
      this.begin(s, B + a - 1);
      if (!this.run(s, B, b + 1, x, false) || !this.run(s, B, a, b, reversed) || !this.reach(s, B + x + 1)) {
        return false;
      }
      let c = this.copy(s, B, 1, a - 1, 0);
      c = this.copy(s, B, b + 1, x, c);
      c = this.copy(s, B, a, b, c, reversed);
      this.copy(s, B, x + 1, s.len[v] as number, c);
    }
    return true;
  }

  /** Positions lo+1..hi reversed. */
  private twoOpt(s: Routes, v: number, lo: number, hi: number): boolean {
    const { dist: D, size: Z } = this.m;
    const B = v * s.stride;
    const L = s.loc;
    const x = L[B + lo] as number;
    const y = L[B + lo + 1] as number;
    const z = L[B + hi] as number;
    const t = L[B + hi + 1] as number;
    const delta =
      (D[x * Z + z] as number) +
      (D[y * Z + t] as number) -
      (D[x * Z + y] as number) -
      (D[z * Z + t] as number) +
      ((this.bwd[B + hi] as number) - (this.bwd[B + lo + 1] as number)) -
      ((this.fwd[B + hi] as number) - (this.fwd[B + lo + 1] as number));
    if (delta > -EPS) return false;
    this.begin(s, B + lo);
    if (!this.run(s, B, lo + 1, hi, true) || !this.reach(s, B + hi + 1)) return false;
    let c = this.copy(s, B, 1, lo, 0);
    c = this.copy(s, B, lo + 1, hi, c, true);
    this.copy(s, B, hi + 1, s.len[v] as number, c);
    return true;
  }

  /** Starts a replay at cell `at` of the routes: its location and its earliest departure. */
  private begin(s: Routes, at: number): void {
    this.at = s.loc[at] as number;
    this.clock = (s.es[at] as number) + (s.sv[at] as number);
  }

  /** Continues the replay through positions lo..hi (reversed: hi..lo); false once a job is late. */
  private run(s: Routes, B: number, lo: number, hi: number, reversed: boolean): boolean {
    const m = this.m;
    const { time, size, ready, due, service } = m;
    let at = this.at;
    let clock = this.clock;
    for (let r = 0; r <= hi - lo; r++) {
      const j = s.job[B + (reversed ? hi - r : lo + r)] as number;
      const lj = m.loc[j] as number;
      clock += time[at * size + lj] as number;
      if (clock < (ready[j] as number)) clock = ready[j] as number;
      if (clock > (due[j] as number)) return false;
      clock += service[j] as number;
      at = lj;
    }
    this.at = at;
    this.clock = clock;
    return true;
  }

  /** Whether the replay reaches cell `next` (the first unchanged stop after the stretch) by its latest start. */
  private reach(s: Routes, next: number): boolean {
    const m = this.m;
    return this.clock + (m.time[this.at * m.size + (s.loc[next] as number)] as number) <= (s.ls[next] as number);
  }

  /** Copies positions lo..hi (reversed or not) of the route at B to seq[c..]; returns the new end. */
  private copy(s: Routes, B: number, lo: number, hi: number, c: number, reversed = false): number {
    const seq = this.seq;
    if (reversed) for (let q = hi; q >= lo; q--) seq[c++] = s.job[B + q] as number;
    else for (let q = lo; q <= hi; q++) seq[c++] = s.job[B + q] as number;
    return c;
  }
}
