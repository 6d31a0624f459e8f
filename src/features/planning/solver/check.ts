import type { Problem, RouteSchedule, Solution, StopTimes, UnassignedReason } from './types.js';

// The feasibility checker: deliberately plain code that shares nothing with the solver's incremental
// arrays, so a bug in those cannot also hide here. Every solution the solver returns goes through it.

/**
 * A broken constraint of a route, tied to the stop where it shows: the stop served after its due
 * time, the first stop whose cumulative load passes a capacity, the last stop when the vehicle is
 * back after its shift. `at` and `limit` are in the problem's units (time, or load of `dimension`).
 */
export interface Violation {
  kind: UnassignedReason;
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

  const { size, time, distance } = problem;
  let total = 0;
  let vehicles = 0;
  const schedules: RouteSchedule[] = [];
  solution.routes.forEach((route, v) => {
    const vehicle = problem.vehicles[v];
    if (!vehicle || route.length === 0) return;
    vehicles++;
    const load = vehicle.capacity.map(() => 0);
    for (const j of route) {
      const job = problem.jobs[j];
      if (!job) return;
      job.demand.forEach((q, d) => {
        load[d] = (load[d] ?? 0) + q;
      });
    }
    load.forEach((l, d) => {
      if (l > (vehicle.capacity[d] ?? 0) + EPS) {
        errors.push(`route ${v}: load ${l} exceeds capacity ${vehicle.capacity[d]} in dimension ${d}`);
      }
    });
    let at = vehicle.startLocation;
    let clock = vehicle.shiftStart;
    let dist = 0;
    const carried = vehicle.capacity.map(() => 0);
    const stops: StopTimes[] = [];
    for (const j of route) {
      const job = problem.jobs[j] as (typeof problem.jobs)[number];
      const arrival = clock + (time[at * size + job.location] ?? Number.NaN);
      dist += distance[at * size + job.location] ?? Number.NaN;
      const serviceStart = Math.max(arrival, job.ready);
      if (serviceStart > job.due + EPS) {
        errors.push(`route ${v}: job ${j} starts at ${serviceStart}, after its due time ${job.due}`);
        violations.push({ kind: 'time_window', vehicle: v, job: j, at: serviceStart, limit: job.due });
      }
      job.demand.forEach((q, d) => {
        const before = carried[d] ?? 0;
        carried[d] = before + q;
        const cap = vehicle.capacity[d] ?? 0;
        // Everything is loaded at the start: the stop that first takes the sum past the capacity is the one that does not fit.
        if (before <= cap + EPS && before + q > cap + EPS) {
          violations.push({ kind: 'capacity', vehicle: v, job: j, at: before + q, limit: cap, dimension: d });
        }
      });
      clock = serviceStart + job.service;
      stops.push({ job: j, arrival, serviceStart, departure: clock, load: [...carried] });
      at = job.location;
    }
    const end = clock + (time[at * size + vehicle.endLocation] ?? Number.NaN);
    dist += distance[at * size + vehicle.endLocation] ?? Number.NaN;
    if (!(end <= vehicle.shiftEnd + EPS)) {
      errors.push(`route ${v}: back at ${end}, after the shift end ${vehicle.shiftEnd}`);
      violations.push({
        kind: 'shift',
        vehicle: v,
        job: route[route.length - 1] as number,
        at: end,
        limit: vehicle.shiftEnd,
      });
    }
    total += dist;
    schedules.push({ vehicle: v, stops, start: vehicle.shiftStart, end, distance: dist });
  });
  return { ok: errors.length === 0, errors, violations, distance: total, vehicles, schedules };
}
