// `npm run bench:vrp`: the route optimizer on the 56 Solomon VRPTW instances, one after the other on
// one core, each with the same time limit, every solution checked by the separate checker, and the
// distance compared with the distance-first best known (`<name>_distance` in BKS.json).
//
//   npm run bench:vrp -- [--time-limit-ms 5000] [--seed 1] [--only R1,RC2] [--max-iterations N]
//
// Writes bench/results/vrp-<limit>.json and prints Markdown tables (per class, then per instance).
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { check } from '../src/features/planning/solver/check.js';
import { runSolver } from '../src/features/planning/solver/run.js';
import { parseSolomon } from '../src/features/planning/solver/solomon.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DATA = resolve(ROOT, '../shared/benchmarks/vrptw');
const CLASSES = ['C1', 'C2', 'R1', 'R2', 'RC1', 'RC2'] as const;
/** A gap this small is a match: the published costs are rounded to 2 decimals. */
const MATCH = 0.01;

const { values } = parseArgs({
  options: {
    'time-limit-ms': { type: 'string', default: '5000' },
    seed: { type: 'string', default: '1' },
    only: { type: 'string' },
    /** Stop each run after this many iterations instead (comparing variants on a busy machine). */
    'max-iterations': { type: 'string' },
  },
});
const limit = Number(values['time-limit-ms']);
const seed = Number(values.seed);
const maxIterations = values['max-iterations'] ? Number(values['max-iterations']) : undefined;
const only = values.only?.split(',').map((s) => s.trim().toUpperCase());

interface Row {
  instance: string;
  class: string;
  feasible: boolean;
  vehicles: number;
  distance: number;
  best_known: number;
  gap_pct: number;
  ms: number;
  iterations: number;
}

const bks = JSON.parse(readFileSync(join(DATA, 'BKS.json'), 'utf8')) as Record<string, { best_known_cost: number }>;
const files = readdirSync(join(DATA, 'solomon'))
  .filter((f) => f.endsWith('.txt'))
  .sort();
const rows: Row[] = [];
for (const file of files) {
  const name = file.replace(/\.txt$/, '').toUpperCase();
  const cls = /^(RC|R|C)\d/.exec(name)?.[0] ?? '?';
  if (only && !only.some((o) => name.startsWith(o))) continue;
  const { problem } = parseSolomon(readFileSync(join(DATA, 'solomon', file), 'utf8'));
  const t0 = performance.now();
  const run = runSolver(problem, { timeLimitMs: maxIterations ? 3_600_000 : limit, maxIterations, seed });
  const ms = performance.now() - t0;
  const verdict = check(problem, run);
  const feasible = verdict.ok && run.unassigned.length === 0;
  const best = bks[`${name}_distance`]?.best_known_cost ?? Number.NaN;
  const row: Row = {
    instance: name,
    class: cls,
    feasible,
    vehicles: verdict.vehicles,
    distance: verdict.distance,
    best_known: best,
    gap_pct: (verdict.distance / best - 1) * 100,
    ms,
    iterations: run.iterations,
  };
  rows.push(row);
  console.error(
    `${name.padEnd(6)} ${feasible ? 'ok ' : 'BAD'} ${String(row.vehicles).padStart(2)} veh ${row.distance.toFixed(2).padStart(8)} vs ${best.toFixed(2).padStart(8)}  ${fmtGap(row.gap_pct).padStart(7)}  ${Math.round(ms)} ms, ${run.iterations} it${verdict.ok ? '' : ` ${verdict.errors[0]}`}`,
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
    avg_ms: rs.reduce((a, r) => a + r.ms, 0) / Math.max(1, rs.length),
  };
}

function fmtGap(g: number): string {
  return `${g >= 0 ? '+' : ''}${g.toFixed(2)} %`;
}

const overall = stats(rows);
const byClass = CLASSES.map((c) => ({ class: c, ...stats(rows.filter((r) => r.class === c)) })).filter(
  (c) => c.instances > 0,
);
mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
const out = join(ROOT, `bench/results/vrp-${maxIterations ? `${maxIterations}it` : limit}.json`);
writeFileSync(
  out,
  `${JSON.stringify({ time_limit_ms: limit, seed, node: process.version, date: new Date().toISOString(), overall, by_class: byClass, instances: rows }, null, 1)}\n`,
);

const lines: string[] = [];
lines.push(`### ${limit} ms per instance (seed ${seed}, ${new Date().toISOString().slice(0, 10)})`, '');
lines.push('| class | instances | feasible | avg vehicles | avg gap | median gap | worst gap | matched | avg time |');
lines.push('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
for (const c of [...byClass, { class: 'all', ...overall }]) {
  lines.push(
    `| ${c.class} | ${c.instances} | ${c.feasible} | ${c.avg_vehicles.toFixed(1)} | ${fmtGap(c.avg_gap_pct)} | ${fmtGap(c.median_gap_pct)} | ${fmtGap(c.worst_gap_pct)} | ${c.matched} | ${(c.avg_ms / 1000).toFixed(2)} s |`,
  );
}
lines.push(
  '',
  '| instance | vehicles | distance | best known | gap | time |',
  '| --- | ---: | ---: | ---: | ---: | ---: |',
);
for (const r of rows) {
  lines.push(
    `| ${r.instance} | ${r.vehicles} | ${r.distance.toFixed(2)} | ${r.best_known.toFixed(2)} | ${fmtGap(r.gap_pct)} | ${(r.ms / 1000).toFixed(2)} s |`,
  );
}
console.log(lines.join('\n'));
console.error(`\nwrote ${out}`);
if (overall.feasible < rows.length) process.exitCode = 1;
