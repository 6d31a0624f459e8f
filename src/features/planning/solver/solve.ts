import { startWorker } from '../../../shared/worker-thread.js';
import { check } from './check.js';
import type { RunResult } from './run.js';
import type { Problem, SolveOptions, SolveResult } from './types.js';
import type { WorkerInput } from './worker.js';

// The solver's public entry: runs the search in a worker thread, so a plan never blocks the event
// loop, then passes the answer through the checker (the worker: worker.ts, started by startWorker).

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
  const worker = startWorker(import.meta.url, 'worker', { workerData: input, resourceLimits });
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
