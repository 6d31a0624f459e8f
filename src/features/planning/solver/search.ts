import { INFEASIBLE, schedule } from './constrained.js';
import { RouteMin } from './eject.js';
import { LocalSearch } from './ls.js';
import type { Model } from './model.js';
import { Rng } from './rng.js';
import { Routes } from './routes.js';
import { Sisr } from './sisr.js';
import type { Objective, UnassignedReason } from './types.js';

// The anytime loop: build by insertion, then ruin and recreate under simulated annealing, keeping the
// best solution (and going back to it after a long run without a new one). With `min_vehicles`, a
// fleet-minimisation phase first (SISR §5): drop a route, and search with the fleet capped, accepting
// by fewer unassigned jobs or by their "absence" counters (jobs that are often left out are the hard
// ones, so solutions that leave out easy ones are preferred), until every job fits again; then
// minimise distance with that fleet.

export interface SearchOptions {
  timeLimitMs: number;
  maxIterations: number;
  seed: number;
  objective: Exclude<Objective, 'balanced'>;
  onProgress?: (progress: number) => void;
}

export interface SearchResult {
  best: Routes;
  iterations: number;
}

/**
 * Temperatures at the start and the end of the run, in typical edge lengths (a job's distance to its
 * 5th nearest neighbour), falling geometrically. Chosen on Solomon (seed 1, noisy): on R1/R2/RC2/C2 at
 * 15 000 iterations, start 1.5 → +1.73 % average gap, 5 → +1.36 %, 15 → +1.35 %, 30 → +1.12 %; on all
 * 56 at 5 000 iterations, 3 → +1.58 %, 8 → +1.62 %, 20 → +1.35 %, 40 → +1.63 %. (SISR's c̄ 6 and 15
 * did worse than 10 for the same time.) The end at 1 s (all 56, about 40 000 iterations, 7 and 11
 * runs): 0.01 → +0.494 %, 0.03 → +0.450 %, 0.02 and 0.05 between; at 0.3 s +0.831 → +0.803 %.
 * Colder ends only polish what is already found.
 */
const T_START = 20;
const T_END = 0.03;
/**
 * The annealing goes back to the best solution found once restartAfter(n) iterations have passed
 * without a new best (or since the last return) and the current solution is worse: n^1.5, at least
 * 1 000. Solomon (n = 100), all 56 at a fixed 15 000 iterations, seeds 1–12 (BENCHMARKS.md "Back
 * to the best"): never +0.510 %, after 1 000 +0.356 % (better on 11 of 12 seeds; 250 to 4 000 all
 * better than never, 1 000 the most). 1 000 customers at 60 s, 12 instances paired: after 30 000
 * or 31 623 (= 1000^1.5) better on 8, worse on 3, by 0.14 points on average (standard error 0.13);
 * after 10 000 worse on 2 of 3. A new best comes more often the more jobs there are, each iteration
 * changing less of the solution. Not on large instances with short routes (`Sisr.shortRoutes`: R1, RC1
 * and C1 of the 1000-customer set): on R1 and RC1 at 60 s, 19 instances paired with the two arms'
 * cores swapped halfway, never going back was better on 16 by 0.25 points on average (standard
 * error 0.06; BENCHMARKS.md "Where the return to the best does not help").
 */
function restartAfter(n: number): number {
  return Math.max(1000, Math.round(n ** 1.5));
}
/** Share of the run spent on fleet minimisation with `min_vehicles`. */
const FLEET_SHARE = 0.5;
/**
 * From this many jobs on, the fleet phase starts with route minimisation by ejection (eject.ts) for
 * half its time, then goes on with SISR's. At 1 000 customers, 30 s (BENCHMARKS.md): 91 routes
 * instead of 99 on C1_10_2, 90 instead of 92 on RC1_10_1, never more; on Solomon at 1 s the
 * total stayed 413, so small instances keep SISR's alone.
 */
const EJECT_FROM = 400;
const EJECT_SHARE = 0.5;

export function search(m: Model, o: SearchOptions): SearchResult {
  const t0 = performance.now();
  const rng = new Rng(o.seed);
  const ops = new Sisr(m, rng);
  const cur = new Routes(m);
  const cand = new Routes(m);
  const best = new Routes(m);
  markHopeless(m, ops.hopeless);
  // The plain path only: breaks, pairs, skills and distance limits keep ruin and recreate alone.
  const ls = LocalSearch.usable(m) ? new LocalSearch(m) : null;

  ops.recreate(cand, true);
  if (ls) {
    const all = Int32Array.from({ length: m.vehicles }, (_, v) => v);
    ls.improve(cand, all, all.length);
  }
  cur.copyAll(cand);
  best.copyAll(cand);

  const minVehicles = o.objective === 'min_vehicles';
  let iter = 0;
  let frac = 0;
  let lastReport = t0;
  const progress = () => {
    iter++;
    if ((iter & 63) === 0 || iter >= o.maxIterations) {
      const now = performance.now();
      frac = Math.max((now - t0) / o.timeLimitMs, iter / o.maxIterations);
      if (o.onProgress && now - lastReport > 100) {
        lastReport = now;
        o.onProgress(Math.min(1, frac));
      }
    } else frac = Math.max(frac, iter / o.maxIterations);
    return frac < 1;
  };
  const sync = (to: Routes, from: Routes) => {
    for (let i = 0; i < ops.nTouched; i++) to.copyRoute(from, ops.touched[i] as number);
    to.copyOut(from);
    to.distance = from.distance;
    to.used = from.used;
  };
  const better = (a: Routes, b: Routes) =>
    a.penalty < b.penalty ||
    (a.penalty === b.penalty && (minVehicles && a.used !== b.used ? a.used < b.used : a.distance < b.distance - 1e-9));

  // Not with min_distance: tried as a short first phase, it left C2 instances in poor configurations
  // of the fewest routes; a hot start of the annealing (T_START) collapses spare routes better.
  if (minVehicles && m.n > 0) {
    const floor = cur.penalty; // what the hopeless jobs cost: nothing better is possible
    const fewest = new Routes(m);
    fewest.copyAll(cur);
    const absence = new Float64Array(m.n);
    const absent = (s: Routes) => {
      let sum = 0;
      for (let i = 0; i < s.nOut; i++) sum += absence[s.out[i] as number] as number;
      return sum;
    };
    // The plain path only (ejection checks windows, capacity and stop counts), from a solution that
    // serves every job a vehicle could serve alone (with too small a fleet, SISR's alone).
    let servesAll = true;
    for (let i = 0; i < cur.nOut; i++) if (ops.hopeless[cur.out[i] as number] === 0) servesAll = false;
    if (ls && m.n >= EJECT_FROM && servesAll) {
      new RouteMin(m, rng, ops.hopeless).run(cur, () => progress() && frac < FLEET_SHARE * EJECT_SHARE);
    }
    while (frac < FLEET_SHARE && cur.used > 1) {
      if (cur.penalty <= floor) {
        if (cur.used < fewest.used || (cur.used === fewest.used && cur.distance < fewest.distance)) fewest.copyAll(cur);
        cur.dropShort(rng, true);
        cand.copyAll(cur);
      }
      ops.clearTouched();
      ops.ruin(cand);
      ops.recreate(cand, false);
      for (let i = 0; i < cand.nOut; i++) {
        const j = cand.out[i] as number;
        absence[j] = (absence[j] as number) + 1;
      }
      if (cand.penalty < cur.penalty || absent(cand) < absent(cur)) sync(cur, cand);
      else sync(cand, cur);
      if (!progress()) break;
    }
    if (
      cur.penalty <= floor &&
      (cur.used < fewest.used || (cur.used === fewest.used && cur.distance < fewest.distance))
    ) {
      fewest.copyAll(cur);
    }
    cur.copyAll(fewest);
    if (better(fewest, best)) best.copyAll(fewest);
    cand.copyAll(cur);
  }
  const allowNew = !minVehicles;

  const fracStart = frac;
  const scale = m.edge;
  // The hot start lets the current solution wander far from the best: after a long run without a
  // new one, the best is a better place to go on from than where the walk has led.
  const restart = restartAfter(m.n);
  let lastBest = iter;
  while (frac < 1 && m.n > 0) {
    const f = Math.min(1, (frac - fracStart) / Math.max(1e-9, 1 - fracStart));
    const temp = scale * T_START * (T_END / T_START) ** f;
    ops.clearTouched();
    ops.ruin(cand);
    ops.recreate(cand, allowNew);
    // A candidate that beats the current solution is taken to its local optimum before the
    // acceptance test (only the routes ruin and recreate changed are searched from).
    if (ls && cand.penalty <= cur.penalty && cand.distance < cur.distance - 1e-7) {
      ls.improve(cand, ops.touched, ops.nTouched);
      for (let i = 0; i < ls.nChanged; i++) ops.touch(ls.changed[i] as number);
    }
    let accept: boolean;
    if (cand.penalty !== cur.penalty) accept = cand.penalty < cur.penalty;
    else if (minVehicles && cand.used !== cur.used) accept = cand.used < cur.used;
    else accept = cand.distance < cur.distance - temp * Math.log(rng.next());
    if (accept) {
      sync(cur, cand);
      if (better(cand, best)) {
        best.copyAll(cand);
        lastBest = iter;
      }
    } else sync(cand, cur);
    if (iter - lastBest > restart && better(best, cur) && !ops.shortRoutes(cur)) {
      cur.copyAll(best);
      cand.copyAll(best);
      lastBest = iter;
    }
    if (!progress()) break;
  }
  return { best, iterations: iter };
}

/** Jobs that no vehicle could serve even as its only stop (with its partner, for a pair). */
function markHopeless(m: Model, hopeless: Uint8Array): void {
  for (let j = 0; j < m.n; j++) hopeless[j] = aloneFeasible(m, j) === null ? 0 : 1;
}

/**
 * Why job j cannot be served by any vehicle on its own (a pair: its pickup then its delivery), or
 * null when some vehicle could: the first constraint that fails for every vehicle, checked in the
 * order skills, capacity, route limits, time window, shift.
 */
export function aloneFeasible(m: Model, j: number): UnassignedReason | null {
  const { time, size, dims: K } = m;
  const other = m.partner[j] as number;
  const pickup = other < 0 ? j : m.isPickup[j] === 1 ? j : other;
  const delivery = other < 0 ? -1 : pickup === j ? other : j;
  const seq = Int32Array.of(pickup, delivery);
  const count = delivery < 0 ? 1 : 2;
  const lj = m.loc[pickup] as number;
  let skillOk = false;
  let capOk = false;
  let limitOk = false;
  let twOk = false;
  // Late only for a maximum duration or a break, never for the shift itself.
  let limitLate = false;
  for (let v = 0; v < m.vehicles; v++) {
    if (
      m.allowed !== null &&
      (m.allowed[pickup * m.vehicles + v] === 0 || (delivery >= 0 && m.allowed[delivery * m.vehicles + v] === 0))
    ) {
      continue;
    }
    skillOk = true;
    let fits = true;
    for (let d = 0; d < K; d++) {
      if ((m.demand[pickup * K + d] as number) > (m.cap[v * K + d] as number) + 1e-9) fits = false;
    }
    if (!fits) continue;
    capOk = true;
    const last = delivery < 0 ? lj : (m.loc[delivery] as number);
    const vs = m.vStart[v] as number;
    const dist =
      (m.dist[vs * size + lj] as number) +
      (m.dist[lj * size + last] as number) +
      (m.dist[last * size + (m.vEnd[v] as number)] as number);
    if (count > (m.vMaxJobs[v] as number) || dist > (m.vMaxDist[v] as number) + 1e-9) continue;
    limitOk = true;
    const start = Math.max((m.vShiftStart[v] as number) + (time[vs * size + lj] as number), m.ready[pickup] as number);
    if (start > (m.due[pickup] as number) + 1e-9) continue;
    twOk = true;
    let back = start + (m.service[pickup] as number);
    if (delivery >= 0) {
      back = Math.max(back + (time[lj * size + last] as number), m.ready[delivery] as number);
      if (back > (m.due[delivery] as number) + 1e-9) continue;
      back += m.service[delivery] as number;
    }
    back += time[last * size + (m.vEnd[v] as number)] as number;
    if (m.constrained ? schedule(m, v, seq, count) !== INFEASIBLE : back <= (m.vShiftEnd[v] as number) + 1e-9) {
      return null;
    }
    if (back <= (m.vShiftClose[v] as number) + 1e-9) limitLate = true;
  }
  if (!skillOk) return 'skills';
  if (!capOk) return 'capacity';
  if (!limitOk) return 'route_limit';
  if (!twOk) return 'time_window';
  return limitLate ? 'route_limit' : 'shift';
}
