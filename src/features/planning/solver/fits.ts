import type { Model } from './model.js';
import type { Routes } from './routes.js';

// The O(1) feasibility tests shared by the local search (ls.ts) and route minimisation (eject.ts):
// both move one job into a route whose earliest (`es`) and latest (`ls`) service starts are up to
// date. Recreate (greedy.ts) inlines its own on purpose: its scan is the hottest loop of the search.

/** Capacity sums may round: a load within this much of the capacity fits. */
export const CAP_EPS = 1e-9;

/**
 * Whether job j, driven to from location a after leaving it at time `leave`, starts within its
 * window and still reaches the stop at index `next` of s's arrays (route base plus position) by that
 * stop's latest start.
 */
export function timeFits(m: Model, s: Routes, a: number, leave: number, j: number, next: number): boolean {
  const lj = m.loc[j] as number;
  let t = leave + (m.time[a * m.size + lj] as number);
  if (t < (m.ready[j] as number)) t = m.ready[j] as number;
  if (t > (m.due[j] as number)) return false;
  return (
    t + (m.service[j] as number) + (m.time[lj * m.size + (s.loc[next] as number)] as number) <= (s.ls[next] as number)
  );
}

/** Whether route v's load, with job `add` and without jobs `rem1` and `rem2` (-1: none), fits its capacity. */
export function loadFits(m: Model, s: Routes, v: number, add: number, rem1: number, rem2: number): boolean {
  const K = m.dims;
  for (let d = 0; d < K; d++) {
    let q = s.load[v * K + d] as number;
    if (add >= 0) q += m.demand[add * K + d] as number;
    if (rem1 >= 0) q -= m.demand[rem1 * K + d] as number;
    if (rem2 >= 0) q -= m.demand[rem2 * K + d] as number;
    if (q > (m.cap[v * K + d] as number) + CAP_EPS) return false;
  }
  return true;
}
