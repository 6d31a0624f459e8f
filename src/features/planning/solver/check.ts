import type { Problem, RouteSchedule, Solution, StopTimes, ViolationKind } from './types.js';

// The feasibility checker: deliberately plain code that shares nothing with the solver's incremental
// arrays, so a bug in those cannot also hide here. Every solution the solver returns goes through it.

/**
 * A broken constraint of a route, tied to the stop where it shows: the stop served after its due
 * time, the first stop whose cumulative load passes a capacity, the last stop when the vehicle is
 * back after its shift. `at` and `limit` are in the problem's units (time, or load of `dimension`).
 */
export interface Violation {
  kind: ViolationKind;
  vehicle: number;
  job: number;
  at: number;
  limit: number;
  dimension?: number;
}

export interface CheckResult {
  ok: boolean;
  /** Every violation found, in words (empty when ok). */
  errors: string[];
  /** The route constraints broken, by stop (a subset of `errors`: not the structural ones). */
  violations: Violation[];
  distance: number;
  /** Non-empty routes. */
  vehicles: number;
  schedules: RouteSchedule[];
}

/** Rounding slack for sums of doubles: a due date met to within 1e-9 is met. */
const EPS = 1e-9;

export function check(problem: Problem, solution: Solution): CheckResult {
  const errors: string[] = [];
  const violations: Violation[] = [];
  const n = problem.jobs.length;
  const seen = new Array<number>(n).fill(0);
  if (solution.routes.length !== problem.vehicles.length) {
    errors.push(`expected ${problem.vehicles.length} routes (one per vehicle), got ${solution.routes.length}`);
  }
  const mark = (job: number, where: string) => {
    if (!Number.isInteger(job) || job < 0 || job >= n) errors.push(`${where}: no job ${job}`);
    else seen[job] = (seen[job] ?? 0) + 1;
  };
  solution.routes.forEach((r, v) => {
    for (const j of r) mark(j, `route ${v}`);
  });
  for (const u of solution.unassigned) mark(u.job, 'unassigned');
  for (let j = 0; j < n; j++) {
    if (seen[j] === 0) errors.push(`job ${j} is neither routed nor unassigned`);
    if ((seen[j] ?? 0) > 1) errors.push(`job ${j} appears ${seen[j]} times`);
  }
  const pickupOf = checkPairs(problem, solution, errors, violations);

  const { size, time, distance } = problem;
  let total = 0;
  let vehicles = 0;
  const schedules: RouteSchedule[] = [];
  solution.routes.forEach((route, v) => {
    const vehicle = problem.vehicles[v];
    const after = solution.breaks?.[v] ?? null;
    if (vehicle && after !== null && (!vehicle.break || route.length === 0)) {
      errors.push(`route ${v}: a break placed on a route that takes none`);
    }
    if (!vehicle || route.length === 0 || route.some((j) => !problem.jobs[j])) return;
    vehicles++;
    const last = route[route.length - 1] as number;
    const limit = (kind: ViolationKind, job: number, at: number, max: number, words: string) => {
      errors.push(`route ${v}: ${words}`);
      violations.push({ kind, vehicle: v, job, at, limit: max });
    };
    // Plain jobs are loaded at the start; a pickup's load is on board from its stop to its delivery.
    const plain = (j: number) => problem.jobs[j]?.delivery === undefined && !pickupOf.has(j);
    const startLoad = vehicle.capacity.map(() => 0);
    for (const j of route) {
      if (!plain(j)) continue;
      (problem.jobs[j]?.demand ?? []).forEach((q, d) => {
        startLoad[d] = (startLoad[d] ?? 0) + q;
      });
    }
    startLoad.forEach((l, d) => {
      if (l > (vehicle.capacity[d] ?? 0) + EPS) {
        errors.push(`route ${v}: load ${l} exceeds capacity ${vehicle.capacity[d]} in dimension ${d}`);
      }
    });
    if (vehicle.maxJobs !== undefined && route.length > vehicle.maxJobs) {
      limit('route_limit', last, route.length, vehicle.maxJobs, `${route.length} stops, more than ${vehicle.maxJobs}`);
    }
    const skills = new Set(vehicle.skills ?? []);
    for (const j of route) {
      const missing = (problem.jobs[j]?.requirements ?? []).filter((r) => !skills.has(r));
      if (missing.length > 0) limit('skills', j, 0, 0, `job ${j} needs ${missing.join(', ')}`);
    }

    const brk = vehicle.break;
    let taken: RouteSchedule['break'];
    let at = vehicle.startLocation;
    let clock = vehicle.shiftStart;
    let dist = 0;
    const takeBreak = (k: number) => {
      if (!brk || after !== k) return;
      const start = Math.max(clock, brk.earliest);
      if (start > brk.latest + EPS) {
        limit(
          'break',
          route[Math.max(0, k - 1)] as number,
          start,
          brk.latest,
          `break starts at ${start}, after ${brk.latest}`,
        );
      }
      clock = start + brk.duration;
      taken = { after: k, start, end: clock };
    };
    if (after !== null && (!Number.isInteger(after) || after < 0 || after > route.length)) {
      errors.push(`route ${v}: break after ${after} of ${route.length} stops`);
    }
    takeBreak(0);
    const carried = vehicle.capacity.map(() => 0);
    const plainSum = vehicle.capacity.map(() => 0);
    const onBoard = [...startLoad];
    const stops: StopTimes[] = [];
    route.forEach((j, i) => {
      const job = problem.jobs[j] as (typeof problem.jobs)[number];
      // A pair's delivery drops what its pickup took on.
      const pickup = pickupOf.get(j);
      const demand = pickup === undefined ? job.demand : (problem.jobs[pickup]?.demand ?? []);
      const arrival = clock + (time[at * size + job.location] ?? Number.NaN);
      dist += distance[at * size + job.location] ?? Number.NaN;
      const serviceStart = Math.max(arrival, job.ready);
      if (serviceStart > job.due + EPS) {
        errors.push(`route ${v}: job ${j} starts at ${serviceStart}, after its due time ${job.due}`);
        violations.push({ kind: 'time_window', vehicle: v, job: j, at: serviceStart, limit: job.due });
      }
      demand.forEach((q, d) => {
        const cap = vehicle.capacity[d] ?? 0;
        if (job.delivery !== undefined) {
          onBoard[d] = (onBoard[d] ?? 0) + q;
          if (onBoard[d] > cap + EPS) {
            violations.push({ kind: 'capacity', vehicle: v, job: j, at: onBoard[d], limit: cap, dimension: d });
            errors.push(`route ${v}: load ${onBoard[d]} after pickup ${j} exceeds capacity ${cap}`);
          }
          return;
        }
        carried[d] = (carried[d] ?? 0) + q;
        onBoard[d] = (onBoard[d] ?? 0) - q;
        if (!plain(j)) return;
        // Plain jobs are all loaded at the start: the stop that first takes their sum past the capacity is the one that does not fit.
        const before = plainSum[d] ?? 0;
        plainSum[d] = before + q;
        if (before <= cap + EPS && before + q > cap + EPS) {
          violations.push({ kind: 'capacity', vehicle: v, job: j, at: before + q, limit: cap, dimension: d });
        }
      });
      clock = serviceStart + job.service;
      stops.push({ job: j, arrival, serviceStart, departure: clock, load: [...carried], onBoard: [...onBoard] });
      at = job.location;
      takeBreak(i + 1);
    });
    let end = clock;
    if (!vehicle.openEnd) {
      end += time[at * size + vehicle.endLocation] ?? Number.NaN;
      dist += distance[at * size + vehicle.endLocation] ?? Number.NaN;
    }
    if (!(end <= vehicle.shiftEnd + EPS)) {
      errors.push(`route ${v}: back at ${end}, after the shift end ${vehicle.shiftEnd}`);
      violations.push({ kind: 'shift', vehicle: v, job: last, at: end, limit: vehicle.shiftEnd });
    }
    if (brk && after === null && end > brk.earliest + EPS) {
      limit('break', last, end, brk.earliest, `no break, and the route lasts until ${end}, past ${brk.earliest}`);
    }
    if (vehicle.maxDuration !== undefined && end - vehicle.shiftStart > vehicle.maxDuration + EPS) {
      limit(
        'route_limit',
        last,
        end - vehicle.shiftStart,
        vehicle.maxDuration,
        `lasts longer than ${vehicle.maxDuration}`,
      );
    }
    if (vehicle.maxDistance !== undefined && dist > vehicle.maxDistance + EPS) {
      limit('route_limit', last, dist, vehicle.maxDistance, `distance ${dist} over ${vehicle.maxDistance}`);
    }
    total += dist;
    schedules.push({
      vehicle: v,
      stops,
      start: vehicle.shiftStart,
      end,
      distance: dist,
      ...(taken ? { break: taken } : {}),
    });
  });
  return { ok: errors.length === 0, errors, violations, distance: total, vehicles, schedules };
}

/**
 * Pickup-and-delivery pairs: each pickup names a real, distinct delivery of its own; both are on the
 * same route, pickup first, or both are unassigned. Answers the pickup of each paired delivery.
 */
function checkPairs(
  problem: Problem,
  solution: Solution,
  errors: string[],
  violations: Violation[],
): Map<number, number> {
  const pickupOf = new Map<number, number>();
  const where = new Map<number, [number, number]>();
  solution.routes.forEach((r, v) => {
    r.forEach((j, i) => {
      where.set(j, [v, i]);
    });
  });
  problem.jobs.forEach((job, p) => {
    const q = job.delivery;
    if (q === undefined) return;
    if (
      !Number.isInteger(q) ||
      q < 0 ||
      q >= problem.jobs.length ||
      q === p ||
      problem.jobs[q]?.delivery !== undefined
    ) {
      errors.push(`job ${p}: no delivery ${q} to pair with`);
      return;
    }
    if (pickupOf.has(q)) errors.push(`job ${q} is the delivery of two pickups`);
    pickupOf.set(q, p);
    const a = where.get(p);
    const b = where.get(q);
    if (!a && !b) return;
    const split = !a || !b || a[0] !== b[0];
    if (split || (a as [number, number])[1] > (b as [number, number])[1]) {
      const [vehicle] = (a ?? b) as [number, number];
      errors.push(`pickup ${p} and delivery ${q}: ${split ? 'not on the same route' : 'delivered before picked up'}`);
      violations.push({ kind: 'pair', vehicle, job: b ? q : p, at: 0, limit: 0 });
    }
  });
  return pickupOf;
}
