// The feasibility checker against hand-made solutions, each broken in exactly one way.
import { describe, expect, it } from 'vitest';
import { check } from '../src/features/planning/solver/check.js';
import type { Problem, Vehicle } from '../src/features/planning/solver/types.js';

/** Four points on a line: depot at 0, then 10, 20, 30; travel time = distance = |a − b|. */
function line(): Problem {
  const xs = [0, 10, 20, 30];
  const size = xs.length;
  const m = new Float64Array(size * size);
  for (let a = 0; a < size; a++) for (let b = 0; b < size; b++) m[a * size + b] = Math.abs((xs[a] ?? 0) - (xs[b] ?? 0));
  return {
    size,
    time: m,
    distance: m,
    jobs: [
      { location: 1, demand: [1, 5], service: 2, ready: 0, due: 100 },
      { location: 2, demand: [1, 5], service: 2, ready: 30, due: 40 },
      { location: 3, demand: [1, 5], service: 2, ready: 0, due: 100 },
    ],
    vehicles: [
      { capacity: [3, 15], shiftStart: 0, shiftEnd: 100, startLocation: 0, endLocation: 0 },
      { capacity: [3, 15], shiftStart: 0, shiftEnd: 100, startLocation: 0, endLocation: 0 },
    ],
  };
}

describe('solver checker', () => {
  it('accepts a feasible solution and computes its distance, schedule and loads', () => {
    const r = check(line(), { routes: [[0, 1, 2], []], unassigned: [] });
    expect(r.errors).toEqual([]);
    expect(r.ok).toBe(true);
    expect(r.distance).toBe(60);
    expect(r.vehicles).toBe(1);
    const stops = r.schedules[0]?.stops ?? [];
    // Job 1 is reached at 22 and waits for its window to open at 30.
    expect(stops.map((s) => [s.arrival, s.serviceStart, s.departure])).toEqual([
      [10, 10, 12],
      [22, 30, 32],
      [42, 42, 44],
    ]);
    expect(stops.map((s) => s.load)).toEqual([
      [1, 5],
      [2, 10],
      [3, 15],
    ]);
    expect(r.schedules[0]?.end).toBe(74);
  });

  it('accepts unassigned jobs as long as each job is accounted for once', () => {
    const r = check(line(), { routes: [[0], [2]], unassigned: [{ job: 1, reason: 'time_window' }] });
    expect(r.ok).toBe(true);
    expect(r.distance).toBe(80);
    expect(r.vehicles).toBe(2);
  });

  it('rejects a job served twice', () => {
    const r = check(line(), {
      routes: [
        [0, 1],
        [1, 2],
      ],
      unassigned: [],
    });
    expect(r.ok).toBe(false);
    expect(r.errors.join()).toMatch(/job 1 appears 2 times/);
  });

  it('rejects a job that is neither routed nor unassigned', () => {
    const r = check(line(), { routes: [[0, 1], []], unassigned: [] });
    expect(r.errors).toEqual(['job 2 is neither routed nor unassigned']);
  });

  it('rejects an unknown job and a wrong number of routes', () => {
    expect(check(line(), { routes: [[0, 1, 2, 7], []], unassigned: [] }).errors.join()).toMatch(/no job 7/);
    expect(check(line(), { routes: [[0, 1, 2]], unassigned: [] }).errors.join()).toMatch(/expected 2 routes/);
  });

  it('rejects a load over capacity in either dimension', () => {
    const p = line();
    (p.vehicles[0] as { capacity: number[] }).capacity = [3, 14];
    const r = check(p, { routes: [[0, 1, 2], []], unassigned: [] });
    expect(r.ok).toBe(false);
    expect(r.errors.join()).toMatch(/load 15 exceeds capacity 14 in dimension 1/);
    expect(check(p, { routes: [[0, 1], [2]], unassigned: [] }).ok).toBe(true);
  });

  it('rejects service that starts after the due time', () => {
    // Serving 2 (at 30) first, then 1: reached at 42, after its due time 40.
    const r = check(line(), { routes: [[2, 1, 0], []], unassigned: [] });
    expect(r.ok).toBe(false);
    expect(r.errors.join()).toMatch(/job 1 starts at 42, after its due time 40/);
  });

  it('rejects a route that is back after the shift end', () => {
    const p = line();
    (p.vehicles[0] as { shiftEnd: number }).shiftEnd = 73;
    const r = check(p, { routes: [[0, 1, 2], []], unassigned: [] });
    expect(r.ok).toBe(false);
    expect(r.errors.join()).toMatch(/back at 74, after the shift end 73/);
  });

  it('takes the vehicle from its own start and end locations and shift start', () => {
    const p = line();
    p.vehicles[1] = { capacity: [3, 15], shiftStart: 5, shiftEnd: 100, startLocation: 3, endLocation: 1 };
    const r = check(p, { routes: [[], [2, 1, 0]], unassigned: [] });
    // From 30 at 5: job 2 at 5–7, job 1 reached at 17, waits to 30, job 0 reached at 42, ends at 44.
    expect(r.ok).toBe(true);
    expect(r.distance).toBe(20);
    expect(r.schedules[0]?.end).toBe(44);
  });

  it('checks skills, maximum stops, distance and duration', () => {
    const p = line();
    (p.jobs[2] as { requirements?: string[] }).requirements = ['cold'];
    const bad = check(p, { routes: [[0, 1, 2], []], unassigned: [] });
    expect(bad.errors).toEqual(['route 0: job 2 needs cold']);
    expect(bad.violations).toMatchObject([{ kind: 'skills', vehicle: 0, job: 2 }]);
    p.vehicles[0] = { ...(p.vehicles[0] as Vehicle), skills: ['cold', 'large'] };
    expect(check(p, { routes: [[0, 1, 2], []], unassigned: [] }).ok).toBe(true);
    const limited = (more: Partial<Vehicle>) => {
      const q = line();
      q.vehicles[0] = { ...(q.vehicles[0] as Vehicle), ...more };
      return check(q, { routes: [[0, 1, 2], []], unassigned: [] });
    };
    // The route: 3 stops, 60 long, back at 74.
    expect(limited({ maxJobs: 3, maxDistance: 60, maxDuration: 74 }).ok).toBe(true);
    expect(limited({ maxJobs: 2 }).violations).toMatchObject([{ kind: 'route_limit', at: 3, limit: 2 }]);
    expect(limited({ maxDistance: 59 }).violations).toMatchObject([{ kind: 'route_limit', at: 60, limit: 59 }]);
    expect(limited({ maxDuration: 73 }).violations).toMatchObject([{ kind: 'route_limit', at: 74, limit: 73 }]);
  });

  it('checks the break: taken in its window, where the solution says, or not needed', () => {
    const p = line();
    p.vehicles[0] = { ...(p.vehicles[0] as Vehicle), break: { earliest: 40, latest: 45, duration: 5 } };
    const routes = [[0, 1, 2], []];
    // Back at 74, past 40: a break is due.
    expect(check(p, { routes, unassigned: [] }).errors.join()).toMatch(/no break/);
    // After the third stop (left at 44): 44–49, back at 79.
    const after3 = check(p, { routes, unassigned: [], breaks: [3, null] });
    expect(after3.errors).toEqual([]);
    expect(after3.schedules[0]?.break).toEqual({ after: 3, start: 44, end: 49 });
    expect(after3.schedules[0]?.end).toBe(79);
    // After the first stop (left at 12) it waits until 40: job 1 is then missed.
    expect(check(p, { routes, unassigned: [], breaks: [1, null] }).violations).toMatchObject([
      { kind: 'time_window', job: 1 },
    ]);
    (p.vehicles[0] as Vehicle).break = { earliest: 40, latest: 43, duration: 5 };
    expect(check(p, { routes, unassigned: [], breaks: [3, null] }).violations).toMatchObject([
      { kind: 'break', at: 44, limit: 43 },
    ]);
    expect(check(p, { routes, unassigned: [], breaks: [4, null] }).ok).toBe(false);
    expect(check(p, { routes, unassigned: [], breaks: [3, 0] }).errors.join()).toMatch(/takes none/);
    // Over by 74 with a break from 80 on: none needed.
    (p.vehicles[0] as Vehicle).break = { earliest: 80, latest: 90, duration: 5 };
    expect(check(p, { routes, unassigned: [] }).ok).toBe(true);
  });

  it('ends an open route at its last stop', () => {
    const p = line();
    p.vehicles[0] = { ...(p.vehicles[0] as Vehicle), openEnd: true };
    const r = check(p, { routes: [[0, 1, 2], []], unassigned: [] });
    expect(r.ok).toBe(true);
    expect(r.distance).toBe(30);
    expect(r.schedules[0]?.end).toBe(44);
  });

  it('checks pickup-and-delivery pairs: same route, pickup first, load on board between', () => {
    // Job 2 (at 30) is picked up and delivered as job 0 (at 10).
    const p = line();
    (p.jobs[2] as { delivery?: number }).delivery = 0;
    const ok = check(p, { routes: [[2, 0], [1]], unassigned: [] });
    expect(ok.errors).toEqual([]);
    expect(ok.schedules[0]?.stops.map((s) => s.onBoard)).toEqual([
      [1, 5],
      [0, 0],
    ]);
    expect(check(p, { routes: [[0, 1, 2], []], unassigned: [] }).errors).toEqual([
      'pickup 2 and delivery 0: delivered before picked up',
    ]);
    expect(check(p, { routes: [[0, 1], [2]], unassigned: [] }).violations).toMatchObject([{ kind: 'pair' }]);
    expect(check(p, { routes: [[2], [1]], unassigned: [{ job: 0, reason: 'shift' }] }).ok).toBe(false);
    expect(
      check(p, {
        routes: [[1], []],
        unassigned: [
          { job: 0, reason: 'shift' },
          { job: 2, reason: 'shift' },
        ],
      }).ok,
    ).toBe(true);
    // One package of room: job 1 (loaded at the start) and the pickup cannot be on board together.
    (p.jobs[1] as { due: number }).due = 100;
    (p.vehicles[0] as Vehicle).capacity = [1, 15];
    expect(check(p, { routes: [[1, 2, 0], []], unassigned: [] }).ok).toBe(true);
    expect(check(p, { routes: [[2, 1, 0], []], unassigned: [] }).violations).toMatchObject([
      { kind: 'capacity', job: 2, at: 2, limit: 1, dimension: 0 },
    ]);
    (p.jobs[2] as { delivery?: number }).delivery = 2;
    expect(check(p, { routes: [[1, 2, 0], []], unassigned: [] }).errors.join()).toMatch(/no delivery 2/);
  });
});
