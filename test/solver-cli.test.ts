// The Solomon parser and `ruta optimize`, run from source exactly as a user would.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseSolomon } from '../src/features/planning/solver/solomon.js';
import { RUTA_CLI } from './cli-run.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
// A copy inside the repository (test/fixtures/solomon/README.md says where it comes from).
const C101 = fileURLToPath(new URL('./fixtures/solomon/C101.txt', import.meta.url));
// Gehring & Homberger R1_10_1, 1000 customers (test/fixtures/vrplib/README.md).
const R1_10_1 = fileURLToPath(new URL('./fixtures/vrplib/R1_10_1.vrp', import.meta.url));
/** Each run starts Node, a second or more on a busy machine. */
const SLOW = 120_000;

function ruta(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [...RUTA_CLI, ...args], { cwd: ROOT, timeout: SLOW }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
    );
  });
}

describe('solomon instances and ruta optimize', () => {
  it('parses the fleet, the depot and the customers of a Solomon file', () => {
    const { name, problem, customers } = parseSolomon(readFileSync(C101, 'utf8'));
    expect(name).toBe('C101');
    expect(problem.vehicles).toHaveLength(25);
    expect(problem.vehicles[0]).toEqual({
      capacity: [200],
      shiftStart: 0,
      shiftEnd: 1236,
      startLocation: 0,
      endLocation: 0,
    });
    expect(problem.jobs).toHaveLength(100);
    expect(customers[0]).toBe(1);
    // Customer 1: (45, 68), demand 10, window 912–967, service 90; the depot is at (40, 50).
    expect(problem.jobs[0]).toEqual({ location: 1, demand: [10], ready: 912, due: 967, service: 90 });
    expect(problem.time[0 * problem.size + 1]).toBeCloseTo(Math.hypot(5, 18), 12);
    expect(problem.distance).toBe(problem.time);
  });

  it('refuses text that is not a Solomon instance', () => {
    expect(() => parseSolomon('hello\nworld')).toThrow(/not a Solomon instance/);
  });

  it(
    'prints the instance, fleet, distance, time and routes covering each customer once',
    async () => {
      const r = await ruta('optimize', '--solomon', C101, '--time-limit-ms', '300', '--seed', '2', '--json');
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const out = JSON.parse(r.stdout) as {
        instance: string;
        vehicles: number;
        distance: number;
        ms: number;
        routes: number[][];
      };
      expect(Object.keys(out)).toEqual(['instance', 'vehicles', 'distance', 'ms', 'routes']);
      expect(out.instance).toBe('C101');
      expect(out.vehicles).toBe(out.routes.length);
      expect(out.vehicles).toBeLessThanOrEqual(25);
      expect(out.ms).toBeGreaterThan(0);
      expect(out.routes.flat().sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
      // No route can be shorter than the best known for the instance (828.94, rounded).
      expect(out.distance).toBeGreaterThanOrEqual(828.93);
    },
    SLOW,
  );

  it(
    'gives the same routes for the same seed and --iterations, run after run',
    async () => {
      const args = ['optimize', '--solomon', C101, '--iterations', '300', '--seed', '7', '--json'];
      const [a, b] = [await ruta(...args), await ruta(...args)];
      expect(a.code).toBe(0);
      expect(b.code).toBe(0);
      const strip = (s: string) => {
        const { ms: _ms, ...rest } = JSON.parse(s) as { ms: number };
        return rest;
      };
      expect(strip(a.stdout)).toEqual(strip(b.stdout));
      const bad = await ruta('optimize', '--solomon', C101, '--iterations', '0');
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/--iterations must be an integer/);
    },
    SLOW,
  );

  it(
    'solves a 1000-customer VRPLIB instance under the DIMACS convention, every customer once',
    async () => {
      const r = await ruta('optimize', '--vrplib', R1_10_1, '--dimacs', '--iterations', '200', '--seed', '3', '--json');
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const out = JSON.parse(r.stdout) as { instance: string; vehicles: number; distance: number; routes: number[][] };
      expect(out.instance).toBe('R1_10_1');
      expect(out.vehicles).toBe(out.routes.length);
      expect(out.vehicles).toBeLessThanOrEqual(250);
      expect(out.routes.flat().sort((a, b) => a - b)).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1));
      // Every leg is a whole number of tenths, so the total is too, printed without float noise.
      expect(String(out.distance)).toMatch(/^\d+(\.\d)?$/);
      // Never below the best known under the same convention (53026.1).
      expect(out.distance).toBeGreaterThanOrEqual(53026.1);
    },
    SLOW,
  );

  it(
    'exits 2 on a usage error',
    async () => {
      const missing = await ruta('optimize', '--time-limit-ms', '100');
      expect(missing.code).toBe(2);
      expect(missing.stderr).toMatch(/--solomon FILE or --vrplib FILE is required/);
      const both = await ruta('optimize', '--solomon', C101, '--vrplib', R1_10_1);
      expect(both.code).toBe(2);
      expect(both.stderr).toMatch(/one of --solomon FILE and --vrplib FILE/);
      const dimacs = await ruta('optimize', '--solomon', C101, '--dimacs');
      expect(dimacs.code).toBe(2);
      expect(dimacs.stderr).toMatch(/--dimacs goes with --vrplib/);
      const notVrplib = await ruta('optimize', '--vrplib', C101);
      expect(notVrplib.code).toBe(2);
      expect(notVrplib.stderr).toMatch(/not a VRPLIB VRPTW instance/);
      const bad = await ruta('optimize', '--solomon', C101, '--objective', 'fastest');
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/--objective must be min_distance or min_vehicles/);
      const limit = await ruta('optimize', '--solomon', C101, '--time-limit-ms', '0');
      expect(limit.code).toBe(2);
    },
    SLOW,
  );
});
