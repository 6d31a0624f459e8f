import type { Model } from './model.js';
import { RegretPlaces } from './regret-places.js';
import type { Rng } from './rng.js';
import type { Routes } from './routes.js';

// Regret insertion (Potvin & Rousseau 1993; Ropke & Pisinger 2006's regret-2), one of recreate's
// ways (sisr.ts): of the jobs left to insert, the one that would lose most by not getting its best
// route (its second-best place, in another route, minus its best) goes in first, at its best place.
// Greedy insertion in a fixed order puts an easy job where a hard one had its only good place; this
// looks ahead one step. Each job's cheapest place in each candidate route is kept in a table, with
// each row's two cheapest routes; an insertion changes only the column of the route it went into,
// and mostly without a scan (`update`, regret-places.ts). Still, a regret recreate costs about
// twice a greedy one (greedy skips a place once it costs more than the best place anywhere; here
// each route's own best is needed, so the table's first fill dominates). Used for a share of the
// recreates on the plain path (sisr.ts, REGRET_SHARE): better at equal time all the same
// (BENCHMARKS.md "Regret insertion"). On large instances (`near`) a job's row holds only the routes
// of its nearest jobs and empty vehicles at first, and every route once those hold fewer than two
// places for it: a route far from all of a job's nearest jobs is seldom its best or second best,
// and the table costs a tenth as much.

/** The regret of a job that fits in one route only: it goes before any job with a choice. */
const ONLY_ONE = 1e15;

export class RegretInsertion {
  /** Cheapest place cost and position per (row of the job list, vehicle); +∞ when none. */
  private cost: Float64Array;
  private pos: Int32Array;
  /** Candidate routes of this run (every used one, the first empty vehicle of each class): stamp, and their list in vehicle order. */
  private readonly cand: Int32Array;
  private readonly list: Int32Array;
  private readonly classStamp: Int32Array;
  private gen = 0;
  /** A job's cheapest place in one route, blinks included (regret-places.ts). */
  private readonly places: RegretPlaces;
  /** Per row: 1 when every candidate route was tried, 0 when only its job's nearest jobs' routes (and empty vehicles). */
  private readonly full: Uint8Array;
  private readonly rowStamp: Int32Array;
  private rowGen = 0;
  /** Per row: its two cheapest cells (+∞ when none) and their routes (-1), kept as cells change. */
  private readonly c1: Float64Array;
  private readonly c2: Float64Array;
  private readonly v1: Int32Array;
  private readonly v2: Int32Array;

  /** `near`: how many of a job's nearest jobs' routes a row starts with (0: every route). */
  constructor(
    private readonly m: Model,
    rng: Rng,
    private readonly near = 0,
  ) {
    this.places = new RegretPlaces(m, rng);
    this.cost = new Float64Array(0);
    this.pos = new Int32Array(0);
    this.cand = new Int32Array(m.vehicles);
    this.list = new Int32Array(m.vehicles);
    this.classStamp = new Int32Array(m.vehicles);
    this.full = new Uint8Array(m.n);
    this.rowStamp = new Int32Array(m.vehicles);
    this.c1 = new Float64Array(m.n);
    this.c2 = new Float64Array(m.n);
    this.v1 = new Int32Array(m.n);
    this.v2 = new Int32Array(m.n);
  }

  /** Row i's two cheapest cells among the candidate routes, from scratch. */
  private rank(i: number, nc: number): void {
    const V = this.m.vehicles;
    const { cost, list } = this;
    let c1 = Number.POSITIVE_INFINITY;
    let c2 = Number.POSITIVE_INFINITY;
    let v1 = -1;
    let v2 = -1;
    const row = i * V;
    for (let q = 0; q < nc; q++) {
      const v = list[q] as number;
      const c = cost[row + v] as number;
      if (c < c1) {
        c2 = c1;
        v2 = v1;
        c1 = c;
        v1 = v;
      } else if (c < c2) {
        c2 = c;
        v2 = v;
      }
    }
    this.c1[i] = c1;
    this.c2[i] = c2;
    this.v1[i] = v1;
    this.v2[i] = v2;
  }

  /** Row i's two cheapest after its cell of route v changed: a whole rank only when a top cell got dearer. */
  private reRank(i: number, v: number, nc: number): void {
    const c = this.cost[i * this.m.vehicles + v] as number;
    const c1 = this.c1[i] as number;
    const c2 = this.c2[i] as number;
    // A route that no longer fits leaves the top by a whole rank: -1 stands for "no place", never +∞.
    if (c === Number.POSITIVE_INFINITY && (v === this.v1[i] || v === this.v2[i])) this.rank(i, nc);
    else if (v === this.v1[i]) {
      if (c <= c2) this.c1[i] = c;
      else this.rank(i, nc);
    } else if (v === this.v2[i]) {
      if (c < c1) {
        this.c2[i] = c1;
        this.v2[i] = this.v1[i] as number;
        this.c1[i] = c;
        this.v1[i] = v;
      } else if (c <= c2) this.c2[i] = c;
      else this.rank(i, nc);
    } else if (c < c1) {
      this.c2[i] = c1;
      this.v2[i] = this.v1[i] as number;
      this.c1[i] = c;
      this.v1[i] = v;
    } else if (c < c2) {
      this.c2[i] = c;
      this.v2[i] = v;
    }
  }

  /**
   * Row i (job j): its cheapest place in every candidate route (`whole`, or without `near`) or
   * only in the routes of its nearest jobs and in empty vehicles (+∞ elsewhere, until the row is
   * filled whole).
   */
  private fillRow(
    s: Routes,
    j: number,
    i: number,
    nc: number,
    fill: (i: number, v: number) => void,
    whole = false,
  ): void {
    const { m, list, near } = this;
    if (near === 0 || whole) {
      for (let c = 0; c < nc; c++) fill(i, list[c] as number);
      this.full[i] = 1;
      return;
    }
    const rs = ++this.rowGen;
    const row = j * m.neighbours;
    for (let r = 0; r < near; r++) {
      const v = s.routeOf[m.adj[row + r] as number] as number;
      if (v >= 0) this.rowStamp[v] = rs;
    }
    for (let c = 0; c < nc; c++) {
      const v = list[c] as number;
      if ((s.len[v] as number) === 0 || this.rowStamp[v] === rs) fill(i, v);
      else this.cost[i * m.vehicles + v] = Number.POSITIVE_INFINITY;
    }
    this.full[i] = 0;
  }

  /**
   * Inserts jobs[0..k) (reordered in place) by regret; a job that fits nowhere stays out. Routes
   * must have non-decreasing `es`/`ls` (no negative travel or service time): places are found by
   * bisection. `touch` is called with every route inserted into.
   */
  run(s: Routes, jobs: Int32Array, k: number, allowNew: boolean, touch: (v: number) => void): void {
    const m = this.m;
    const V = m.vehicles;
    if (this.cost.length < k * V) {
      this.cost = new Float64Array(m.n * V);
      this.pos = new Int32Array(m.n * V);
    }
    const { cost, pos, cand, list, places } = this;
    places.gap = places.nextGap();
    const g = ++this.gen;
    let nc = 0;
    for (let v = 0; v < V; v++) {
      if ((s.len[v] as number) > 0) cand[v] = g;
      else if (allowNew && this.classStamp[m.vClass[v] as number] !== g) {
        this.classStamp[m.vClass[v] as number] = g;
        cand[v] = g;
      } else continue;
      list[nc++] = v;
    }
    const fill = (i: number, v: number) => {
      cost[i * V + v] = places.cheapestIn(s, jobs[i] as number, v);
      pos[i * V + v] = places.place;
    };
    const full = this.full;
    for (let i = 0; i < k; i++) {
      this.fillRow(s, jobs[i] as number, i, nc, fill);
      this.rank(i, nc);
    }
    const top1 = this.c1;
    const top2 = this.c2;
    const top1v = this.v1;
    let left = k;
    while (left > 0) {
      let bi = -1;
      let bRegret = Number.NEGATIVE_INFINITY;
      let bCost = Number.POSITIVE_INFINITY;
      let bv = -1;
      for (let i = 0; i < left; i++) {
        const c1 = top1[i] as number;
        const c2 = top2[i] as number;
        const v1 = top1v[i] as number;
        if (v1 < 0 || (c2 === Number.POSITIVE_INFINITY && full[i] === 0)) {
          if (full[i] === 1) continue;
          // Its nearest jobs' routes hold one place or none: the row again, with every route.
          this.fillRow(s, jobs[i] as number, i, nc, fill, true);
          this.rank(i, nc);
          i--;
          continue;
        }
        const regret = c2 === Number.POSITIVE_INFINITY ? ONLY_ONE : c2 - c1;
        if (regret > bRegret || (regret === bRegret && c1 < bCost)) {
          bRegret = regret;
          bCost = c1;
          bi = i;
          bv = v1;
        }
      }
      if (bi < 0) return; // what is left fits nowhere
      const opened = (s.len[bv] as number) === 0;
      const at = pos[bi * V + bv] as number;
      s.insert(jobs[bi] as number, bv, at);
      touch(bv);
      // The job's row goes; the last row takes its place.
      left--;
      if (bi !== left) {
        jobs[bi] = jobs[left] as number;
        cost.copyWithin(bi * V, left * V, left * V + V);
        full[bi] = full[left] as number;
        pos.copyWithin(bi * V, left * V, left * V + V);
        top1[bi] = top1[left] as number;
        top2[bi] = top2[left] as number;
        top1v[bi] = top1v[left] as number;
        this.v2[bi] = this.v2[left] as number;
      }
      const incremental = this.near === 0 && !opened;
      for (let i = 0; i < left; i++) {
        if (incremental) places.update(s, jobs[i] as number, cost, pos, i * V + bv, bv, at);
        else fill(i, bv);
        this.reRank(i, bv, nc);
      }
      if (opened) {
        // The vehicle is used now: the next empty one of its class stands for a new route.
        const cl = m.vClass[bv] as number;
        for (let v = 0; v < V; v++) {
          if ((s.len[v] as number) === 0 && (m.vClass[v] as number) === cl && cand[v] !== g) {
            cand[v] = g;
            // Into the list in vehicle order, so that ties between routes go the same way as before.
            let q = nc++;
            for (; q > 0 && (list[q - 1] as number) > v; q--) list[q] = list[q - 1] as number;
            list[q] = v;
            for (let i = 0; i < left; i++) {
              fill(i, v);
              this.reRank(i, v, nc);
            }
            break;
          }
        }
      }
    }
  }
}
