// The granular local search's moves within a route (or-opt of 1–3 stops, 2-opt): on small routes,
// where every job is a neighbour of every other (11 jobs: each has the 10 others, ls.ts's GRANULAR),
// its local optimum must admit no improving feasible move of those kinds, found here by enumeration
// with a plain replay; on asymmetric matrices too (a reversed stretch costs its backward distance).
// With 14 jobs, as this test had until GRANULAR fell from 20 to 10, the premise failed and 300 seeds
// showed moves between jobs that are not neighbours; 15 seeds had not.
import { describe, expect, it } from 'vitest';
import { check } from '../src/features/planning/solver/check.js';
import { IntraRoute } from '../src/features/planning/solver/intra.js';
import { LocalSearch } from '../src/features/planning/solver/ls.js';
import { buildModel, type Model } from '../src/features/planning/solver/model.js';
import { Routes } from '../src/features/planning/solver/routes.js';
import type { Problem } from '../src/features/planning/solver/types.js';
import { lcg } from './solver-helpers.js';

/** One vehicle, n jobs at random points; `skew` > 0 makes the matrix asymmetric. */
function instance(seed: number, n: number, skew: number, tight: boolean): Problem {
  const rnd = lcg(seed);
  const pts: [number, number][] = [[50, 50]];
  for (let i = 0; i < n; i++) pts.push([rnd() * 100, rnd() * 100]);
  const size = n + 1;
  const m = new Float64Array(size * size);
  for (let a = 0; a < size; a++) {
    for (let b = 0; b < size; b++) {
      const [ax, ay] = pts[a] as [number, number];
      const [bx, by] = pts[b] as [number, number];
      m[a * size + b] = a === b ? 0 : Math.hypot(ax - bx, ay - by) * (1 + (a < b ? skew : 0));
    }
  }
  const jobs = Array.from({ length: n }, (_, i) => {
    const ready = tight ? Math.floor(rnd() * 600) : 0;
    return { location: i + 1, demand: [1], service: 5, ready, due: tight ? ready + 150 : 5000 };
  });
  return {
    size,
    time: m,
    distance: m,
    jobs,
    vehicles: [{ capacity: [n], shiftStart: 0, shiftEnd: 5000, startLocation: 0, endLocation: 0 }],
  };
}

/** Whether vehicle 0 serves `seq` in this order on time. */
function onTime(m: Model, seq: number[]): boolean {
  let at = m.vStart[0] as number;
  let clock = m.vShiftStart[0] as number;
  for (const j of seq) {
    clock = Math.max(clock + (m.time[at * m.size + (m.loc[j] as number)] as number), m.ready[j] as number);
    if (clock > (m.due[j] as number)) return false;
    clock += m.service[j] as number;
    at = m.loc[j] as number;
  }
  return clock + (m.time[at * m.size + (m.vEnd[0] as number)] as number) <= (m.vShiftEnd[0] as number);
}

function length(m: Model, seq: number[]): number {
  let at = m.vStart[0] as number;
  let d = 0;
  for (const j of seq) {
    d += m.dist[at * m.size + (m.loc[j] as number)] as number;
    at = m.loc[j] as number;
  }
  return d + (m.dist[at * m.size + (m.vEnd[0] as number)] as number);
}

/** Every or-opt (strings of 1–3, either way round) and 2-opt between two jobs of the route. */
function* moves(r: number[]): Generator<number[]> {
  const n = r.length;
  for (let k = 1; k <= 3; k++) {
    for (let a = 0; a + k <= n; a++) {
      const string = r.slice(a, a + k);
      const rest = [...r.slice(0, a), ...r.slice(a + k)];
      for (let x = 0; x <= rest.length; x++) {
        if (x === a) continue;
        // An insertion between the depot and itself (an empty rest) is no move of the local search.
        if (rest.length === 0) continue;
        yield [...rest.slice(0, x), ...string, ...rest.slice(x)];
        if (k > 1) yield [...rest.slice(0, x), ...[...string].reverse(), ...rest.slice(x)];
      }
    }
  }
  for (let lo = 0; lo < n; lo++) {
    for (let hi = lo + 2; hi < n; hi++) {
      yield [...r.slice(0, lo + 1), ...r.slice(lo + 1, hi + 1).reverse(), ...r.slice(hi + 1)];
    }
  }
}

describe('local search within a route', () => {
  for (const [name, skew, tight] of [
    ['wide windows', 0, false],
    ['tight windows', 0, true],
    ['an asymmetric matrix', 0.3, false],
    ['an asymmetric matrix and tight windows', 0.3, true],
  ] as const) {
    it(`leaves no improving or-opt or 2-opt move, with ${name}`, () => {
      for (let seed = 1; seed <= 300; seed++) {
        const p = instance(seed, 11, skew, tight);
        const m = buildModel(p);
        const s = new Routes(m);
        // A poor but feasible start: the jobs in a random order, each kept only if the route stays on time.
        const rnd = lcg(seed * 7 + 3);
        const order = Array.from({ length: m.n }, (_, j) => j).sort(() => rnd() - 0.5);
        const route: number[] = [];
        for (const j of order) if (onTime(m, [...route, j])) route.push(j);
        for (const j of route) s.insert(j, 0, s.len[0] as number);
        const before = s.distance;
        const ls = new LocalSearch(m);
        const saved = ls.improve(s, Int32Array.of(0), 1);
        const after = s.toArrays()[0] as number[];
        expect(after.length).toBe(route.length);
        expect(onTime(m, after)).toBe(true);
        expect(s.distance).toBeCloseTo(length(m, after), 6);
        expect(saved).toBeCloseTo(before - s.distance, 6);
        const d = length(m, after);
        for (const next of moves(after)) {
          if (length(m, next) < d - 1e-6 && onTime(m, next)) {
            throw new Error(`seed ${seed}: [${after}] → [${next}] saves ${d - length(m, next)}`);
          }
        }
        const verdict = check(p, { routes: [after], unassigned: [] });
        // Jobs left out of the start are reported as missing; the route itself must be feasible.
        expect(verdict.errors.filter((e) => !/not routed|unassigned|neither/i.test(e))).toEqual([]);
      }
    });
  }
});

// One call of the within-route search for a job u and a neighbour w must find a move whenever some
// or-opt of a string that ends at u (1–3 stops) or the 2-opt between them makes u and w adjacent,
// saves distance and stays on time; its quick time tests before the replay must never reject one.
describe('one within-route call', () => {
  /** The moves of intra.ts for u and w, by enumeration: every result that puts u next to w. */
  function* towards(r: number[], u: number, w: number): Generator<number[]> {
    const i = r.indexOf(u);
    const p = r.indexOf(w);
    for (let k = 1; k <= 3; k++) {
      for (const a of k === 1 ? [i] : [i, i - k + 1]) {
        if (a < 0 || a + k > r.length) continue;
        const string = r.slice(a, a + k);
        if (string.includes(w)) continue;
        const rest = [...r.slice(0, a), ...r.slice(a + k)];
        for (let x = 0; x <= rest.length; x++) {
          for (const s of k === 1 ? [string] : [string, [...string].reverse()]) {
            const next = [...rest.slice(0, x), ...s, ...rest.slice(x)];
            if (Math.abs(next.indexOf(u) - next.indexOf(w)) === 1) yield next;
          }
        }
      }
    }
    const lo = Math.min(i, p);
    const hi = Math.max(i, p);
    if (hi - lo >= 2) yield [...r.slice(0, lo + 1), ...r.slice(lo + 1, hi + 1).reverse(), ...r.slice(hi + 1)];
  }

  for (const [name, skew] of [
    ['a symmetric matrix', 0],
    ['an asymmetric matrix', 0.3],
  ] as const) {
    it(`finds a move whenever one exists, with tight windows and ${name}`, () => {
      let found = 0;
      for (let seed = 1; seed <= 60; seed++) {
        const p = instance(seed, 12, skew, true);
        const m = buildModel(p);
        const s = new Routes(m);
        const rnd = lcg(seed * 11 + 5);
        const order = Array.from({ length: m.n }, (_, j) => j).sort(() => rnd() - 0.5);
        const route: number[] = [];
        for (const j of order) if (onTime(m, [...route, j])) route.push(j);
        for (const j of route) s.insert(j, 0, s.len[0] as number);
        const intra = new IntraRoute(m);
        intra.index(s, 0);
        const d = length(m, route);
        for (const u of route) {
          for (const w of route) {
            if (u === w) continue;
            const exists = [...towards(route, u, w)].some((r) => length(m, r) < d - 1e-6 && onTime(m, r));
            const c = intra.improve(s, u, w);
            if (c >= 0) {
              const next = Array.from(intra.seq.subarray(0, c));
              expect(onTime(m, next)).toBe(true);
              expect(length(m, next)).toBeLessThan(d);
              found++;
            } else if (exists) throw new Error(`seed ${seed}: [${route}], u ${u}, w ${w}: a move exists`);
          }
        }
      }
      // The instances do offer moves (a search that never finds one would pass the loop above).
      expect(found).toBeGreaterThan(100);
    });
  }
});
