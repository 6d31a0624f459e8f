import { buildModel, type Model } from './model.js';
import { aloneFeasible, search } from './search.js';
import type { Problem, Solution, SolveOptions, UnassignedReason } from './types.js';

export interface RunResult extends Solution {
  iterations: number;
}

/** Runs the search in the calling thread (the worker's body; tests may call it directly). */
export function runSolver(
  problem: Problem,
  o: Omit<SolveOptions, 'onProgress'> & { onProgress?: (p: number) => void },
): RunResult {
  const t0 = performance.now();
  const m = buildModel(problem);
  // Building the model (neighbour lists: O(n² log n)) counts against the time limit.
  const { best, iterations } = search(m, {
    timeLimitMs: Math.max(1, (o.timeLimitMs ?? 5000) - (performance.now() - t0)),
    maxIterations: o.maxIterations ?? Number.POSITIVE_INFINITY,
    seed: o.seed ?? 1,
    objective: o.objective ?? 'min_distance',
    onProgress: o.onProgress,
  });
  const routes = best.toArrays();
  const out = Array.from(best.out.subarray(0, best.nOut)).sort((a, b) => a - b);
  return { routes, unassigned: out.map((job) => ({ job, reason: reason(m, routes, job) })), iterations };
}

/**
 * Why a job was left out. A job no vehicle can serve alone says which constraint stops it; otherwise
 * we look at every place it could have gone: if one fails only on capacity, it is `capacity`; if one
 * fails only on returning before the shift end, it is `shift`; else its window is what stops it.
 */
function reason(m: Model, routes: number[][], j: number): UnassignedReason {
  const alone = aloneFeasible(m, j);
  if (alone) return alone;
  let shift = false;
  for (let v = 0; v < m.vehicles; v++) {
    const r = routes[v] ?? [];
    for (let p = 0; p <= r.length; p++) {
      const f = failures(m, v, [...r.slice(0, p), j, ...r.slice(p)]);
      if (f.capacity && !f.window && !f.shift) return 'capacity';
      if (f.shift && !f.window && !f.capacity) shift = true;
    }
  }
  return shift ? 'shift' : 'time_window';
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
  for (const j of route) {
    clock = Math.max(clock + (time[at * size + (m.loc[j] as number)] as number), m.ready[j] as number);
    if (clock > (m.due[j] as number)) window = true;
    clock += m.service[j] as number;
    at = m.loc[j] as number;
  }
  const shift = clock + (time[at * size + (m.vEnd[v] as number)] as number) > (m.vShiftEnd[v] as number);
  return { capacity, window, shift };
}
