// The pair insertion's screen (livedispatch/insertion.ts) against every place timed by the checker:
// on lanes where only distance and windows decide, the screened choice is the cheapest feasible one.
import { describe, expect, it } from 'vitest';
import { bestPairInsertion, compareInsertions, type Insertion } from '../src/features/livedispatch/insertion.js';
import { checkLane } from '../src/features/livedispatch/lanes.js';
import type { Problem } from '../src/features/planning/solver/index.js';

function lane(seed: number, k: number, windows: boolean): Problem {
  let s = seed;
  const rnd = () => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return s / 2 ** 31;
  };
  // Places: 0 start, 1 end, then one per job (k stops, the pickup, its delivery).
  const pts = Array.from({ length: k + 4 }, () => [rnd() * 20, rnd() * 20] as const);
  const n = pts.length;
  const m = new Float64Array(n * n);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++) m[i * n + j] = Math.hypot(pts[i]![0] - pts[j]![0], pts[i]![1] - pts[j]![1]);
  const jobs = Array.from({ length: k + 2 }, (_, j) => {
    const ready = windows ? Math.floor(rnd() * 60) : 0;
    return { location: j + 2, demand: [1], service: 2, ready, due: windows ? ready + 40 + rnd() * 80 : 1e6 };
  });
  jobs[k] = { ...jobs[k]!, ready: 0, due: 1e6, delivery: k + 1 } as never;
  return {
    size: n,
    time: m,
    distance: m,
    jobs,
    vehicles: [{ capacity: [100], shiftStart: 0, shiftEnd: 1e6, startLocation: 0, endLocation: 1 }],
  };
}

/** Every place of the pair, each timed by the checker: the reference. */
function exhaustive(p: Problem): Insertion {
  const k = p.jobs.length - 2;
  const cur = Array.from({ length: k }, (_, i) => i);
  const base = checkLane(p, cur, [
    { job: k, reason: 'shift' },
    { job: k + 1, reason: 'shift' },
  ]);
  const already = new Set(base.violations.map((v) => `${v.kind}${v.job}`));
  let best: Insertion | undefined;
  for (let i = 0; i <= k; i++)
    for (let j = i; j <= k; j++) {
      const r = checkLane(p, [...cur.slice(0, i), k, ...cur.slice(i, j), k + 1, ...cur.slice(j)]);
      const c: Insertion = {
        at: j,
        pickupAt: i,
        addedDistance: r.distance - base.distance,
        addedTime: 0,
        broken: r.violations.filter((v) => !already.has(`${v.kind}${v.job}`)),
        stops: [],
        before: new Map(),
        end: 0,
      };
      if (!best || compareInsertions({ ...c, addedTime: 0 }, { ...best, addedTime: 0 }) < 0) best = c;
    }
  return best as Insertion;
}

describe('pair insertion', () => {
  it('without windows, the screen finds the shortest detour the checker finds', () => {
    for (let seed = 1; seed <= 30; seed++) {
      const p = lane(seed, 1 + (seed % 12), false);
      const got = bestPairInsertion({ problem: p });
      const ref = exhaustive(p);
      expect(got.broken).toEqual([]);
      expect(got.addedDistance).toBeCloseTo(ref.addedDistance, 9);
      const stops = got.stops.map((x) => x.job);
      const k = p.jobs.length - 2;
      expect(stops.indexOf(k)).toBeLessThan(stops.indexOf(k + 1));
    }
  });

  it('with windows, a feasible place is found whenever the checker finds one', () => {
    for (let seed = 1; seed <= 30; seed++) {
      const p = lane(seed * 7, 2 + (seed % 8), true);
      const ref = exhaustive(p);
      const got = bestPairInsertion({ problem: p });
      if (ref.broken.length === 0) {
        expect(got.broken, `seed ${seed}`).toEqual([]);
        expect(got.addedDistance).toBeGreaterThanOrEqual(ref.addedDistance - 1e-9);
      }
    }
  });
});
