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
  /** The shift's own end (`vShiftEnd` is the earlier of it and the maximum duration's), to name what stops a job. */
  vShiftClose: Float64Array;
  /** vehicles × dims */
  cap: Float64Array;
  /** Vehicles with the same class are interchangeable, so only one empty one of a class is tried. */
  vClass: Int32Array;
  /** Nearest other jobs of each job, `neighbours` per row (SISR picks the routes to ruin from these). */
  adj: Int32Array;
  neighbours: number;
  /** A typical edge length: the scale of the annealing temperature. */
  edge: number;
  /** n × vehicles: 1 where the vehicle has every skill the job requires; null when no job requires any. */
  allowed: Uint8Array | null;
  /** Per vehicle: most jobs and most distance (Infinity: none). A maximum duration is folded into `vShiftEnd`. */
  vMaxJobs: Float64Array;
  vMaxDist: Float64Array;
  /** vehicles × 3: earliest, latest start and duration of the vehicle's break; NaN when it has none. */
  vBreak: Float64Array;
  /** The pickup's delivery and the delivery's pickup; -1 for plain jobs. */
  partner: Int32Array;
  isPickup: Uint8Array;
  hasPairs: boolean;
  /** Breaks or pairs: an insertion is then confirmed by a whole-route check (constrained.ts) after the O(1) tests. */
  constrained: boolean;
}

const MAX_NEIGHBOURS = 100;

export function buildModel(p: Problem): Model {
  const n = p.jobs.length;
  const V = p.vehicles.length;
  const dims = Math.max(1, ...p.vehicles.map((v) => v.capacity.length), ...p.jobs.map((j) => j.demand.length));
  if (p.time.length !== p.size * p.size || p.distance.length !== p.size * p.size) {
    throw new Error(`the matrices must hold size × size = ${p.size * p.size} entries`);
  }
  // An open end is one more place, at no time or distance from anywhere: the solver's code stays the same.
  const open = p.vehicles.some((v) => v.openEnd);
  const size = open ? p.size + 1 : p.size;
  const time = open ? widen(p.time, p.size) : p.time;
  const distance = open ? widen(p.distance, p.size) : p.distance;
  const skillBit = new Map<string, number>();
  for (const j of p.jobs) for (const r of j.requirements ?? []) if (!skillBit.has(r)) skillBit.set(r, skillBit.size);
  const m: Model = {
    n,
    vehicles: V,
    dims,
    size,
    time,
    dist: distance,
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
    vShiftClose: new Float64Array(V),
    cap: new Float64Array(V * dims),
    vClass: new Int32Array(V),
    adj: new Int32Array(0),
    neighbours: 0,
    edge: 1,
    allowed: skillBit.size > 0 ? new Uint8Array(n * V) : null,
    vMaxJobs: new Float64Array(V),
    vMaxDist: new Float64Array(V),
    vBreak: new Float64Array(V * 3),
    partner: new Int32Array(n).fill(-1),
    isPickup: new Uint8Array(n),
    hasPairs: false,
    constrained: false,
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
    const q = j.delivery;
    if (q !== undefined) {
      if (
        !Number.isInteger(q) ||
        q < 0 ||
        q >= n ||
        q === i ||
        p.jobs[q]?.delivery !== undefined ||
        m.partner[q] !== -1
      ) {
        throw new Error(`job ${i}: delivery ${q} is not a job of its own`);
      }
      m.partner[i] = q;
      m.partner[q] = i;
      m.isPickup[i] = 1;
      m.hasPairs = true;
    }
    const level = Math.min(3, Math.max(0, Math.floor(j.priority ?? 0)));
    m.penalty[i] = (n + 1) ** level;
  });
  // A pair's load is its pickup's demand, counted once, at the pickup, in the routes' load sums:
  // then a route whose sum fits fits at every stop (conservative: space freed by a pair's delivery
  // is not reused). The delivery's own demand is not used.
  for (let i = 0; i < n; i++) {
    if ((m.partner[i] as number) >= 0 && m.isPickup[i] === 0) for (let d = 0; d < dims; d++) m.demand[i * dims + d] = 0;
  }
  const classes = new Map<string, number>();
  p.vehicles.forEach((v, i) => {
    if (v.startLocation < 0 || v.startLocation >= size || v.endLocation < 0 || v.endLocation >= size) {
      throw new Error(`vehicle ${i}: location out of range`);
    }
    m.vStart[i] = v.startLocation;
    m.vEnd[i] = v.openEnd ? size - 1 : v.endLocation;
    m.vShiftStart[i] = v.shiftStart;
    m.vShiftEnd[i] = Math.min(v.shiftEnd, v.shiftStart + (v.maxDuration ?? Number.POSITIVE_INFINITY));
    m.vShiftClose[i] = v.shiftEnd;
    m.vMaxJobs[i] = v.maxJobs ?? Number.POSITIVE_INFINITY;
    m.vMaxDist[i] = v.maxDistance ?? Number.POSITIVE_INFINITY;
    m.vBreak[i * 3] = v.break ? v.break.earliest : Number.NaN;
    m.vBreak[i * 3 + 1] = v.break ? v.break.latest : Number.NaN;
    m.vBreak[i * 3 + 2] = v.break ? v.break.duration : Number.NaN;
    if (v.break) m.constrained = true;
    for (let d = 0; d < dims; d++) m.cap[i * dims + d] = v.capacity[d] ?? 0;
    if (m.allowed) {
      const has = new Set(v.skills ?? []);
      for (let j = 0; j < n; j++)
        m.allowed[j * V + i] = (p.jobs[j]?.requirements ?? []).every((r) => has.has(r)) ? 1 : 0;
    }
    const skills = [...new Set(v.skills ?? [])].filter((s) => skillBit.has(s)).sort();
    const key = JSON.stringify([
      v.capacity,
      v.shiftStart,
      m.vShiftEnd[i],
      v.startLocation,
      m.vEnd[i],
      v.maxJobs,
      v.maxDistance,
      v.break,
      skills,
    ]);
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
          : (distance[li * size + lj] as number) + (distance[lj * size + li] as number);
    }
    order.sort((a, b) => (key[a] as number) - (key[b] as number) || a - b);
    for (let r = 0; r < k; r++) m.adj[i * k + r] = order[r] as number;
    if (k > 0) edgeSum += (key[order[Math.min(k - 1, 4)] as number] as number) / 2;
  }
  m.edge = n > 0 && edgeSum > 0 ? edgeSum / n : Math.max(1, maxD / 10);
  m.constrained = m.constrained || m.hasPairs;
  return m;
}

/** The matrix with one more row and column of zeros (the open end). */
function widen(a: Float64Array, size: number): Float64Array {
  const out = new Float64Array((size + 1) * (size + 1));
  for (let r = 0; r < size; r++) out.set(a.subarray(r * size, r * size + size), r * (size + 1));
  return out;
}
