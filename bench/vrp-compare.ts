// Compares two arms of `bench/vrp.ts` runs (say main and a variant), paired by seed and instance:
// the mean difference of the gaps with its standard error, how often the variant was better or
// worse, routes, iterations and time, per class and per seed. Every variant of the solver in
// BENCHMARKS.md since 2026-12-03 was judged this way; one seed over a few instances has a standard
// error of 0.1–0.15 points, so small effects need several seeds, and a variant meant for the 60 s
// target has to be compared at 60 s (BENCHMARKS.md "Two walks and route exchange").
//
//   npx tsx bench/vrp-compare.ts --a main-s1.json,main-s2.json --b variant-s1.json,variant-s2.json [--rows]
//
// Each file is one `npm run bench:vrp -- … --seed N --out FILE` run (any set, limit or instances);
// rows present in only one arm are left out and counted.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface Row {
  instance: string;
  class: string;
  feasible: boolean;
  vehicles: number;
  gap_pct: number;
  ms: number;
  iterations: number;
}
interface Run {
  seed: number;
  instances: Row[];
}

const { values } = parseArgs({
  options: { a: { type: 'string' }, b: { type: 'string' }, rows: { type: 'boolean', default: false } },
});
if (!values.a || !values.b)
  throw new Error('usage: vrp-compare.ts --a A.json[,A2.json…] --b B.json[,B2.json…] [--rows]');

/** The arm's rows by "seed instance". */
function arm(files: string): Map<string, Row & { seed: number }> {
  const rows = new Map<string, Row & { seed: number }>();
  for (const file of files.split(',')) {
    const run = JSON.parse(readFileSync(file.trim(), 'utf8')) as Run;
    for (const r of run.instances) rows.set(`${run.seed} ${r.instance}`, { ...r, seed: run.seed });
  }
  return rows;
}

const A = arm(values.a);
const B = arm(values.b);
const keys = [...A.keys()].filter((k) => B.has(k));
if (keys.length === 0) throw new Error('no seed and instance in both arms');
const unpaired = A.size + B.size - 2 * keys.length;
const infeasible = keys.filter((k) => !A.get(k)?.feasible || !B.get(k)?.feasible);

const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
/** Signed, with a true minus; -0.0001 prints as +0.000. */
const sign = (x: number, digits = 3) => {
  const t = Math.abs(x).toFixed(digits);
  return `${x < 0 && Number(t) !== 0 ? '−' : '+'}${t}`;
};
function summary(label: string, ks: string[]): string {
  const a = ks.map((k) => A.get(k) as Row);
  const b = ks.map((k) => B.get(k) as Row);
  const d = ks.map((_, i) => (b[i] as Row).gap_pct - (a[i] as Row).gap_pct);
  const m = mean(d);
  const se = d.length > 1 ? Math.sqrt(d.reduce((s, x) => s + (x - m) ** 2, 0) / (d.length - 1) / d.length) : Number.NaN;
  return `| ${label} | ${ks.length} | ${sign(mean(a.map((r) => r.gap_pct)))} % | ${sign(mean(b.map((r) => r.gap_pct)))} % | ${sign(m)} (${Number.isNaN(se) ? '–' : se.toFixed(3)}) | ${d.filter((x) => x < -1e-9).length} / ${d.filter((x) => x > 1e-9).length} | ${mean(a.map((r) => r.vehicles)).toFixed(2)} → ${mean(b.map((r) => r.vehicles)).toFixed(2)} | ${(mean(b.map((r) => r.iterations)) / mean(a.map((r) => r.iterations))).toFixed(2)}× | ${(mean(b.map((r) => r.ms)) / mean(a.map((r) => r.ms))).toFixed(2)}× |`;
}

const lines = [
  '| pairs | n | a | b | b − a (standard error) | better / worse | routes | iterations | time |',
  '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  summary('all', keys),
];
const by = (f: (k: string) => string) => [...new Set(keys.map(f))].sort();
for (const c of by((k) => (A.get(k) as Row).class))
  lines.push(
    summary(
      c,
      keys.filter((k) => (A.get(k) as Row).class === c),
    ),
  );
for (const s of by((k) => k.split(' ')[0] as string))
  lines.push(
    summary(
      `seed ${s}`,
      keys.filter((k) => k.startsWith(`${s} `)),
    ),
  );
if (values.rows) {
  lines.push('', '| seed | instance | a | b | routes a / b |', '| ---: | --- | ---: | ---: | ---: |');
  for (const k of keys) {
    const a = A.get(k) as Row & { seed: number };
    const b = B.get(k) as Row;
    lines.push(
      `| ${a.seed} | ${a.instance} | ${sign(a.gap_pct, 2)} % | ${sign(b.gap_pct, 2)} % | ${a.vehicles} / ${b.vehicles} |`,
    );
  }
}
console.log(lines.join('\n'));
if (unpaired > 0) console.error(`${unpaired} rows in one arm only, left out`);
if (infeasible.length > 0) {
  console.error(`infeasible: ${infeasible.join(', ')}`);
  process.exitCode = 1;
}
