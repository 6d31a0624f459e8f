import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { check } from './check.js';
import type { RunResult } from './run.js';
import type { Problem, SolveOptions, SolveResult } from './types.js';
import type { WorkerInput } from './worker.js';

// The solver's public entry: runs the search in a worker thread, so a plan never blocks the event
// loop, then passes the answer through the checker. From dist/ the worker is worker.js; under tsx or
// Vitest (this file is .ts) the worker is worker.ts and gets tsx's loader to run it.

/** The smallest heap cap a solver worker gets (RUTA_PLAN_MEMORY_MB's floor too). */
export const MIN_HEAP_MB = 32;

export async function solve(problem: Problem, options: SolveOptions = {}): Promise<SolveResult> {
  const t0 = performance.now();
  const { onProgress, signal, maxHeapMb, ...rest } = options;
  signal?.throwIfAborted();
  const input: WorkerInput = { problem, options: rest };
  // A cap below what V8 needs to start an isolate (Node 24 deserialises a larger snapshot) is a fatal
  // OOM of the whole process, not ERR_WORKER_OUT_OF_MEMORY: never start a worker under the floor.
  const resourceLimits =
    maxHeapMb === undefined ? undefined : { maxOldGenerationSizeMb: Math.max(maxHeapMb, MIN_HEAP_MB) };
  const worker = import.meta.url.endsWith('.ts')
    ? new Worker(viaTsx(new URL('./worker.ts', import.meta.url).href), {
        eval: true,
        workerData: input,
        resourceLimits,
      })
    : new Worker(new URL('./worker.js', import.meta.url), { workerData: input, resourceLimits });
  let onAbort: (() => void) | undefined;
  const run = await new Promise<RunResult>((resolve, reject) => {
    onAbort = () => {
      void worker.terminate();
      reject(signal?.reason ?? new Error('aborted'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    worker.on('message', (msg: { type: 'progress'; value: number } | { type: 'done'; result: RunResult }) => {
      if (msg.type === 'progress') onProgress?.(msg.value);
      else resolve(msg.result);
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the solver's worker exited (code ${code}) without a result`)));
  }).finally(() => {
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  });
  const verdict = check(problem, run);
  if (!verdict.ok) {
    throw new Error(`the solver produced an infeasible solution: ${verdict.errors.slice(0, 3).join('; ')}`);
  }
  onProgress?.(1);
  return {
    routes: run.routes,
    unassigned: run.unassigned,
    distance: verdict.distance,
    vehicles: verdict.vehicles,
    schedules: verdict.schedules,
    iterations: run.iterations,
    ms: performance.now() - t0,
  };
}

/** A worker bootstrap that registers tsx's loader in the worker, then loads the TypeScript entry. */
function viaTsx(entry: string): string {
  // `tsx/esm/api` as an ES module (its `import` export); the CommonJS build misplaces its hooks when imported.
  const pkg = createRequire(import.meta.url).resolve('tsx/package.json');
  const api = pathToFileURL(join(dirname(pkg), 'dist/esm/api/index.mjs')).href;
  return `import(${JSON.stringify(api)}).then((t) => { t.register(); return import(${JSON.stringify(entry)}); });`;
}
