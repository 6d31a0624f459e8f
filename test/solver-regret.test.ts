// Regret insertion (solver/regret.ts), one of recreate's ways: the job with the fewest good options
// goes in first, and whatever it inserts keeps every window and capacity.
import { describe, expect, it } from 'vitest';
import { check } from '../src/features/planning/solver/check.js';
import { buildModel } from '../src/features/planning/solver/model.js';
import { RegretInsertion } from '../src/features/planning/solver/regret.js';
import { Rng } from '../src/features/planning/solver/rng.js';
import { Routes } from '../src/features/planning/solver/routes.js';
import type { Problem } from '../src/features/planning/solver/types.js';
import { euclidean, lcg } from './solver-helpers.js';

const touched = () => {
  const seen = new Set<number>();
  return { seen, touch: (v: number) => void seen.add(v) };
};

describe('regret insertion', () => {
  // Depot (0,0); X (10,0) on vehicle 0, Y (0,10) on vehicle 1, each with room for one more parcel.
  // A (10,2) is cheapest beside X but fits beside Y too; B (5,0) must be served by 15, and vehicle 1
  // starts at 100: B fits only on vehicle 0. Greedy in the order A, B puts A beside X and leaves B out.
  const p: Problem = {
    size: 5,
    ...(() => {
      const m = euclidean([
        [0, 0],
        [10, 0],
        [0, 10],
        [10, 2],
        [5, 0],
      ]);
      return { time: m, distance: m };
    })(),
    jobs: [
      { location: 1, demand: [0], service: 0, ready: 0, due: 1000 },
      { location: 2, demand: [0], service: 0, ready: 0, due: 1000 },
      { location: 3, demand: [1], service: 0, ready: 0, due: 1000 },
      { location: 4, demand: [1], service: 0, ready: 0, due: 15 },
    ],
    vehicles: [
      { capacity: [1], shiftStart: 0, shiftEnd: 1000, startLocation: 0, endLocation: 0 },
      { capacity: [1], shiftStart: 100, shiftEnd: 1000, startLocation: 0, endLocation: 0 },
    ],
  };

  it('inserts the job with a single option first, so both fit where greedy order would lose one', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const s = new Routes(buildModel(p));
      s.insert(0, 0, 0);
      s.insert(1, 1, 0);
      const t = touched();
      new RegretInsertion(s.m, new Rng(seed)).run(s, Int32Array.of(2, 3), 2, false, t.touch);
      expect(s.nOut).toBe(0);
      // B beside X (on vehicle 0, before X: it is on the way), A with Y.
      const [r0, r1] = s.toArrays();
      expect(r0).toEqual([3, 0]);
      expect([...(r1 ?? [])].sort()).toEqual([1, 2]);
      expect([...t.seen].sort()).toEqual([0, 1]);
      const verdict = check(p, { routes: s.toArrays(), unassigned: [] });
      expect(verdict.errors).toEqual([]);
      expect(s.distance).toBeCloseTo(verdict.distance, 9);
    }
  });

  it('with near routes only, still finds a far route when the near ones cannot take the job', () => {
    // Depot (0,0); X (10,0) fills vehicle 0 (capacity 1); Y (0,50) on vehicle 1, room for one more.
    // A (11,0) has X as its nearest job, but only vehicle 1 can take it.
    const pts: [number, number][] = [
      [0, 0],
      [10, 0],
      [0, 50],
      [11, 0],
    ];
    const d = euclidean(pts);
    const far: Problem = {
      size: 4,
      time: d,
      distance: d,
      jobs: [1, 2, 3].map((location) => ({ location, demand: [1], service: 0, ready: 0, due: 1000 })),
      vehicles: [1, 2].map((c) => ({ capacity: [c], shiftStart: 0, shiftEnd: 1000, startLocation: 0, endLocation: 0 })),
    };
    const s = new Routes(buildModel(far));
    s.insert(0, 0, 0);
    s.insert(1, 1, 0);
    new RegretInsertion(s.m, new Rng(1), 1).run(s, Int32Array.of(2), 1, false, touched().touch);
    expect(s.nOut).toBe(0);
    expect(s.toArrays()[1]).toContain(2);
  });

  it('never puts a job in a route that lacks its skills when that route changes under it', () => {
    // Depot (0,0). Vehicle 0 (no skills) serves X (10,0); vehicles 1 and 2 (skill "x") serve Y (0,10)
    // and Z (0,-10). B (10,1) has one good route, vehicle 0, and goes first; A (10,2) needs "x", and
    // after B the cheapest place anywhere is beside B, on vehicle 0, which A may not take.
    const pts: [number, number][] = [
      [0, 0],
      [10, 0],
      [0, 10],
      [0, -10],
      [10, 1],
      [10, 2],
    ];
    const d = euclidean(pts);
    const job = (location: number, requirements: string[] = []) => ({
      location,
      demand: [0],
      service: 0,
      ready: 0,
      due: 1000,
      requirements,
    });
    const vehicle = (skills: string[]) => ({
      capacity: [10],
      shiftStart: 0,
      shiftEnd: 1000,
      startLocation: 0,
      endLocation: 0,
      skills,
    });
    const skilled: Problem = {
      size: pts.length,
      time: d,
      distance: d,
      jobs: [job(1), job(2), job(3), job(4), job(5, ['x'])],
      vehicles: [vehicle([]), vehicle(['x']), vehicle(['x'])],
    };
    for (let seed = 1; seed <= 20; seed++) {
      const s = new Routes(buildModel(skilled));
      s.insert(0, 0, 0);
      s.insert(1, 1, 0);
      s.insert(2, 2, 0);
      new RegretInsertion(s.m, new Rng(seed)).run(s, Int32Array.of(3, 4), 2, false, touched().touch);
      expect(s.nOut).toBe(0);
      expect(s.routeOf[4]).not.toBe(0);
      expect(check(skilled, { routes: s.toArrays(), unassigned: [] }).errors).toEqual([]);
    }
  });

  it.each([0, 3])('keeps every window and capacity, and leaves out only what fits nowhere (near %i)', (near) => {
    let blinked = 0;
    let outs = 0;
    for (let seed = 1; seed <= 30; seed++) {
      const rnd = lcg(seed);
      const n = 40;
      const pts: [number, number][] = [[50, 50]];
      for (let i = 0; i < n; i++) pts.push([rnd() * 100, rnd() * 100]);
      const m = euclidean(pts);
      const width = seed % 2 === 0 ? 60 : 400;
      const jobs = Array.from({ length: n }, (_, i) => {
        const ready = Math.floor(rnd() * (600 - width));
        return { location: i + 1, demand: [1 + Math.floor(rnd() * 3)], service: 5, ready, due: ready + width };
      });
      const vehicles = Array.from({ length: 6 }, () => ({
        capacity: [15],
        shiftStart: 0,
        shiftEnd: 800,
        startLocation: 0,
        endLocation: 0,
      }));
      const prob: Problem = { size: pts.length, time: m, distance: m, jobs, vehicles };
      const s = new Routes(buildModel(prob));
      const order = Int32Array.from({ length: n }, (_, j) => j);
      const allowNew = seed % 3 !== 0;
      // From nothing when new routes are allowed; else into two routes of a few jobs each.
      if (!allowNew) {
        s.insert(0, 0, 0);
        s.insert(1, 1, 0);
      }
      const first = allowNew ? 0 : 2;
      const t = touched();
      new RegretInsertion(s.m, new Rng(seed), near).run(s, order.subarray(first), n - first, allowNew, t.touch);
      const routes = s.toArrays();
      const out = Array.from(s.out.subarray(0, s.nOut));
      const left = (jobs: number[]) => jobs.map((job) => ({ job, reason: 'time_window' as const }));
      const verdict = check(prob, { routes, unassigned: left(out) });
      expect(verdict.errors).toEqual([]);
      expect(s.distance).toBeCloseTo(verdict.distance, 6);
      if (!allowNew) expect(s.used).toBe(2);
      expect(s.used).toBeGreaterThan(0);
      for (let v = 0; v < vehicles.length; v++) {
        if ((routes[v]?.length ?? 0) > 0 && !(v < 2 && !allowNew)) expect(t.seen.has(v)).toBe(true);
      }
      outs += out.length;
      // A job left out has no feasible place in any used route (blinks aside: none when every place is tried).
      for (const j of out) {
        for (let v = 0; v < vehicles.length; v++) {
          if ((routes[v]?.length ?? 0) === 0) continue;
          for (let at = 0; at <= (routes[v]?.length ?? 0); at++) {
            const trial = routes.map((r) => [...r]);
            trial[v]?.splice(at, 0, j);
            const fits =
              check(prob, { routes: trial, unassigned: left(out.filter((o) => o !== j)) }).errors.length === 0;
            // Blinks skip 1 % of places: a left-out job may have had one, rarely; count them.
            if (fits) blinked++;
          }
        }
      }
    }
    // Over 30 instances, places skipped by blinks that would have taken a left-out job stay rare.
    expect(outs).toBeGreaterThan(0);
    expect(blinked).toBeLessThanOrEqual(3);
  });
});
