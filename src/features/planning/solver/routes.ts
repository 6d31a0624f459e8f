import type { Model } from './model.js';
import type { Rng } from './rng.js';

// One solution as flat typed arrays. Route v occupies positions [v*stride, v*stride + len[v] + 2):
// position 0 is the vehicle's start, then its jobs, then its end. For each position we keep the
// earliest service start (`es`, forward pass) and the latest service start that keeps the rest of
// the route feasible (`ls`, backward pass), which makes an insertion's time-window test O(1).

export class Routes {
  readonly stride: number;
  readonly loc: Int32Array;
  readonly job: Int32Array;
  readonly sv: Float64Array;
  readonly es: Float64Array;
  readonly ls: Float64Array;
  readonly len: Int32Array;
  readonly load: Float64Array;
  readonly rdist: Float64Array;
  /** Route of each job, or -1 when unassigned; and its position in that route. */
  readonly routeOf: Int32Array;
  readonly posOf: Int32Array;
  /** Unassigned jobs (unordered) and their count. */
  readonly out: Int32Array;
  nOut = 0;
  distance = 0;
  penalty = 0;
  used = 0;

  constructor(readonly m: Model) {
    this.stride = m.n + 2;
    const cells = m.vehicles * this.stride;
    this.loc = new Int32Array(cells);
    this.job = new Int32Array(cells).fill(-1);
    this.sv = new Float64Array(cells);
    this.es = new Float64Array(cells);
    this.ls = new Float64Array(cells);
    this.len = new Int32Array(m.vehicles);
    this.load = new Float64Array(m.vehicles * m.dims);
    this.rdist = new Float64Array(m.vehicles);
    this.routeOf = new Int32Array(m.n).fill(-1);
    this.posOf = new Int32Array(m.n);
    this.out = new Int32Array(m.n);
    for (let v = 0; v < m.vehicles; v++) {
      const b = v * this.stride;
      this.loc[b] = m.vStart[v] as number;
      this.loc[b + 1] = m.vEnd[v] as number;
      this.refresh(v);
      // An unused vehicle drives nothing (its start-to-end leg counts only once it has a job).
      this.distance -= this.rdist[v] as number;
      this.rdist[v] = 0;
    }
    for (let j = 0; j < m.n; j++) this.out[this.nOut++] = j;
    this.penalty = m.penalty.reduce((a, b) => a + b, 0);
  }

  /** Recomputes the whole schedule, load and distance of route v from its `loc`/`job`/`sv` arrays. */
  refresh(v: number): void {
    const m = this.m;
    const b = v * this.stride;
    const n = this.len[v] as number;
    this.es[b] = m.vShiftStart[v] as number;
    this.ls[b + n + 1] = m.vShiftEnd[v] as number;
    this.forward(v, 1, true);
    this.backward(v, n, true);
    let d = 0;
    for (let p = 0; p <= n; p++)
      d += m.dist[(this.loc[b + p] as number) * m.size + (this.loc[b + p + 1] as number)] as number;
    this.distance += d - (this.rdist[v] as number);
    this.rdist[v] = d;
    const K = m.dims;
    for (let k = 0; k < K; k++) {
      let s = 0;
      for (let p = 1; p <= n; p++) s += m.demand[(this.job[b + p] as number) * K + k] as number;
      this.load[v * K + k] = s;
    }
  }

  /** Earliest starts from position `from` on; stops early once a start is what it was (the rest follows). */
  private forward(v: number, from: number, all: boolean): void {
    const m = this.m;
    const { time, size } = m;
    const b = v * this.stride;
    const n = this.len[v] as number;
    const es = this.es;
    for (let p = from; p <= n + 1; p++) {
      const a = this.loc[b + p - 1] as number;
      const arr =
        (es[b + p - 1] as number) +
        (this.sv[b + p - 1] as number) +
        (time[a * size + (this.loc[b + p] as number)] as number);
      const j = this.job[b + p] as number;
      const e = j >= 0 && arr < (m.ready[j] as number) ? (m.ready[j] as number) : arr;
      if (!all && p > from && e === es[b + p]) return;
      es[b + p] = e;
    }
  }

  /** Latest starts from position `from` down to the start; stops early the same way. */
  private backward(v: number, from: number, all: boolean): void {
    const m = this.m;
    const { time, size } = m;
    const b = v * this.stride;
    const ls = this.ls;
    for (let p = from; p >= 0; p--) {
      const a = this.loc[b + p] as number;
      const late =
        (ls[b + p + 1] as number) -
        (time[a * size + (this.loc[b + p + 1] as number)] as number) -
        (this.sv[b + p] as number);
      const j = this.job[b + p] as number;
      const l = j >= 0 && (m.due[j] as number) < late ? (m.due[j] as number) : late;
      if (!all && p < from && l === ls[b + p]) return;
      ls[b + p] = l;
    }
  }

  private shift(b: number, to: number, from: number, end: number): void {
    this.loc.copyWithin(b + to, b + from, b + end);
    this.job.copyWithin(b + to, b + from, b + end);
    this.sv.copyWithin(b + to, b + from, b + end);
    this.es.copyWithin(b + to, b + from, b + end);
    this.ls.copyWithin(b + to, b + from, b + end);
  }

  private positions(v: number, from: number): void {
    const b = v * this.stride;
    const n = this.len[v] as number;
    for (let p = from; p <= n; p++) {
      const j = this.job[b + p] as number;
      this.routeOf[j] = v;
      this.posOf[j] = p;
    }
  }

  /** Puts job j right after position p of route v (the caller has checked feasibility). */
  insert(j: number, v: number, p: number): void {
    const m = this.m;
    const b = v * this.stride;
    const n = this.len[v] as number;
    if (n === 0) this.used++;
    this.shift(b, p + 2, p + 1, n + 2);
    const lj = m.loc[j] as number;
    const a = this.loc[b + p] as number;
    const c = this.loc[b + p + 2] as number;
    // Into an empty route: the whole start–job–end way (an empty route counts 0, not its start-to-end leg).
    const d =
      (m.dist[a * m.size + lj] as number) +
      (m.dist[lj * m.size + c] as number) -
      (n === 0 ? 0 : (m.dist[a * m.size + c] as number));
    this.rdist[v] = (this.rdist[v] as number) + d;
    this.distance += d;
    this.loc[b + p + 1] = lj;
    this.job[b + p + 1] = j;
    this.sv[b + p + 1] = m.service[j] as number;
    this.len[v] = n + 1;
    const K = m.dims;
    for (let k = 0; k < K; k++)
      this.load[v * K + k] = (this.load[v * K + k] as number) + (m.demand[j * K + k] as number);
    this.takeOut(j);
    this.forward(v, p + 1, false);
    this.backward(v, p + 1, false);
    this.positions(v, p + 1);
  }

  private takeOut(j: number): void {
    for (let i = 0; i < this.nOut; i++) {
      if (this.out[i] === j) {
        this.out[i] = this.out[--this.nOut] as number;
        this.penalty -= this.m.penalty[j] as number;
        return;
      }
    }
  }

  /** Removes `count` consecutive jobs starting at position `from` of route v. */
  removeSpan(v: number, from: number, count: number): void {
    const m = this.m;
    const b = v * this.stride;
    const n = this.len[v] as number;
    const K = m.dims;
    let d = -(m.dist[(this.loc[b + from - 1] as number) * m.size + (this.loc[b + from + count] as number)] as number);
    for (let p = from - 1; p < from + count; p++) {
      d += m.dist[(this.loc[b + p] as number) * m.size + (this.loc[b + p + 1] as number)] as number;
    }
    for (let p = from; p < from + count; p++) {
      const j = this.job[b + p] as number;
      this.routeOf[j] = -1;
      this.out[this.nOut++] = j;
      this.penalty += m.penalty[j] as number;
      for (let k = 0; k < K; k++)
        this.load[v * K + k] = (this.load[v * K + k] as number) - (m.demand[j * K + k] as number);
    }
    this.rdist[v] = (this.rdist[v] as number) - d;
    this.distance -= d;
    this.shift(b, from, from + count, n + 2);
    this.len[v] = n - count;
    if (n - count === 0) {
      this.used--;
      // Exact zeros for an empty route, so rounding never accumulates across reuses.
      this.distance -= this.rdist[v] as number;
      this.rdist[v] = 0;
      for (let k = 0; k < K; k++) this.load[v * K + k] = 0;
    }
    this.forward(v, from, false);
    this.backward(v, from - 1, false);
    this.positions(v, from);
  }

  /** Replaces route v's jobs by seq[0..count) (all of them already assigned, to v or another route). */
  setRoute(v: number, seq: Int32Array, count: number): void {
    const m = this.m;
    const b = v * this.stride;
    const n = this.len[v] as number;
    this.used += (count > 0 ? 1 : 0) - (n > 0 ? 1 : 0);
    for (let q = 0; q < count; q++) {
      const j = seq[q] as number;
      this.loc[b + q + 1] = m.loc[j] as number;
      this.job[b + q + 1] = j;
      this.sv[b + q + 1] = m.service[j] as number;
    }
    this.loc[b + count + 1] = m.vEnd[v] as number;
    this.job[b + count + 1] = -1;
    this.sv[b + count + 1] = 0;
    this.len[v] = count;
    this.refresh(v);
    if (count === 0) {
      this.distance -= this.rdist[v] as number;
      this.rdist[v] = 0;
    }
    this.positions(v, 1);
  }

  /** Makes route v (and the unassigned list) equal to `o`'s. */
  copyRoute(o: Routes, v: number): void {
    const b = v * this.stride;
    const e = b + (o.len[v] as number) + 2;
    // Element by element: `set(subarray(…))` makes a view object per array, and this runs for
    // every touched route on every iteration.
    for (let c = b; c < e; c++) {
      this.loc[c] = o.loc[c] as number;
      this.job[c] = o.job[c] as number;
      this.sv[c] = o.sv[c] as number;
      this.es[c] = o.es[c] as number;
      this.ls[c] = o.ls[c] as number;
    }
    this.distance += (o.rdist[v] as number) - (this.rdist[v] as number);
    this.used += ((o.len[v] as number) > 0 ? 1 : 0) - ((this.len[v] as number) > 0 ? 1 : 0);
    this.len[v] = o.len[v] as number;
    this.rdist[v] = o.rdist[v] as number;
    const K = this.m.dims;
    for (let k = 0; k < K; k++) this.load[v * K + k] = o.load[v * K + k] as number;
    for (let p = 1; p < e - b - 1; p++) {
      const j = this.job[b + p] as number;
      this.routeOf[j] = v;
      this.posOf[j] = p;
    }
  }

  copyOut(o: Routes): void {
    this.nOut = o.nOut;
    for (let i = 0; i < o.nOut; i++) {
      const j = o.out[i] as number;
      this.out[i] = j;
      this.routeOf[j] = -1;
    }
    this.penalty = o.penalty;
  }

  copyAll(o: Routes): void {
    for (let v = 0; v < this.m.vehicles; v++) this.copyRoute(o, v);
    this.copyOut(o);
    this.distance = o.distance;
    this.used = o.used;
  }

  /**
   * Empties one used route, drawn with weight 1/len, or 1/len² with `squared` (short routes are
   * the cheapest to place elsewhere), and returns how many jobs it had (0: no route is used).
   * Its jobs go out.
   */
  dropShort(rng: Rng, squared: boolean): number {
    let pick = -1;
    let weight = 0;
    for (let v = 0; v < this.m.vehicles; v++) {
      const len = this.len[v] as number;
      if (len === 0) continue;
      const w = squared ? 1 / (len * len) : 1 / len;
      weight += w;
      if (rng.next() * weight < w) pick = v;
    }
    if (pick < 0) return 0;
    const len = this.len[pick] as number;
    this.removeSpan(pick, 1, len);
    return len;
  }

  /** The routes as job lists, one per vehicle. */
  toArrays(): number[][] {
    const r: number[][] = [];
    for (let v = 0; v < this.m.vehicles; v++) {
      const b = v * this.stride;
      r.push(Array.from(this.job.subarray(b + 1, b + 1 + (this.len[v] as number))));
    }
    return r;
  }
}
