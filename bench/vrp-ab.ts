// `npx tsx bench/vrp-ab.ts --base DIR --branch DIR`: the route optimizer of two checkouts (each built:
// `npx tsc -p tsconfig.json` writes its dist/), A/B in one process on Solomon instances at a fixed
// number of iterations. The two alternate instance by instance (which goes first alternates with
// each repetition), and each solve is timed in CPU time, not wall time: on a machine shared with
// other work the pair then sees the same conditions, which separate runs minutes apart do not.
// Also says whether both returned the same routes (a pure speed-up must).
//
//   npx tsx bench/vrp-ab.ts --base ../main --branch . [--only R201,RC201] [--max-iterations 5000]
//                           [--reps 2] [--seed 1] [--data DIR]
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { parseSolomon } from '../src/features/planning/solver/solomon.js';
import type { Problem, SolveOptions } from '../src/features/planning/solver/types.js';

type Run = (p: Problem, o: SolveOptions) => { routes: number[][] };

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    base: { type: 'string' },
    branch: { type: 'string', default: ROOT },
    only: { type: 'string' },
    'max-iterations': { type: 'string', default: '5000' },
    reps: { type: 'string', default: '2' },
    seed: { type: 'string', default: '1' },
    data: { type: 'string' },
  },
});
if (!values.base) throw new Error('--base DIR (a built checkout) is required');
const DATA = resolve(values.data ?? resolve(ROOT, '../shared/benchmarks/vrptw'));
const iterations = Number(values['max-iterations']);
const reps = Number(values.reps);
const seed = Number(values.seed);
const only = values.only?.split(',').map((s) => s.trim().toUpperCase());

const load = async (dir: string): Promise<Run> => {
  const url = pathToFileURL(join(resolve(dir), 'dist/features/planning/solver/run.js')).href;
  return ((await import(url)) as { runSolver: Run }).runSolver;
};
const runs = [await load(values.base), await load(values.branch)];
const files = readdirSync(join(DATA, 'solomon'))
  .filter((f) => f.endsWith('.txt'))
  .sort()
  .filter((f) => !only || only.some((o) => f.toUpperCase().startsWith(o)));
const problems = files.map((f) => parseSolomon(readFileSync(join(DATA, 'solomon', f), 'utf8')).problem);

const cpu = [0, 0];
let differ = 0;
for (let r = 0; r < reps; r++) {
  problems.forEach((p, k) => {
    const got: string[] = [];
    for (const w of r % 2 === 0 ? [0, 1] : [1, 0]) {
      const c0 = process.cpuUsage();
      const out = (runs[w] as Run)(p, { timeLimitMs: 3_600_000, maxIterations: iterations, seed });
      const c = process.cpuUsage(c0);
      cpu[w] = (cpu[w] as number) + (c.user + c.system) / 1000;
      got[w] = JSON.stringify(out.routes);
    }
    if (got[0] !== got[1]) {
      differ++;
      if (r === 0) console.error(`${files[k]}: different routes`);
    }
  });
}
const [a, b] = cpu as [number, number];
console.log(
  `${problems.length} instances × ${reps} at ${iterations} iterations: base ${a.toFixed(0)} ms CPU, branch ${b.toFixed(0)} ms (${((b / a - 1) * 100).toFixed(1)} %); ${differ === 0 ? 'same routes' : `${differ} runs with different routes`}`,
);
