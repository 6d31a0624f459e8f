// Route minimisation by ejection (solver/eject.ts): it must never lose a job nor leave a route late
// or over capacity, whatever it ejects on the way, and it must reach a route count known by hand.
import { describe, expect, it } from 'vitest';
import { check } from '../src/features/planning/solver/check.js';
import { RouteMin } from '../src/features/planning/solver/eject.js';
import { buildModel } from '../src/features/planning/solver/model.js';
import { Rng } from '../src/features/planning/solver/rng.js';
import { Routes } from '../src/features/planning/solver/routes.js';
import type { Problem } from '../src/features/planning/solver/types.js';
import { euclidean, lcg } from './solver-helpers.js';

/** n jobs at random points with random windows of `width`, demands 1–3, `fleet` vehicles of capacity `cap`. */
function random(seed: number, n: number, width: number, cap: number, fleet: number): Problem {
  const rnd = lcg(seed);
  const pts: [number, number][] = [[50, 50]];
  for (let i = 0; i < n; i++) pts.push([rnd() * 100, rnd() * 100]);
  const m = euclidean(pts);
  const jobs = Array.from({ length: n }, (_, i) => {
    const ready = Math.floor(rnd() * (1000 - width));
    return { location: i + 1, demand: [1 + Math.floor(rnd() * 3)], service: 10, ready, due: ready + width };
  });
  const vehicles = Array.from({ length: fleet }, () => ({
    capacity: [cap],
    shiftStart: 0,
    shiftEnd: 1200,
    startLocation: 0,
    endLocation: 0,
  }));
  return { size: pts.length, time: m, distance: m, jobs, vehicles };
}

/** One job per route: the worst feasible start (every job here can be served alone). */
function oneEach(p: Problem): Routes {
  const s = new Routes(buildModel(p));
  for (let j = 0; j < p.jobs.length; j++) s.insert(j, j, 0);
  return s;
}

/** A step budget standing in for the search's clock. */
function steps(n: number): () => boolean {
  let left = n;
  return () => left-- > 0;
}

describe('route minimisation by ejection', () => {
  it('keeps every job and every window and capacity, and only removes routes', () => {
    for (let seed = 1; seed <= 8; seed++) {
      const p = random(seed, 60, seed % 2 === 0 ? 120 : 300, 12, 60);
      const s = oneEach(p);
      const rm = new RouteMin(s.m, new Rng(seed), new Uint8Array(p.jobs.length));
      const emptied = rm.run(s, steps(20_000));
      expect(s.nOut).toBe(0);
      expect(emptied).toBe(60 - s.used);
      expect(s.used).toBeLessThan(60);
      const verdict = check(p, { routes: s.toArrays(), unassigned: [] });
      expect(verdict.errors).toEqual([]);
      // The incremental distance agrees with a plain sum.
      expect(s.distance).toBeCloseTo(verdict.distance, 6);
    }
  });

  it('reaches the fewest routes capacity allows', () => {
    // 24 jobs of demand 1 with wide windows, vehicles of capacity 6: four routes, no fewer.
    for (let seed = 1; seed <= 5; seed++) {
      const p = random(seed, 24, 900, 6, 24);
      for (const j of p.jobs) j.demand = [1];
      const s = oneEach(p);
      new RouteMin(s.m, new Rng(seed), new Uint8Array(24)).run(s, steps(50_000));
      expect(s.used).toBe(4);
      expect(check(p, { routes: s.toArrays(), unassigned: [] }).ok).toBe(true);
    }
  });

  it('reaches the fewest routes the time windows allow', () => {
    // Three chains of four stops, each stop's window right after the previous one's: one vehicle
    // serves a chain. The chains' first stops are due within 2 of each other, at least 30 apart,
    // with 10 of service each, so no vehicle serves two of them: three routes, no fewer.
    const pts: [number, number][] = [[0, 0]];
    const jobs: Problem['jobs'] = [];
    for (let c = 0; c < 3; c++) {
      for (let k = 0; k < 4; k++) {
        pts.push([10 + 10 * k, 30 * (c - 1)]);
        const ready = 40 + 20 * k + c;
        jobs.push({ location: pts.length - 1, demand: [1], service: 10, ready, due: ready + 2 });
      }
    }
    const m = euclidean(pts);
    const vehicles = jobs.map(() => ({
      capacity: [100],
      shiftStart: 0,
      shiftEnd: 500,
      startLocation: 0,
      endLocation: 0,
    }));
    const p: Problem = { size: pts.length, time: m, distance: m, jobs, vehicles };
    const s = oneEach(p);
    new RouteMin(s.m, new Rng(7), new Uint8Array(12)).run(s, steps(20_000));
    expect(s.used).toBe(3);
    expect(check(p, { routes: s.toArrays(), unassigned: [] }).ok).toBe(true);
  });

  it('puts a route back when its jobs cannot all be placed, and stops when told', () => {
    // Every job's window is [100, 101] and each takes 10 to serve: no two share a vehicle.
    const p = random(3, 20, 1, 100, 20);
    for (const j of p.jobs) Object.assign(j, { ready: 100, due: 101 });
    const s = oneEach(p);
    const before = s.toArrays();
    const emptied = new RouteMin(s.m, new Rng(1), new Uint8Array(20)).run(s, steps(5_000));
    expect(emptied).toBe(0);
    expect(s.toArrays()).toEqual(before);
    expect(s.nOut).toBe(0);
  });

  it('leaves the jobs no vehicle can serve out, and places the rest', () => {
    const p = random(5, 30, 300, 12, 30);
    // Job 0 can never be served: its window closes before any vehicle could get there.
    p.jobs[0] = { ...(p.jobs[0] as Problem['jobs'][number]), ready: 0, due: 0 };
    const m = buildModel(p);
    const s = new Routes(m);
    for (let j = 1; j < 30; j++) s.insert(j, j, 0);
    const hopeless = new Uint8Array(30);
    hopeless[0] = 1;
    new RouteMin(m, new Rng(2), hopeless).run(s, steps(20_000));
    expect(Array.from(s.out.subarray(0, s.nOut))).toEqual([0]);
    expect(s.used).toBeLessThan(29);
    const routes = s.toArrays();
    expect(check(p, { routes, unassigned: [{ job: 0, reason: 'time_window' }] }).errors).toEqual([]);
  });
});
