// The VRPLIB parser, the DIMACS convention (distances and times truncated to one decimal) and the
// checker judging a published best-known solution under it.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { check } from '../src/features/planning/solver/check.js';
import { parseVrplib, parseVrplibSolution, truncated } from '../src/features/planning/solver/vrplib.js';

const R1_10_1 = fileURLToPath(new URL('./fixtures/vrplib/R1_10_1.vrp', import.meta.url));
const R1_10_1_SOL = fileURLToPath(new URL('./fixtures/vrplib/R1_10_1.sol', import.meta.url));

const SMALL = `NAME : tiny
TYPE : VRPTW
DIMENSION : 4
VEHICLES : 2
CAPACITY : 50
SERVICE_TIME : 10
EDGE_WEIGHT_TYPE : EUC_2D
NODE_COORD_SECTION
1 0 0
2 1 1
3 3 4
4 0 7
DEMAND_SECTION
1 0
2 5
3 7
4 9
TIME_WINDOW_SECTION
1 0 500
2 10 40
3 0 100
4 20 60
DEPOT_SECTION
1
-1
EOF
`;

describe('VRPLIB instances and the DIMACS convention', () => {
  it('parses the fleet, the depot and the customers', () => {
    const { name, problem, customers } = parseVrplib(SMALL);
    expect(name).toBe('tiny');
    expect(problem.size).toBe(4);
    expect(problem.vehicles).toHaveLength(2);
    expect(problem.vehicles[1]).toEqual({
      capacity: [50],
      shiftStart: 0,
      shiftEnd: 500,
      startLocation: 0,
      endLocation: 0,
    });
    expect(problem.jobs).toEqual([
      { location: 1, demand: [5], ready: 10, due: 40, service: 10 },
      { location: 2, demand: [7], ready: 0, due: 100, service: 10 },
      { location: 3, demand: [9], ready: 20, due: 60, service: 10 },
    ]);
    expect(customers).toEqual([1, 2, 3]);
    expect(problem.time[0 * 4 + 1]).toBeCloseTo(Math.SQRT2, 12);
    expect(problem.distance).toBe(problem.time);
  });

  it('reads a per-node SERVICE_TIME_SECTION instead of the global SERVICE_TIME', () => {
    const text = SMALL.replace('DEPOT_SECTION', 'SERVICE_TIME_SECTION\n1 0\n2 3\n3 4\n4 5\nDEPOT_SECTION');
    expect(parseVrplib(text).problem.jobs.map((j) => j.service)).toEqual([3, 4, 5]);
  });

  it('truncates every distance and travel time to one decimal with --dimacs', () => {
    expect(truncated(3, 4)).toBe(5);
    expect(truncated(1, 1)).toBe(1.4); // √2 = 1.414…
    expect(truncated(-1, 2)).toBe(2.2); // √5 = 2.236…
    expect(truncated(0.5, 0.5)).toBe(0.7); // non-integer coordinates: 0.707…
    const { problem } = parseVrplib(SMALL, { dimacs: true });
    expect(problem.time[0 * 4 + 1]).toBe(1.4);
    expect(problem.time[1 * 4 + 0]).toBe(1.4);
    expect(problem.time[1 * 4 + 2]).toBe(3.6); // √13 = 3.605…
    expect(problem.time[0 * 4 + 2]).toBe(5);
    expect(problem.distance).toBe(problem.time);
  });

  it('refuses text that is not a VRPLIB VRPTW instance', () => {
    expect(() => parseVrplib('hello\nworld')).toThrow(/not a VRPLIB VRPTW instance/);
    expect(() => parseVrplib(SMALL.replace('4 20 60\n', ''))).toThrow(/TIME_WINDOW_SECTION: no row for node 4/);
    expect(() => parseVrplib(SMALL.replace('EUC_2D', 'EXPLICIT'))).toThrow(/EDGE_WEIGHT_TYPE/);
  });

  it('judges the best known of R1_10_1 as it was judged: feasible at its cost only under the convention', () => {
    const sol = parseVrplibSolution(readFileSync(R1_10_1_SOL, 'utf8'));
    expect(sol.cost).toBe(53026.1);
    expect(sol.routes.flat().sort((a, b) => a - b)).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1));
    const text = readFileSync(R1_10_1, 'utf8');
    const dimacs = parseVrplib(text, { dimacs: true });
    expect(dimacs.problem.jobs).toHaveLength(1000);
    expect(dimacs.problem.vehicles).toHaveLength(250);
    // Solution customers are numbered from 1 (the depot is 0): job index = customer − 1.
    const routes = dimacs.problem.vehicles.map((_, v) => (sol.routes[v] ?? []).map((c) => c - 1));
    const ok = check(dimacs.problem, { routes, unassigned: [] });
    expect(ok.errors).toEqual([]);
    expect(ok.distance).toBeCloseTo(53026.1, 6);
    expect(ok.vehicles).toBe(sol.routes.length);
    // Unrounded distances are longer, and some stops of these routes are then served late.
    const plain = check(parseVrplib(text).problem, { routes, unassigned: [] });
    expect(plain.ok).toBe(false);
    expect(plain.violations.some((x) => x.kind === 'time_window')).toBe(true);
    expect(plain.distance).toBeGreaterThan(53026.1);
  });
});
