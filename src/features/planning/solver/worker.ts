import { parentPort, workerData } from 'node:worker_threads';
import { runSolver } from './run.js';
import type { Problem, SolveOptions } from './types.js';

// The body of the solver's worker thread: one problem in, progress messages and one result out.

export interface WorkerInput {
  problem: Problem;
  options: Omit<SolveOptions, 'onProgress' | 'signal' | 'maxHeapMb'>;
}

const port = parentPort;
if (port) {
  const { problem, options } = workerData as WorkerInput;
  const result = runSolver(problem, {
    ...options,
    onProgress: (value) => port.postMessage({ type: 'progress', value }),
  });
  port.postMessage({ type: 'done', result });
}
