// The optimizer against optima found by enumeration, and its contract: deterministic for a seed and
// an iteration count, unassigned jobs with their reasons, priorities, the fleet objective, the worker.
import { describe, expect, it } from 'vitest';
import { check } from '../src/features/planning/solver/check.js';
import { runSolver } from '../src/features/planning/solver/run.js';
import { solve } from '../src/features/planning/solver/solve.js';
import type { Job, Problem, Vehicle } from '../src/features/planning/solver/types.js';
import { euclidean, lcg } from './solver-helpers.js';

/** Points in a 100 × 100 square, location 0 the depot; Euclidean time and distance. */
function euclid(points: [number, number][], jobs: Omit<Job, 'location'>[], vehicles: Vehicle[]): Problem {
  const m = euclidean(points);
  return { size: points.length, time: m, distance: m, jobs: jobs.map((j, i) => ({ ...j, location: i + 1 })), vehicles };
}

function randomInstance(seed: number, n: number, fleet: number): Problem {
  const rnd = lcg(seed);
  const points: [number, number][] = [[50, 50]];
  const jobs: Omit<Job, 'location'>[] = [];
  for (let i = 0; i < n; i++) {
    points.push([rnd() * 100, rnd() * 100]);
    const ready = rnd() < 0.5 ? 0 : Math.floor(rnd() * 150);
    jobs.push({
      demand: [1 + Math.floor(rnd() * 4), 1 + Math.floor(rnd() * 20)],
      service: 10,
      ready,
      due: ready + 40 + Math.floor(rnd() * 120),
    });
  }
  const vehicle: Vehicle = { capacity: [9, 60], shiftStart: 0, shiftEnd: 400, startLocation: 0, endLocation: 0 };
  return euclid(
    points,
    jobs,
    Array.from({ length: fleet }, () => ({ ...vehicle })),
  );
}

/**
 * The shortest total distance serving every job, by enumeration: every order of the jobs, cut into
 * at most `fleet` consecutive routes (vehicles are identical). Infinity when nothing is feasible.
 */
function bruteForce(p: Problem): number {
  const n = p.jobs.length;
  const fleet = p.vehicles.length;
  let best = Number.POSITIVE_INFINITY;
  const perm = Array.from({ length: n }, (_, i) => i);
  const visit = (k: number) => {
    if (k === n) {
      for (let cuts = 0; cuts < 1 << (n - 1); cuts++) {
        let routes = 1;
        for (let c = cuts; c; c &= c - 1) routes++;
        if (routes > fleet) continue;
        const split: number[][] = [[]];
        perm.forEach((j, i) => {
          if (i > 0 && cuts & (1 << (i - 1))) split.push([]);
          split[split.length - 1]?.push(j);
        });
        while (split.length < fleet) split.push([]);
        const r = check(p, { routes: split, unassigned: [] });
        if (r.ok && r.distance < best) best = r.distance;
      }
      return;
    }
    for (let i = k; i < n; i++) {
      [perm[k], perm[i]] = [perm[i] as number, perm[k] as number];
      visit(k + 1);
      [perm[k], perm[i]] = [perm[i] as number, perm[k] as number];
    }
  };
  visit(0);
  return best;
}

describe('route optimizer', () => {
  it('finds the optimum that enumeration finds, on small instances with windows and two capacities', () => {
    for (const [seed, n, fleet] of [
      [1, 6, 2],
      [2, 7, 2],
      [3, 7, 3],
      [4, 8, 2],
      [5, 6, 3],
    ] as const) {
      const p = randomInstance(seed, n, fleet);
      const optimum = bruteForce(p);
      const r = runSolver(p, { maxIterations: 3000, timeLimitMs: 600_000, seed: 1 });
      const verdict = check(p, r);
      expect(verdict.errors).toEqual([]);
      if (Number.isFinite(optimum)) {
        expect(r.unassigned, `instance ${seed}`).toEqual([]);
        expect(verdict.distance, `instance ${seed}`).toBeCloseTo(optimum, 6);
      } else {
        expect(r.unassigned.length, `instance ${seed}`).toBeGreaterThan(0);
      }
    }
  }, 120_000);

  it('gives identical routes for the same seed and iteration count', () => {
    const p = randomInstance(42, 40, 8);
    const a = runSolver(p, { maxIterations: 400, timeLimitMs: 600_000, seed: 7 });
    const b = runSolver(p, { maxIterations: 400, timeLimitMs: 600_000, seed: 7 });
    expect(a.iterations).toBe(400);
    expect(b.routes).toEqual(a.routes);
    expect(b.unassigned).toEqual(a.unassigned);
    expect(check(p, a).ok).toBe(true);
  });

  it('leaves out what cannot be served, each with its reason', () => {
    const v: Vehicle = { capacity: [10], shiftStart: 0, shiftEnd: 100, startLocation: 0, endLocation: 0 };
    const p = euclid(
      [
        [0, 0],
        [10, 0],
        [20, 0],
        [30, 0],
        [40, 0],
      ],
      [
        { demand: [3], service: 1, ready: 0, due: 100 }, // fine
        { demand: [11], service: 1, ready: 0, due: 100 }, // heavier than any vehicle
        { demand: [1], service: 1, ready: 0, due: 25 }, // 30 away, window closes at 25
        { demand: [1], service: 30, ready: 50, due: 60 }, // reachable, but back at 120 > 100
      ],
      [v],
    );
    const r = runSolver(p, { maxIterations: 50, timeLimitMs: 600_000 });
    expect(r.routes).toEqual([[0]]);
    expect(r.unassigned).toEqual([
      { job: 1, reason: 'capacity' },
      { job: 2, reason: 'time_window' },
      { job: 3, reason: 'shift' },
    ]);
  });

  it('says capacity when a job fits alone but not beside the others', () => {
    const v: Vehicle = { capacity: [10], shiftStart: 0, shiftEnd: 1000, startLocation: 0, endLocation: 0 };
    const p = euclid(
      [
        [0, 0],
        [10, 0],
        [0, 10],
      ],
      [
        { demand: [6], service: 1, ready: 0, due: 1000 },
        { demand: [6], service: 1, ready: 0, due: 1000, priority: 1 },
      ],
      [v],
    );
    const r = runSolver(p, { maxIterations: 100, timeLimitMs: 600_000 });
    // Only one fits; the higher priority one is served even though job 0 comes first.
    expect(r.routes).toEqual([[1]]);
    expect(r.unassigned).toEqual([{ job: 0, reason: 'capacity' }]);
  });

  it('drops lower priority jobs first when the shift cannot hold them all', () => {
    // Six jobs in a cluster 20 away, each taking 20 of a 110 shift: three fit (about 104), four never.
    const points: [number, number][] = [[0, 0]];
    const jobs: Omit<Job, 'location'>[] = [];
    for (let i = 0; i < 6; i++) {
      points.push([20, i]);
      jobs.push({ demand: [1], service: 20, ready: 0, due: 100, priority: i % 2 === 0 ? 2 : 0 });
    }
    const p = euclid(points, jobs, [
      { capacity: [10], shiftStart: 0, shiftEnd: 110, startLocation: 0, endLocation: 0 },
    ]);
    const r = runSolver(p, { maxIterations: 300, timeLimitMs: 600_000 });
    expect([...(r.routes[0] ?? [])].sort()).toEqual([0, 2, 4]);
    expect(r.unassigned.map((u) => u.job)).toEqual([1, 3, 5]);
  });

  it('uses fewer vehicles with min_vehicles, at a longer distance', () => {
    // Two jobs on opposite sides: two short routes are shortest, one long route is fewest.
    const v: Vehicle = { capacity: [10], shiftStart: 0, shiftEnd: 1000, startLocation: 0, endLocation: 0 };
    const p = euclid(
      [
        [0, 0],
        [10, 0],
        [-10, 0],
        [0, 1],
      ],
      [
        { demand: [1], service: 0, ready: 0, due: 1000 },
        { demand: [1], service: 0, ready: 0, due: 1000 },
        { demand: [1], service: 0, ready: 0, due: 1000 },
      ],
      [v, { ...v }],
    );
    const d = check(p, runSolver(p, { maxIterations: 200, timeLimitMs: 600_000 }));
    const f = check(p, runSolver(p, { maxIterations: 200, timeLimitMs: 600_000, objective: 'min_vehicles' }));
    expect(f.ok && d.ok).toBe(true);
    expect(f.vehicles).toBe(1);
    // One route 0→1→3→2→0 or its reverse: 10 + √101 + √101 + 10; never more distance than that.
    expect(f.distance).toBeCloseTo(20 + 2 * Math.sqrt(101), 9);
    expect(d.distance).toBeLessThanOrEqual(f.distance);
  });

  it('minimises the fleet of a large instance (ejection, then SISR): as few routes as the capacity allows', () => {
    // 400 unit jobs with windows of 60–200 over a day of 1 000, capacity 10 and a vehicle per job:
    // the fewest routes are 40 (full); the windows make the shortest routes more. From 400 jobs the
    // fleet phase starts with ejection (eject.ts, tested on its own in solver-eject.test.ts).
    const rnd = lcg(5);
    const points: [number, number][] = [[50, 50]];
    const jobs: Omit<Job, 'location'>[] = [];
    for (let i = 0; i < 400; i++) {
      points.push([rnd() * 100, rnd() * 100]);
      const ready = Math.floor(rnd() * 600);
      jobs.push({ demand: [1], service: 5, ready, due: ready + 60 + Math.floor(rnd() * 140) });
    }
    const v: Vehicle = { capacity: [10], shiftStart: 0, shiftEnd: 2000, startLocation: 0, endLocation: 0 };
    const p = euclid(
      points,
      jobs,
      Array.from({ length: 400 }, () => ({ ...v })),
    );
    const opts = { maxIterations: 6000, timeLimitMs: 600_000, seed: 2 };
    const d = check(p, runSolver(p, opts));
    const r = runSolver(p, { ...opts, objective: 'min_vehicles' });
    const f = check(p, r);
    expect(f.ok && d.ok).toBe(true);
    expect(r.unassigned).toEqual([]);
    expect(f.vehicles).toBe(40);
    expect(d.vehicles).toBeGreaterThan(40);
    // With 30 vehicles a quarter of the jobs cannot be served: every vehicle full, 100 left out.
    const short = { ...p, vehicles: p.vehicles.slice(0, 30) };
    const s = runSolver(short, { maxIterations: 1000, timeLimitMs: 600_000, seed: 2, objective: 'min_vehicles' });
    expect(check(short, s).ok).toBe(true);
    expect(s.routes.map((r) => r.length)).toEqual(Array.from({ length: 30 }, () => 10));
    expect(s.unassigned).toHaveLength(100);
  });

  it('packs a large instance of short routes full: recreate tries the places near a job, else every place', () => {
    // 600 unit jobs, capacity 10, 61 vehicles: the fewest routes (60) leave every route full, so a
    // job put back often finds its neighbours' routes full and must go to another route (sisr.ts,
    // PLACES_UP_TO: the large-instance path with about ten stops a route).
    const rnd = lcg(11);
    const points: [number, number][] = [[50, 50]];
    const jobs: Omit<Job, 'location'>[] = [];
    for (let i = 0; i < 600; i++) {
      points.push([rnd() * 100, rnd() * 100]);
      jobs.push({ demand: [1], service: 1, ready: 0, due: 5000 });
    }
    const v: Vehicle = { capacity: [10], shiftStart: 0, shiftEnd: 10_000, startLocation: 0, endLocation: 0 };
    const p = euclid(
      points,
      jobs,
      Array.from({ length: 61 }, () => ({ ...v })),
    );
    const r = runSolver(p, { maxIterations: 2000, timeLimitMs: 600_000, seed: 3 });
    const verdict = check(p, r);
    expect(verdict.ok).toBe(true);
    expect(r.unassigned).toEqual([]);
    // The fewest routes the capacity allows: 60 full routes, the 61st vehicle unused.
    expect(verdict.vehicles).toBe(60);
    expect(r.routes.flat().sort((a, b) => a - b)).toEqual(Array.from({ length: 600 }, (_, i) => i));
  });

  it('solves in a worker thread, reports progress and returns the checked solution with its schedule', async () => {
    const p = randomInstance(9, 30, 6);
    const seen: number[] = [];
    const r = await solve(p, { maxIterations: 500, timeLimitMs: 600_000, seed: 3, onProgress: (x) => seen.push(x) });
    const again = runSolver(p, { maxIterations: 500, timeLimitMs: 600_000, seed: 3 });
    expect(r.routes).toEqual(again.routes);
    expect(r.iterations).toBe(500);
    expect(seen.at(-1)).toBe(1);
    const verdict = check(p, r);
    expect(verdict.ok).toBe(true);
    expect(r.distance).toBe(verdict.distance);
    expect(r.vehicles).toBe(r.routes.filter((x) => x.length > 0).length);
    expect(r.schedules.flatMap((s) => s.stops.map((x) => x.job)).sort((a, b) => a - b)).toEqual(
      r.routes.flat().sort((a, b) => a - b),
    );
  }, 60_000);

  it('stops the worker when aborted', async () => {
    const p = randomInstance(10, 60, 10);
    const ctl = new AbortController();
    const run = solve(p, { timeLimitMs: 600_000, signal: ctl.signal });
    setTimeout(() => ctl.abort(new Error('plan cancelled')), 50);
    await expect(run).rejects.toThrow('plan cancelled');
  }, 60_000);
});
