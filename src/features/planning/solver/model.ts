import type { Problem } from './types.js';

// The problem flattened into typed arrays once, so the search reads numbers by index and never
// touches the objects of types.ts in its inner loops.

export interface Model {
  n: number;
  vehicles: number;
  /** Capacity dimensions. */
  dims: number;
  size: number;
  time: Float64Array;
  dist: Float64Array;
  loc: Int32Array;
  ready: Float64Array;
  due: Float64Array;
  service: Float64Array;
  /** n × dims */
  demand: Float64Array;
  /** Cost of leaving a job out, compared before distance; one job of priority k+1 outweighs all jobs of priority ≤ k. */
  penalty: Float64Array;
  vStart: Int32Array;
  vEnd: Int32Array;
  vShiftStart: Float64Array;
  vShiftEnd: Float64Array;
  /** vehicles × dims */
  cap: Float64Array;
  /** Vehicles with the same class are interchangeable, so only one empty one of a class is tried. */
  vClass: Int32Array;
  /** Nearest other jobs of each job, `neighbours` per row (SISR picks the routes to ruin from these). */
  adj: Int32Array;
  neighbours: number;
  /** A typical edge length: the scale of the annealing temperature. */
  edge: number;
}

const MAX_NEIGHBOURS = 100;

export function buildModel(p: Problem): Model {
  const n = p.jobs.length;
  const V = p.vehicles.length;
  const dims = Math.max(1, ...p.vehicles.map((v) => v.capacity.length), ...p.jobs.map((j) => j.demand.length));
  const size = p.size;
  if (p.time.length !== size * size || p.distance.length !== size * size) {
    throw new Error(`the matrices must hold size × size = ${size * size} entries`);
  }
  const m: Model = {
    n,
    vehicles: V,
    dims,
    size,
    time: p.time,
    dist: p.distance,
    loc: new Int32Array(n),
    ready: new Float64Array(n),
    due: new Float64Array(n),
    service: new Float64Array(n),
    demand: new Float64Array(n * dims),
    penalty: new Float64Array(n),
    vStart: new Int32Array(V),
    vEnd: new Int32Array(V),
    vShiftStart: new Float64Array(V),
    vShiftEnd: new Float64Array(V),
    cap: new Float64Array(V * dims),
    vClass: new Int32Array(V),
    adj: new Int32Array(0),
    neighbours: 0,
    edge: 1,
  };
  let maxD = 0;
  for (let i = 0; i < p.distance.length; i++) maxD = Math.max(maxD, p.distance[i] as number);
  // Solutions compare by (unassigned penalty, distance), lexicographically, so a penalty needs no
  // distance scale. Weights grow by (n+1) per priority level; levels stop at 3 so sums stay exact.
  p.jobs.forEach((j, i) => {
    if (j.location < 0 || j.location >= size) throw new Error(`job ${i}: location out of range`);
    m.loc[i] = j.location;
    m.ready[i] = j.ready;
    m.due[i] = j.due;
    m.service[i] = j.service;
    for (let d = 0; d < dims; d++) m.demand[i * dims + d] = j.demand[d] ?? 0;
    const level = Math.min(3, Math.max(0, Math.floor(j.priority ?? 0)));
    m.penalty[i] = (n + 1) ** level;
  });
  const classes = new Map<string, number>();
  p.vehicles.forEach((v, i) => {
    if (v.startLocation < 0 || v.startLocation >= size || v.endLocation < 0 || v.endLocation >= size) {
      throw new Error(`vehicle ${i}: location out of range`);
    }
    m.vStart[i] = v.startLocation;
    m.vEnd[i] = v.endLocation;
    m.vShiftStart[i] = v.shiftStart;
    m.vShiftEnd[i] = v.shiftEnd;
    for (let d = 0; d < dims; d++) m.cap[i * dims + d] = v.capacity[d] ?? 0;
    const key = JSON.stringify([v.capacity, v.shiftStart, v.shiftEnd, v.startLocation, v.endLocation]);
    if (!classes.has(key)) classes.set(key, classes.size);
    m.vClass[i] = classes.get(key) as number;
  });
  const k = Math.min(MAX_NEIGHBOURS, Math.max(0, n - 1));
  m.neighbours = k;
  m.adj = new Int32Array(n * k);
  // Symmetrised distance to every other job, computed once per row and sorted by key, not by closure.
  const key = new Float64Array(n);
  const order = Array.from({ length: n }, (_, i) => i);
  let edgeSum = 0;
  for (let i = 0; i < n; i++) {
    const li = m.loc[i] as number;
    for (let j = 0; j < n; j++) {
      const lj = m.loc[j] as number;
      key[j] =
        j === i
          ? Number.POSITIVE_INFINITY
          : (p.distance[li * size + lj] as number) + (p.distance[lj * size + li] as number);
    }
    order.sort((a, b) => (key[a] as number) - (key[b] as number) || a - b);
    for (let r = 0; r < k; r++) m.adj[i * k + r] = order[r] as number;
    if (k > 0) edgeSum += (key[order[Math.min(k - 1, 4)] as number] as number) / 2;
  }
  m.edge = n > 0 && edgeSum > 0 ? edgeSum / n : Math.max(1, maxD / 10);
  return m;
}
