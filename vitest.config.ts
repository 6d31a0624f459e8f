import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// Shuffled: the files, and the tests inside each file, run in a new order every run, so a test that
// leans on what another one made (a count, an empty list) fails here rather than in someone else's
// change. Vitest prints the seed at the start ("Running tests with seed N"); RUTA_TEST_SEED=N (or
// `--sequence.seed=N`) replays that order. Unset, the seed is the start time.
const raw = process.env.RUTA_TEST_SEED?.trim();
const seed = raw ? Number(raw) : undefined;
if (seed !== undefined && !Number.isSafeInteger(seed)) {
  throw new Error(`RUTA_TEST_SEED must be an integer (the seed a run printed), not "${raw}"`);
}

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // expect.poll waits for what another process does (the server, a phone's sync, a browser's
    // redraw): Vitest's default of 1 s failed a browser test once on a loaded CI machine.
    expect: { poll: { timeout: 15_000 } },
    pool: 'forks',
    // One fork more than the cores (Vitest's default is one less): the files spend much of their
    // time waiting on PostgreSQL, child processes and the browser, and on CI's 2 cores one fork
    // alone left a core idle.
    maxWorkers: Number(process.env.RUTA_TEST_WORKERS) || Math.min(availableParallelism() + 1, 8),
    // Builds dist/ again when its sources are newer: the CLI tests run the build (test/cli-run.ts).
    globalSetup: ['test/global-setup.ts'],
    sequence: { shuffle: true, seed },
  },
});
