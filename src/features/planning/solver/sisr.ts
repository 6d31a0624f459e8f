import { Constrained } from './constrained.js';
import { GreedyInsertion } from './greedy.js';
import type { Model } from './model.js';
import { RegretInsertion } from './regret.js';
import type { Rng } from './rng.js';
import type { Routes } from './routes.js';

// Ruin and recreate after "Slack Induction by String Removals" (Christiaens & Vanden Berghe, 2020):
// ruin removes strings of consecutive jobs from a few routes near a random seed job, so the freed
// slack lands where it can be reused; recreate puts jobs back one by one at their cheapest feasible
// place, skipping each candidate place with a small probability ("blinks") for diversity (greedy.ts;
// regret.ts for a share of the recreates).

/** Average number of removed jobs (c̄), the longest string (L_max), split rate α, split depth β. */
const C_BAR = 10;
const L_MAX = 10;
const ALPHA = 0.5;
const BETA = 0.01;
/**
 * c̄ and L_max on a large instance with long routes (from GRANULAR_FROM jobs, more than PLACES_UP_TO
 * stops a route on average: R2, RC2 and C2 of the 1000-customer set, or a day of 2 000 stops for 40
 * couriers), where strings of at most 10 stops rearrange a quarter of a 40-stop route at a time. At
 * 1 000 customers, 60 s, the 30 long-route instances each paired twice, with the two arms' cores
 * swapped (BENCHMARKS.md "Larger ruins on long routes"): −0.20 points (standard error 0.07), better
 * in 36 of 60 pairs and worse in 21, with 0.7 times the iterations; C2 −0.18, R2 −0.13, RC2 −0.30.
 * All 60 afterwards: +1.49 → +1.41 % (C2 −0.43, RC2 −0.29; R2 +0.17, with fewer routes than the best
 * known on six of ten, which the larger ruins empty more easily). Short routes keep SISR's 10 and
 * 10: 15 and 15 did worse on R1 (BENCHMARKS.md "Where the return to the best does not help"), and
 * so did c̄ 7 (BENCHMARKS.md "Six more tries on 1000 customers").
 */
const LONG_C_BAR = 15;
const LONG_L_MAX = 15;
/**
 * From this many jobs on, recreate tries the routes of a job's GRANULAR_RECREATE nearest jobs first.
 * 60 on the 30 long-route instances at 60 s: −0.04 points (standard error 0.10), not shown
 * (BENCHMARKS.md "Six more tries on 1000 customers").
 */
const GRANULAR_FROM = 400;
const GRANULAR_RECREATE = 40;
/**
 * Up to this many stops per route on average, a large instance's recreate tries only the places
 * next to a job's nearest jobs first, not every place of their routes. On the 1000-customer set at
 * 30 s (12 instances, A/B): R1 +2.59 → +1.85 %, RC1 +2.77 → +1.86 %, C1 +1.26 → +1.09 % (about 10
 * stops a route; up to 1.3× the iterations, fewer routes); with the long routes of R2, RC2 and C2
 * (30–40 stops) it did worse (RC2 +2.34 → +3.11 %, C2 +0.40 → +1.23 %), so those keep the scan.
 */
const PLACES_UP_TO = 20;
/** Recreate orders: random, demand, far, close, window length, window start, window end; by weight. */
const ORDER_WEIGHTS = [4, 4, 2, 1, 2, 2, 2];
const ORDER_TOTAL = ORDER_WEIGHTS.reduce((a, b) => a + b, 0);
/**
 * Share of the recreates done by regret insertion (regret.ts) instead of greedy: below GRANULAR_FROM
 * jobs, and on large instances with short routes (PLACES_UP_TO). Solomon, all 56 at 15 000
 * iterations, seeds 1–12 (BENCHMARKS.md "Regret insertion"): greedy alone +0.636 %, a share of 0.3
 * +0.510 % (better on 11 of 12 seeds), 0.5 and 1 worse than 0.3.
 */
const REGRET_SHARE = 0.3;
/**
 * On large instances a regret row starts with the routes of the job's REGRET_NEAR nearest jobs, not
 * every route. At 1 000 customers, 30 s (BENCHMARKS.md "Regret insertion on 1000 customers"): better
 * on 16 of 19 instances of R1, RC1 and C1 (R1 −0.20, RC1 −0.30 points on average, C1 +0.05) with a
 * third fewer iterations; on the long routes of R2, RC2 and C2 it was worse as often as better (10
 * pairs at 100 000 iterations and 30 s), so they keep greedy.
 */
const REGRET_NEAR = 20;

export class Sisr {
  /** Routes touched since `clearTouched` (ruined or inserted into), listed once each. */
  readonly touched: Int32Array;
  nTouched = 0;
  private readonly touchStamp: Int32Array;
  private stamp = 1;
  private classGen = 1;
  private readonly ruinStamp: Int32Array;
  private readonly classStamp: Int32Array;
  /** Neighbours whose routes recreate tries first (0: every route, always). */
  private readonly granular: number;
  private readonly buf: Int32Array;
  private readonly keys: Float64Array;
  /** Jobs no vehicle can serve even alone: never tried again. */
  readonly hopeless: Uint8Array;
  /** Insertion under breaks and pairs; null for the plain path. */
  private readonly constrained: Constrained | null;
  /** No travel or service time below zero: then a route's `es` and `ls` never fall along it. */
  private readonly monotone: boolean;
  /** Regret insertion for a share of recreates: the plain path, monotone (with short routes from GRANULAR_FROM jobs). */
  private readonly regret: RegretInsertion | null;
  /** Greedy insertion for the other recreates of the plain path. */
  private readonly greedy: GreedyInsertion;
  private readonly touchRoute = (v: number) => this.touch(v);

  constructor(
    private readonly m: Model,
    private readonly rng: Rng,
  ) {
    this.touched = new Int32Array(m.vehicles);
    this.touchStamp = new Int32Array(m.vehicles);
    this.ruinStamp = new Int32Array(m.vehicles);
    this.classStamp = new Int32Array(m.vehicles);
    this.granular = m.n >= GRANULAR_FROM ? Math.min(GRANULAR_RECREATE, m.neighbours) : 0;
    this.buf = new Int32Array(m.n);
    this.keys = new Float64Array(m.n);
    this.hopeless = new Uint8Array(m.n);
    this.constrained = m.constrained ? new Constrained(m) : null;
    this.monotone = m.time.every((t) => t >= 0) && m.service.every((t) => t >= 0);
    this.regret =
      !this.constrained && this.monotone ? new RegretInsertion(m, rng, this.granular > 0 ? REGRET_NEAR : 0) : null;
    this.greedy = new GreedyInsertion(m, rng, this.granular, this.monotone);
  }

  /**
   * Whether `s` is a large instance with short routes (from GRANULAR_FROM jobs, at most PLACES_UP_TO
   * stops a route on average): there recreate tries places next to a job's nearest jobs first.
   */
  shortRoutes(s: Routes): boolean {
    return this.granular > 0 && s.used > 0 && (this.m.n - s.nOut) / s.used <= PLACES_UP_TO;
  }

  clearTouched(): void {
    this.nTouched = 0;
    this.stamp++;
  }

  touch(v: number): void {
    if (this.touchStamp[v] !== this.stamp) {
      this.touchStamp[v] = this.stamp;
      this.touched[this.nTouched++] = v;
    }
  }

  ruin(s: Routes): void {
    const m = this.m;
    const rng = this.rng;
    const assigned = m.n - s.nOut;
    if (assigned === 0 || s.used === 0) return;
    const long = this.granular > 0 && !this.shortRoutes(s);
    const lsMax = Math.min(long ? LONG_L_MAX : L_MAX, assigned / s.used);
    const ksMax = (4 * (long ? LONG_C_BAR : C_BAR)) / (1 + lsMax) - 1;
    const ks = Math.floor(rng.next() * ksMax) + 1;
    let seed = rng.int(m.n);
    while (s.routeOf[seed] === -1) seed = seed + 1 === m.n ? 0 : seed + 1;
    const rs = this.stamp;
    let ruined = 0;
    for (let i = -1; i < m.neighbours && ruined < ks; i++) {
      const c = i < 0 ? seed : (m.adj[seed * m.neighbours + i] as number);
      const v = s.routeOf[c] as number;
      if (v < 0 || this.ruinStamp[v] === rs) continue;
      this.ruinStamp[v] = rs;
      this.touch(v);
      ruined++;
      const len = s.len[v] as number;
      const lt = Math.floor(rng.next() * Math.min(len, lsMax)) + 1;
      const pos = s.posOf[c] as number;
      if (lt === len || rng.next() < ALPHA) {
        const lo = Math.max(1, pos - lt + 1);
        const hi = Math.min(pos, len - lt + 1);
        s.removeSpan(v, lo + rng.int(hi - lo + 1), lt);
      } else {
        // Split string: a window of lt + kept jobs around c, of which a run of `kept` stays.
        let kept = 1;
        while (lt + kept < len && rng.next() >= BETA) kept++;
        const total = lt + kept;
        const lo = Math.max(1, pos - total + 1);
        const hi = Math.min(pos, len - total + 1);
        const start = lo + rng.int(hi - lo + 1);
        const r = rng.int(lt + 1);
        if (lt - r > 0) s.removeSpan(v, start + r + kept, lt - r);
        if (r > 0) s.removeSpan(v, start, r);
      }
    }
    if (m.hasPairs) this.constrained?.unpair(s, (v) => this.touch(v));
  }

  /** Inserts the unassigned jobs back; `allowNew` lets it open an empty vehicle. */
  recreate(s: Routes, allowNew: boolean): void {
    const rng = this.rng;
    let k = 0;
    for (let i = 0; i < s.nOut; i++) {
      const j = s.out[i] as number;
      if (this.hopeless[j] === 0) this.buf[k++] = j;
    }
    this.order(k);
    if (this.constrained) {
      this.recreateConstrained(s, this.constrained, k, allowNew);
      return;
    }
    const byPlace = this.shortRoutes(s);
    if (this.regret && (this.granular === 0 || byPlace) && rng.next() < REGRET_SHARE) {
      this.regret.run(s, this.buf, k, allowNew, this.touchRoute);
      return;
    }
    this.greedy.run(s, this.buf, k, allowNew, byPlace, this.touchRoute);
  }

  /** The same, job by job, through the whole-route check of constrained.ts (no blinks). */
  private recreateConstrained(s: Routes, c: Constrained, k: number, allowNew: boolean): void {
    const m = this.m;
    const K = m.dims;
    const V = m.vehicles;
    for (let i = 0; i < k; i++) {
      const j = this.buf[i] as number;
      // A pair's delivery goes in with its pickup.
      if ((m.partner[j] as number) >= 0 && m.isPickup[j] === 0) continue;
      const cs = ++this.classGen;
      // A pickup's vehicle must also suit its delivery's requirements.
      const q = m.isPickup[j] === 1 ? (m.partner[j] as number) : j;
      const v = c.insert(s, j, (v) => {
        if (m.allowed !== null && (m.allowed[j * V + v] === 0 || m.allowed[q * V + v] === 0)) return false;
        for (let d = 0; d < K; d++) {
          if ((s.load[v * K + d] as number) + (m.demand[j * K + d] as number) > (m.cap[v * K + d] as number) + 1e-9) {
            return false;
          }
        }
        if ((s.len[v] as number) > 0) return true;
        const cl = m.vClass[v] as number;
        if (!allowNew || this.classStamp[cl] === cs) return false;
        this.classStamp[cl] = cs;
        return true;
      });
      if (v >= 0) this.touch(v);
    }
  }

  /** Shuffles buf[0..k) and then sorts it stably by one of the recreate orders. */
  private order(k: number): void {
    const m = this.m;
    const rng = this.rng;
    const buf = this.buf;
    for (let i = k - 1; i > 0; i--) {
      const r = rng.int(i + 1);
      const t = buf[i] as number;
      buf[i] = buf[r] as number;
      buf[r] = t;
    }
    let pick = rng.next() * ORDER_TOTAL;
    let which = 0;
    while (which < ORDER_WEIGHTS.length - 1 && pick >= (ORDER_WEIGHTS[which] as number)) {
      pick -= ORDER_WEIGHTS[which] as number;
      which++;
    }
    if (which === 0) return;
    const keys = this.keys;
    const K = m.dims;
    const home = m.vStart[0] as number;
    for (let i = 0; i < k; i++) {
      const j = buf[i] as number;
      let key = 0;
      if (which === 1) {
        for (let d = 0; d < K; d++) key -= (m.demand[j * K + d] as number) / ((m.cap[d] as number) || 1);
      } else if (which === 2) key = -(m.dist[home * m.size + (m.loc[j] as number)] as number);
      else if (which === 3) key = m.dist[home * m.size + (m.loc[j] as number)] as number;
      else if (which === 4) key = (m.due[j] as number) - (m.ready[j] as number);
      else if (which === 5) key = m.ready[j] as number;
      else key = -(m.due[j] as number);
      keys[i] = key;
    }
    for (let i = 1; i < k; i++) {
      const j = buf[i] as number;
      const key = keys[i] as number;
      let p = i - 1;
      while (p >= 0 && (keys[p] as number) > key) {
        buf[p + 1] = buf[p] as number;
        keys[p + 1] = keys[p] as number;
        p--;
      }
      buf[p + 1] = j;
      keys[p + 1] = key;
    }
  }
}
