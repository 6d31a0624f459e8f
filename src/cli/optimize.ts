import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { type Objective, type Problem, parseSolomon, parseVrplib, solve } from '../features/planning/solver/index.js';
import { type Command, UsageError, type Values } from './command.js';

// `ruta optimize --solomon FILE` or `--vrplib FILE [--dimacs]`: solves a classic VRPTW instance with
// the route optimizer, the same solver the route plans use, so anyone can compare it with the
// published best known.

const USAGE = `  optimize (--solomon FILE | --vrplib FILE [--dimacs]) [--time-limit-ms N] [--iterations N]
           [--seed S] [--objective min_distance|min_vehicles] [--json]
                                          solve a Solomon or VRPLIB VRPTW instance (Euclidean, unrounded;
                                          --dimacs: every distance and time truncated to one decimal, as
                                          the Gehring & Homberger best known); --json prints {instance,
                                          vehicles, distance, ms, routes}; with --iterations the same seed
                                          gives the same routes every run`;

const MAX_TIME_LIMIT_MS = 3_600_000;

export const optimizeCommand: Command = {
  name: 'optimize',
  usage: USAGE,
  options: {
    solomon: { type: 'string' },
    vrplib: { type: 'string' },
    dimacs: { type: 'boolean' },
    'time-limit-ms': { type: 'string' },
    iterations: { type: 'string' },
    seed: { type: 'string' },
    objective: { type: 'string' },
    json: { type: 'boolean' },
  },
  plan({ values }) {
    const format = values.vrplib !== undefined ? 'vrplib' : 'solomon';
    const file = values[format];
    if (values.solomon !== undefined && values.vrplib !== undefined) {
      throw new UsageError('give one of --solomon FILE and --vrplib FILE');
    }
    if (typeof file !== 'string' || !file) throw new UsageError('--solomon FILE or --vrplib FILE is required');
    if (values.dimacs && format !== 'vrplib') throw new UsageError('--dimacs goes with --vrplib');
    const timeLimitMs = integer(values['time-limit-ms'], 'time-limit-ms', 1, MAX_TIME_LIMIT_MS) ?? 5000;
    const seed = integer(values.seed, 'seed', 0, 2 ** 32 - 1) ?? 1;
    // A wall-clock limit makes the result depend on how busy the machine is; an iteration count
    // does not (the time limit still applies, as a ceiling).
    const maxIterations = integer(values.iterations, 'iterations', 1, 100_000_000);
    const objective = (values.objective ?? 'min_distance') as Objective;
    if (objective !== 'min_distance' && objective !== 'min_vehicles') {
      throw new UsageError('--objective must be min_distance or min_vehicles');
    }
    const timeLimit =
      values['time-limit-ms'] === undefined && maxIterations !== undefined ? MAX_TIME_LIMIT_MS : timeLimitMs;
    return () => optimize(values, { file, format, timeLimit, seed, objective, maxIterations });
  },
};

async function optimize(
  values: Values,
  o: {
    file: string;
    format: 'solomon' | 'vrplib';
    timeLimit: number;
    seed: number;
    objective: Objective;
    maxIterations: number | undefined;
  },
): Promise<void> {
  const { timeLimit, seed, objective, maxIterations } = o;
  let instance: { name: string; problem: Problem; customers: number[] };
  try {
    const text = readFileSync(o.file, 'utf8');
    instance = o.format === 'vrplib' ? parseVrplib(text, { dimacs: values.dimacs === true }) : parseSolomon(text);
  } catch (err) {
    throw new UsageError(`cannot read ${o.file}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const result = await solve(instance.problem, {
    timeLimitMs: timeLimit,
    seed,
    objective,
    ...(maxIterations !== undefined ? { maxIterations } : {}),
  });
  const routes = result.routes.filter((r) => r.length > 0).map((r) => r.map((j) => instance.customers[j] as number));
  const name = instance.name || basename(o.file).replace(/\.(txt|vrp)$/i, '');
  if (values.json) {
    console.log(
      JSON.stringify({
        instance: name,
        vehicles: result.vehicles,
        // A sum of a thousand legs carries float noise (42262.799999999996); six decimals are more
        // than any convention keeps (DIMACS one, Solomon's best knowns two).
        distance: Math.round(result.distance * 1e6) / 1e6,
        ms: Math.round(result.ms),
        routes,
        ...(result.unassigned.length ? { unassigned: result.unassigned.map((u) => instance.customers[u.job]) } : {}),
      }),
    );
    return;
  }
  console.log(
    `${name}: ${result.vehicles} vehicles, distance ${result.distance.toFixed(2)}, ${Math.round(result.ms)} ms`,
  );
  routes.forEach((r, i) => {
    console.log(`  ${i + 1}: ${r.join(' ')}`);
  });
  if (result.unassigned.length) {
    console.log(
      `  unassigned: ${result.unassigned.map((u) => `${instance.customers[u.job]} (${u.reason})`).join(', ')}`,
    );
  }
}

function integer(v: string | boolean | undefined, name: string, min: number, max: number): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (typeof v !== 'string' || v.trim() === '' || !Number.isInteger(n) || n < min || n > max) {
    throw new UsageError(`--${name} must be an integer from ${min} to ${max}`);
  }
  return n;
}
