// `npm run bench:vrp`: the route optimizer on a VRPTW benchmark set, one instance after the other on
// one core, each with the same time limit, every solution checked by the separate checker.
// `--set solomon` (default): the 56 Solomon instances, compared with the distance-first best known
// (`<name>_distance` in BKS.json). `--set gh1000`: the 60 Gehring & Homberger 1000-customer
// instances (VRPLIB), under the DIMACS convention (distances and times truncated to one decimal),
// compared with each `.sol` file's `Cost`.
//
//   npm run bench:vrp -- [--set solomon|gh1000] [--time-limit-ms 5000] [--seed 1] [--only R1,RC2]
//                        [--max-iterations N] [--data DIR] [--out FILE|-]
//
// Writes bench/results/vrp-<limit>.json (gh1000: vrp-gh1000-<limit>.json; `--out` elsewhere, `--out -`
// nowhere, so that trial runs leave the committed results alone) and prints Markdown tables
// (per class, then per instance), with the machine's yardstick (bench/vrp-yardstick.ts) timed before
// each instance: wall-clock limits depend on the machine, and its speed drifts.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { check } from '../src/features/planning/solver/check.js';
import { runSolver } from '../src/features/planning/solver/run.js';
import { parseSolomon } from '../src/features/planning/solver/solomon.js';
import type { Problem } from '../src/features/planning/solver/types.js';
import { parseVrplib, parseVrplibSolution } from '../src/features/planning/solver/vrplib.js';
import { yardstick } from './vrp-yardstick.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CLASSES = ['C1', 'C2', 'R1', 'R2', 'RC1', 'RC2'] as const;
/** A gap this small is a match: the published costs are rounded to 2 decimals. */
const MATCH = 0.01;

const { values } = parseArgs({
  options: {
    set: { type: 'string', default: 'solomon' },
    /** The instances' folder (solomon/, gh1000/, BKS.json); default ../shared/benchmarks/vrptw beside the checkout. */
    data: { type: 'string' },
    'time-limit-ms': { type: 'string', default: '5000' },
    seed: { type: 'string', default: '1' },
    only: { type: 'string' },
    /** Stop each run after this many iterations instead (comparing variants on a busy machine). */
    'max-iterations': { type: 'string' },
    out: { type: 'string' },
  },
});
const limit = Number(values['time-limit-ms']);
const seed = Number(values.seed);
const maxIterations = values['max-iterations'] ? Number(values['max-iterations']) : undefined;
const only = values.only?.split(',').map((s) => s.trim().toUpperCase());
const DATA = resolve(values.data ?? resolve(ROOT, '../shared/benchmarks/vrptw'));
const set = values.set;
if (set !== 'solomon' && set !== 'gh1000') throw new Error('--set must be solomon or gh1000');

interface Row {
  instance: string;
  class: string;
  feasible: boolean;
  vehicles: number;
  distance: number;
  best_known: number;
  /** Routes of the best-known solution (its `.sol`; Solomon: BKS.json's `solved_with_vehicles`). */
  best_known_vehicles: number;
  gap_pct: number;
  ms: number;
  /** The yardstick's pass just before this instance, in ms. */
  yardstick_ms: number;
  iterations: number;
}

/** The instances of the set, in a natural order (C1_10_2 before C1_10_10), each with its best known. */
function instances(): { name: string; load: () => Problem; best: () => { cost: number; vehicles: number } }[] {
  if (set === 'gh1000') {
    const dir = join(DATA, 'gh1000');
    return readdirSync(dir)
      .filter((f) => f.endsWith('.vrp'))
      .map((f) => f.replace(/\.vrp$/, ''))
      .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }))
      .map((name) => ({
        name: name.toUpperCase(),
        load: () => parseVrplib(readFileSync(join(dir, `${name}.vrp`), 'utf8'), { dimacs: true }).problem,
        best: () => {
          const sol = parseVrplibSolution(readFileSync(join(dir, `${name}.sol`), 'utf8'));
          return { cost: sol.cost, vehicles: sol.routes.length };
        },
      }));
  }
  const bks = JSON.parse(readFileSync(join(DATA, 'BKS.json'), 'utf8')) as Record<
    string,
    { best_known_cost: number; solved_with_vehicles?: number }
  >;
  return readdirSync(join(DATA, 'solomon'))
    .filter((f) => f.endsWith('.txt'))
    .sort()
    .map((file) => {
      const name = file.replace(/\.txt$/, '').toUpperCase();
      return {
        name,
        load: () => parseSolomon(readFileSync(join(DATA, 'solomon', file), 'utf8')).problem,
        best: () => ({
          cost: bks[`${name}_distance`]?.best_known_cost ?? Number.NaN,
          vehicles: bks[`${name}_distance`]?.solved_with_vehicles ?? Number.NaN,
        }),
      };
    });
}

const all = instances();
const names = new Set(all.map((i) => i.name));
const rows: Row[] = [];
for (const inst of all) {
  const name = inst.name;
  const cls = /^(RC|R|C)\d/.exec(name)?.[0] ?? '?';
  // An instance's full name selects just it (C1_10_1, not C1_10_10); anything else is a prefix.
  if (only && !only.some((o) => name === o || (!names.has(o) && name.startsWith(o)))) continue;
  const problem = inst.load();
  const yardstickMs = yardstick();
  const t0 = performance.now();
  const run = runSolver(problem, { timeLimitMs: maxIterations ? 3_600_000 : limit, maxIterations, seed });
  const ms = performance.now() - t0;
  const verdict = check(problem, run);
  const feasible = verdict.ok && run.unassigned.length === 0;
  const { cost: best, vehicles: bestVehicles } = inst.best();
  const row: Row = {
    instance: name,
    class: cls,
    feasible,
    vehicles: verdict.vehicles,
    distance: verdict.distance,
    best_known: best,
    best_known_vehicles: bestVehicles,
    gap_pct: (verdict.distance / best - 1) * 100,
    ms,
    yardstick_ms: yardstickMs,
    iterations: run.iterations,
  };
  rows.push(row);
  console.error(
    `${name.padEnd(set === 'gh1000' ? 9 : 6)} ${feasible ? 'ok ' : 'BAD'} ${String(row.vehicles).padStart(3)} veh (best known ${bestVehicles}) ${row.distance.toFixed(2).padStart(8)} vs ${best.toFixed(2).padStart(8)}  ${fmtGap(row.gap_pct).padStart(7)}  ${Math.round(ms)} ms, ${run.iterations} it${verdict.ok ? '' : ` ${verdict.errors[0]}`}`,
  );
}

function stats(rs: Row[]) {
  const gaps = rs.map((r) => r.gap_pct).sort((a, b) => a - b);
  const mid = gaps.length >> 1;
  const median = gaps.length % 2 ? (gaps[mid] as number) : ((gaps[mid - 1] as number) + (gaps[mid] as number)) / 2;
  return {
    instances: rs.length,
    feasible: rs.filter((r) => r.feasible).length,
    matched: rs.filter((r) => r.gap_pct <= MATCH).length,
    avg_gap_pct: gaps.reduce((a, b) => a + b, 0) / Math.max(1, gaps.length),
    median_gap_pct: median,
    worst_gap_pct: gaps[gaps.length - 1] ?? Number.NaN,
    avg_vehicles: rs.reduce((a, r) => a + r.vehicles, 0) / Math.max(1, rs.length),
    avg_best_known_vehicles: rs.reduce((a, r) => a + r.best_known_vehicles, 0) / Math.max(1, rs.length),
    avg_ms: rs.reduce((a, r) => a + r.ms, 0) / Math.max(1, rs.length),
    iterations_per_s:
      rs.reduce((a, r) => a + r.iterations, 0) / Math.max(1e-9, rs.reduce((a, r) => a + r.ms, 0) / 1000),
  };
}

function fmtGap(g: number): string {
  return `${g >= 0 ? '+' : ''}${g.toFixed(2)} %`;
}

const overall = stats(rows);
const sticks = rows.map((r) => r.yardstick_ms).sort((a, b) => a - b);
const pick = (q: number) => sticks[Math.min(sticks.length - 1, Math.floor(q * sticks.length))] ?? Number.NaN;
const yard = { median: pick(0.5), p10: pick(0.1), p90: pick(0.9) };
const byClass = CLASSES.map((c) => ({ class: c, ...stats(rows.filter((r) => r.class === c)) })).filter(
  (c) => c.instances > 0,
);
const tag = `${set === 'gh1000' ? 'gh1000-' : ''}${maxIterations ? `${maxIterations}it` : limit}`;
const out = values.out === '-' ? undefined : resolve(values.out ?? join(ROOT, `bench/results/vrp-${tag}.json`));
if (out) {
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(
    out,
    `${JSON.stringify({ set, time_limit_ms: limit, max_iterations: maxIterations ?? null, seed, node: process.version, date: new Date().toISOString(), yardstick_ms: yard, overall, by_class: byClass, instances: rows }, null, 1)}\n`,
  );
}

const lines: string[] = [];
lines.push(
  `### ${set}, ${maxIterations ? `${maxIterations} iterations` : `${limit} ms`} per instance (seed ${seed}, ${new Date().toISOString().slice(0, 10)})`,
  '',
  `Machine yardstick (bench/vrp-yardstick.ts, one pass before each instance; lower is faster): median ${yard.median.toFixed(1)} ms, p10–p90 ${yard.p10.toFixed(1)}–${yard.p90.toFixed(1)} ms.`,
  '',
);
lines.push(
  '| class | instances | feasible | avg vehicles (best known) | avg gap | median gap | worst gap | matched | avg time | iterations/s |',
);
lines.push('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
for (const c of [...byClass, { class: 'all', ...overall }]) {
  lines.push(
    `| ${c.class} | ${c.instances} | ${c.feasible} | ${c.avg_vehicles.toFixed(1)} (${c.avg_best_known_vehicles.toFixed(1)}) | ${fmtGap(c.avg_gap_pct)} | ${fmtGap(c.median_gap_pct)} | ${fmtGap(c.worst_gap_pct)} | ${c.matched} | ${(c.avg_ms / 1000).toFixed(2)} s | ${Math.round(c.iterations_per_s)} |`,
  );
}
lines.push(
  '',
  '| instance | vehicles (best known) | distance | best known | gap | time | iterations |',
  '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
);
for (const r of rows) {
  lines.push(
    `| ${r.instance} | ${r.vehicles} (${r.best_known_vehicles}) | ${r.distance.toFixed(2)} | ${r.best_known.toFixed(2)} | ${fmtGap(r.gap_pct)} | ${(r.ms / 1000).toFixed(2)} s | ${r.iterations} |`,
  );
}
console.log(lines.join('\n'));
console.error(out ? `\nwrote ${out}` : '\nwrote no file (--out -)');
if (overall.feasible < rows.length) process.exitCode = 1;
