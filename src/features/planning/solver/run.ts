import { INFEASIBLE, NO_BREAK, schedule } from './constrained.js';
import { buildModel, type Model } from './model.js';
import type { Routes } from './routes.js';
import { aloneFeasible, type SearchOptions, search } from './search.js';
import type { Problem, Solution, SolveOptions, UnassignedReason } from './types.js';

export interface RunResult extends Solution {
  iterations: number;
}

/**
 * The `balanced` objective's price: its routes may be at most this much longer in total than the
 * distance objective's answer found in the same run; beyond that the distance answer is returned.
 */
export const BALANCE_BOUND = 0.2;

/** Runs the search in the calling thread (the worker's body; tests may call it directly). */
export function runSolver(
  problem: Problem,
  o: Omit<SolveOptions, 'onProgress'> & { onProgress?: (p: number) => void },
): RunResult {
  const t0 = performance.now();
  const m = buildModel(problem);
  // Building the model (neighbour lists: O(n² log n)) counts against the time limit.
  const base: SearchOptions = {
    timeLimitMs: Math.max(1, (o.timeLimitMs ?? 5000) - (performance.now() - t0)),
    maxIterations: o.maxIterations ?? Number.POSITIVE_INFINITY,
    seed: o.seed ?? 1,
    objective: o.objective === 'min_vehicles' ? 'min_vehicles' : 'min_distance',
    onProgress: o.onProgress,
  };
  const { best, iterations } = o.objective === 'balanced' ? balanced(m, base) : search(m, base);
  const routes = best.toArrays();
  const out = Array.from(best.out.subarray(0, best.nOut)).sort((a, b) => a - b);
  const result: RunResult = {
    routes,
    unassigned: out.map((job) => ({ job, reason: reason(m, routes, job) })),
    iterations,
  };
  if (problem.vehicles.some((v) => v.break)) result.breaks = routes.map((r, v) => breakOf(m, v, r));
  return result;
}

/**
 * Even work across vehicles: first the shortest routes (40 % of the budget), then the same search
 * with every route capped at an even share of the stops served, then (if that costs more than
 * BALANCE_BOUND in distance, or serves fewer) with a looser cap. The first answer within the bound
 * wins; none within it gives the shortest routes.
 */
function balanced(m: Model, o: SearchOptions): { best: Routes; iterations: number } {
  const part = (f: number): SearchOptions => ({
    ...o,
    timeLimitMs: Math.max(1, o.timeLimitMs * f),
    maxIterations: Number.isFinite(o.maxIterations) ? Math.max(1, Math.round(o.maxIterations * f)) : o.maxIterations,
    onProgress: undefined,
  });
  const first = search(m, part(0.4));
  let iterations = first.iterations;
  const served = m.n - first.best.nOut;
  const share = Math.ceil(served / Math.max(1, m.vehicles));
  let longest = 0;
  for (let v = 0; v < m.vehicles; v++) longest = Math.max(longest, first.best.len[v] as number);
  if (longest <= share) return first;
  const limits = Float64Array.from(m.vMaxJobs);
  for (const cap of [share, share + Math.max(1, Math.ceil(share * 0.2))]) {
    if (cap >= longest) break;
    for (let v = 0; v < m.vehicles; v++) m.vMaxJobs[v] = Math.min(limits[v] as number, cap);
    const r = search(m, part(0.3));
    m.vMaxJobs.set(limits);
    iterations += r.iterations;
    if (r.best.penalty <= first.best.penalty && r.best.distance <= (1 + BALANCE_BOUND) * first.best.distance + 1e-9) {
      return { best: r.best, iterations };
    }
  }
  return { best: first.best, iterations };
}

/**
 * Where each vehicle takes its break on routes made elsewhere (a plan's edit), as the solver would:
 * null for a route that needs none, or on which no place for it keeps the route feasible.
 */
export function placeBreaks(problem: Problem, routes: number[][]): (number | null)[] {
  const m = buildModel(problem);
  return routes.map((r, v) => breakOf(m, v, r));
}

/** Where vehicle v takes its break on this route (after how many jobs), or null. */
function breakOf(m: Model, v: number, route: number[]): number | null {
  if (route.length === 0 || Number.isNaN(m.vBreak[v * 3] as number)) return null;
  const at = schedule(m, v, Int32Array.from(route), route.length);
  return at === NO_BREAK || at === INFEASIBLE ? null : at;
}

/**
 * Why a job was left out. A job no vehicle can serve alone says which constraint stops it; otherwise
 * we look at every place it could have gone: if one fails only on capacity, it is `capacity`; if one
 * fails only on a route limit (stops, distance, or a break), `route_limit`; if one fails only on
 * returning before the shift end, `shift`; else its window is what stops it.
 */
function reason(m: Model, routes: number[][], j: number): UnassignedReason {
  const alone = aloneFeasible(m, j);
  if (alone) return alone;
  let shift = false;
  let limit = false;
  for (let v = 0; v < m.vehicles; v++) {
    if (m.allowed !== null && m.allowed[j * m.vehicles + v] === 0) continue;
    const r = routes[v] ?? [];
    for (let p = 0; p <= r.length; p++) {
      const f = failures(m, v, [...r.slice(0, p), j, ...r.slice(p)]);
      if (f.capacity && !f.window && !f.shift && !f.limit) return 'capacity';
      if (f.shift && !f.window && !f.capacity) shift = true;
      if (f.limit && !f.window && !f.capacity && !f.shift) limit = true;
    }
  }
  return limit ? 'route_limit' : shift ? 'shift' : 'time_window';
}

function failures(m: Model, v: number, route: number[]) {
  const { time, size, dims: K } = m;
  let capacity = false;
  for (let d = 0; d < K; d++) {
    let load = 0;
    for (const j of route) load += m.demand[j * K + d] as number;
    if (load > (m.cap[v * K + d] as number)) capacity = true;
  }
  let window = false;
  let at = m.vStart[v] as number;
  let clock = m.vShiftStart[v] as number;
  let dist = 0;
  for (const j of route) {
    clock = Math.max(clock + (time[at * size + (m.loc[j] as number)] as number), m.ready[j] as number);
    dist += m.dist[at * size + (m.loc[j] as number)] as number;
    if (clock > (m.due[j] as number)) window = true;
    clock += m.service[j] as number;
    at = m.loc[j] as number;
  }
  dist += m.dist[at * size + (m.vEnd[v] as number)] as number;
  const back = clock + (time[at * size + (m.vEnd[v] as number)] as number);
  const shift = back > (m.vShiftClose[v] as number);
  let limit =
    route.length > (m.vMaxJobs[v] as number) || dist > (m.vMaxDist[v] as number) || back > (m.vShiftEnd[v] as number);
  // Feasible but for the break (or a pair's order): the route's limits are what stop it.
  if (!window && !shift && m.constrained) limit ||= schedule(m, v, Int32Array.from(route), route.length) === INFEASIBLE;
  return { capacity, window, shift, limit };
}
