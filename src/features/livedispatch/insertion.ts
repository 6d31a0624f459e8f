import type { CheckResult, Problem, StopTimes, Violation } from '../planning/solver/index.js';
import { checkLane } from './lanes.js';

// Cheapest insertion of one new job into one vehicle's route: every position is screened in plain
// arithmetic (O(k) each, no allocation), and the best few are timed again by the solver's
// independent checker, whose stop times and violations are what the caller reports. The best
// position breaks nothing new at the least added distance. Pure: no database, no clock; the lane
// is built by lanes.ts.

/**
 * One courier's route as the checker sees it: a one-vehicle problem whose jobs are the route's
 * remaining stops (0 … k−1, in their current order) and, last (index k), the order to insert.
 * The vehicle starts where and when the courier is now and ends at its end depot (or where it stops).
 */
export interface Lane {
  problem: Problem;
}

export interface Insertion {
  /** Index among the remaining stops before which the new job goes (k: after the last one). */
  at: number;
  /** A pair's pickup (job k, its delivery k + 1): the index among the remaining stops it goes before (≤ at). */
  pickupAt?: number;
  /** Kilometres and minutes the route grows by. */
  addedDistance: number;
  addedTime: number;
  /** What the insertion breaks that the route did not already break. */
  broken: Violation[];
  /** Stop times of the route with the job inserted (job indices of the lane's problem). */
  stops: StopTimes[];
  /** Stop times of the route as it stands, by job index (the ETA each stop had before). */
  before: Map<number, StopTimes>;
  end: number;
}

/** A violation's identity across two versions of a route: the stop for a window, the kind otherwise. */
const keyOf = (v: Violation) => (v.kind === 'time_window' ? `w${v.job}` : `${v.kind}${v.dimension ?? ''}`);

function endOf(r: CheckResult, start: number): number {
  return r.schedules[0]?.end ?? start;
}

/** One position as the screen sees it: what it adds and how many constraints it newly breaks. */
interface Screened {
  at: number;
  /** A pair's pickup position (≤ at). */
  pickupAt?: number;
  addedDistance: number;
  addedTime: number;
  broken: number;
}

const EPS = 1e-9;

/**
 * The lane's first k jobs as the route stands, timed as the screens' model times them: each stop's
 * departure and whether it is late already, the route's end and whether it already breaks the
 * shift, and whether `added` (the new job, or a pair's pickup) newly breaks a capacity; capacity
 * does not depend on the position: everything is on board from the start.
 */
function routeAsItStands(p: Problem, k: number, added: Problem['jobs'][number]) {
  const { size, time, distance, jobs } = p;
  const v = p.vehicles[0] as Problem['vehicles'][number];
  const loc = (j: number) => (jobs[j] as Problem['jobs'][number]).location;
  const t = (a: number, b: number) => time[a * size + b] as number;
  const dist = (a: number, b: number) => distance[a * size + b] as number;
  const dep = new Float64Array(k);
  const late = new Uint8Array(k);
  let clock = v.shiftStart;
  let at = v.startLocation;
  const load = v.capacity.map(() => 0);
  for (let i = 0; i < k; i++) {
    const job = jobs[i] as Problem['jobs'][number];
    const start = Math.max(clock + t(at, job.location), job.ready);
    late[i] = start > job.due + EPS ? 1 : 0;
    clock = start + job.service;
    dep[i] = clock;
    at = job.location;
    job.demand.forEach((q, d) => {
      load[d] = (load[d] ?? 0) + q;
    });
  }
  const baseEnd = clock + t(at, v.endLocation);
  const capacityBroken = v.capacity.some((cap, d) => {
    const before = load[d] ?? 0;
    return before <= cap + EPS && before + (added.demand[d] ?? 0) > cap + EPS;
  })
    ? 1
    : 0;
  return { jobs, v, loc, t, dist, dep, late, baseEnd, baseShiftBroken: baseEnd > v.shiftEnd + EPS, capacityBroken };
}

/**
 * Every position timed in plain arithmetic, with no allocation: O(k) per position, the same model
 * as the checker (leave at the vehicle's start time, wait when early, serve `service`, late when
 * service starts after `due`; capacity on the route's total; back at the end by the shift's end).
 * It only ranks: the chosen positions are timed again by the independent checker.
 */
function screen(p: Problem): Screened[] {
  const k = p.jobs.length - 1;
  const n = p.jobs[k] as Problem['jobs'][number];
  const { jobs, v, loc, t, dist, dep, late, baseEnd, baseShiftBroken, capacityBroken } = routeAsItStands(p, k, n);
  const out: Screened[] = [];
  for (let pos = 0; pos <= k; pos++) {
    const prev = pos === 0 ? v.startLocation : loc(pos - 1);
    const next = pos === k ? v.endLocation : loc(pos);
    let c = Math.max((pos === 0 ? v.shiftStart : (dep[pos - 1] as number)) + t(prev, n.location), n.ready);
    let broken = capacityBroken + (c > n.due + EPS ? 1 : 0);
    c += n.service;
    let here = n.location;
    for (let i = pos; i < k; i++) {
      const job = jobs[i] as Problem['jobs'][number];
      const start = Math.max(c + t(here, job.location), job.ready);
      if (start > job.due + EPS && !late[i]) broken++;
      c = start + job.service;
      here = job.location;
    }
    const end = c + t(here, v.endLocation);
    if (end > v.shiftEnd + EPS && !baseShiftBroken) broken++;
    out.push({
      at: pos,
      addedDistance: dist(prev, n.location) + dist(n.location, next) - dist(prev, next),
      addedTime: end - baseEnd,
      broken,
    });
  }
  return out;
}

/** How many screened positions the checker times exactly before the best is chosen. */
const CHECKED = 3;

/**
 * The cheapest position of the new job in the lane: every position screened, the best few timed
 * by the solver's checker (whose violations and stop times are what the caller reports).
 */
export function bestInsertion(lane: Lane): Insertion {
  return checkShortlist(lane, 1, screen(lane.problem), ({ at }, current, k) => [
    ...current.slice(0, at),
    k,
    ...current.slice(at),
  ]);
}

/**
 * The best few screened places of the lane's last `added` jobs (1, or a pair's 2) timed by the
 * checker against the route as it stands (the first k jobs), and the best of them.
 */
function checkShortlist(
  lane: Lane,
  added: 1 | 2,
  screened: Screened[],
  routeOf: (s: Screened, current: number[], k: number) => number[],
): Insertion {
  const p = lane.problem;
  const k = p.jobs.length - added;
  const start = p.vehicles[0]?.shiftStart ?? 0;
  const current = Array.from({ length: k }, (_, i) => i);
  const unplaced = Array.from({ length: added }, (_, i) => ({ job: k + i, reason: 'shift' as const }));
  const base = checkLane(p, current, unplaced);
  const already = new Set(base.violations.map(keyOf));
  const before = new Map((base.schedules[0]?.stops ?? []).map((s) => [s.job, s]));
  const baseEnd = endOf(base, start);
  const shortlist = screened
    .sort(
      (a, b) =>
        (a.broken > 0 ? 1 : 0) - (b.broken > 0 ? 1 : 0) ||
        a.broken - b.broken ||
        a.addedDistance - b.addedDistance ||
        a.addedTime - b.addedTime ||
        a.at - b.at ||
        (a.pickupAt ?? 0) - (b.pickupAt ?? 0),
    )
    .slice(0, CHECKED);
  const checked = shortlist.map((s): Insertion => {
    const r = checkLane(p, routeOf(s, current, k));
    return {
      at: s.at,
      ...(s.pickupAt === undefined ? {} : { pickupAt: s.pickupAt }),
      addedDistance: r.distance - base.distance,
      addedTime: endOf(r, start) - baseEnd,
      broken: r.violations.filter((v) => !already.has(keyOf(v))),
      stops: r.schedules[0]?.stops ?? [],
      before,
      end: endOf(r, start),
    };
  });
  return checked.sort(compareInsertions)[0] as Insertion;
}

/** Feasible (nothing new broken) first, then fewer broken constraints, then distance, then time. */
export function compareInsertions(a: Insertion, b: Insertion): number {
  const fa = a.broken.length === 0 ? 0 : 1;
  const fb = b.broken.length === 0 ? 0 : 1;
  return (
    fa - fb ||
    a.broken.length - b.broken.length ||
    a.addedDistance - b.addedDistance ||
    a.addedTime - b.addedTime ||
    a.at - b.at
  );
}

/**
 * Every place of a pickup-and-delivery pair (the lane's last two jobs: the pickup k, its delivery
 * k + 1) timed in plain arithmetic, as `screen` does for one job: O(k) per pickup and delivery
 * position, no allocation. The route before the pickup's place is the route as it stands. Capacity
 * is screened as if the pair were on board the whole way (conservative; the checker decides).
 */
function screenPairs(p: Problem): Screened[] {
  const k = p.jobs.length - 2;
  const P = p.jobs[k] as Problem['jobs'][number];
  const D = p.jobs[k + 1] as Problem['jobs'][number];
  const { jobs, v, loc, t, dist, dep, late, baseEnd, baseShiftBroken, capacityBroken } = routeAsItStands(p, k, P);
  const out: Screened[] = [];
  for (let i = 0; i <= k; i++) {
    const prevP = i === 0 ? v.startLocation : loc(i - 1);
    const nextP = i === k ? v.endLocation : loc(i);
    for (let j = i; j <= k; j++) {
      let c = i === 0 ? v.shiftStart : (dep[i - 1] as number);
      let here = prevP;
      let broken = capacityBroken;
      for (let idx = i; idx <= k; idx++) {
        if (idx === i) {
          c = Math.max(c + t(here, P.location), P.ready);
          if (c > P.due + EPS) broken++;
          c += P.service;
          here = P.location;
        }
        if (idx === j) {
          c = Math.max(c + t(here, D.location), D.ready);
          if (c > D.due + EPS) broken++;
          c += D.service;
          here = D.location;
        }
        if (idx === k) break;
        const job = jobs[idx] as Problem['jobs'][number];
        const start = Math.max(c + t(here, job.location), job.ready);
        if (start > job.due + EPS && !late[idx]) broken++;
        c = start + job.service;
        here = job.location;
      }
      const end = c + t(here, v.endLocation);
      if (end > v.shiftEnd + EPS && !baseShiftBroken) broken++;
      const prevD = j === 0 ? v.startLocation : loc(j - 1);
      const nextD = j === k ? v.endLocation : loc(j);
      const addedDistance =
        i === j
          ? dist(prevP, P.location) + dist(P.location, D.location) + dist(D.location, nextP) - dist(prevP, nextP)
          : dist(prevP, P.location) +
            dist(P.location, nextP) -
            dist(prevP, nextP) +
            dist(prevD, D.location) +
            dist(D.location, nextD) -
            dist(prevD, nextD);
      out.push({ at: j, pickupAt: i, addedDistance, addedTime: end - baseEnd, broken });
    }
  }
  return out;
}

/**
 * The cheapest place of a pickup-and-delivery pair (the lane's last two jobs: the pickup k, its
 * delivery k + 1): every pickup position i and delivery position j ≥ i screened in plain
 * arithmetic, the best few timed again by the checker, as for one job. The plain path above is
 * untouched.
 */
export function bestPairInsertion(lane: Lane): Insertion {
  return checkShortlist(lane, 2, screenPairs(lane.problem), ({ at, pickupAt = at }, current, k) => [
    ...current.slice(0, pickupAt),
    k,
    ...current.slice(pickupAt, at),
    k + 1,
    ...current.slice(at),
  ]);
}
