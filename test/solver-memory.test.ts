// The solver's worker thread under a heap cap (route plans pass RUTA_PLAN_MEMORY_MB): a worker that
// needs more ends with ERR_WORKER_OUT_OF_MEMORY, and the process that asked goes on.
import { expect, it } from 'vitest';
import { solve } from '../src/features/planning/solver/solve.js';
import type { Problem } from '../src/features/planning/solver/types.js';

/** n jobs at one place: a problem whose jobs alone outgrow a small heap, whatever the solver does. */
function pile(n: number): Problem {
  const m = new Float64Array([0, 1, 1, 0]);
  return {
    size: 2,
    time: m,
    distance: m,
    jobs: Array.from({ length: n }, () => ({ location: 1, demand: [1], service: 1, ready: 0, due: 1e9 })),
    vehicles: [{ capacity: [n], shiftStart: 0, shiftEnd: 1e9, startLocation: 0, endLocation: 0 }],
  };
}

/** n jobs on a line, one vehicle that can take them all. */
function line(n: number): Problem {
  const size = n + 1;
  const m = new Float64Array(size * size);
  for (let a = 0; a < size; a++) for (let b = 0; b < size; b++) m[a * size + b] = Math.abs(a - b);
  return {
    size,
    time: m,
    distance: m,
    jobs: Array.from({ length: n }, (_, i) => ({ location: i + 1, demand: [1], service: 1, ready: 0, due: 1e6 })),
    vehicles: [{ capacity: [n], shiftStart: 0, shiftEnd: 1e6, startLocation: 0, endLocation: 0 }],
  };
}

it('a solve over its heap cap fails with ERR_WORKER_OUT_OF_MEMORY; the caller goes on, and solves it uncapped', async () => {
  // 400 000 jobs need more than the 32 MiB floor. A cap under the floor (2 MiB) is raised to it: below
  // what V8 needs to start an isolate, Node 24 aborts the whole process instead of failing the worker.
  const capped = await solve(pile(400_000), { maxIterations: 5, timeLimitMs: 60_000, maxHeapMb: 2 }).catch(
    (err) => err,
  );
  expect(capped).toBeInstanceOf(Error);
  expect((capped as { code?: string }).code).toBe('ERR_WORKER_OUT_OF_MEMORY');
  const r = await solve(line(400), { maxIterations: 50, timeLimitMs: 60_000, maxHeapMb: 256 });
  expect(r.routes.flat()).toHaveLength(400);
}, 120_000);
