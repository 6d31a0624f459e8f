import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * Caps V8's young generation (two semi-spaces) at 2 × 4 MB instead of Node's 2 × 16 MB. It is a
 * start-up flag (V8 sizes the young generation once, when the isolate is made), so it cannot be set
 * from here: every launch of `ruta serve` and `ruta worker` carries it on the node command line
 * (package.json `start`, the `ruta` bin's shebang, the Dockerfile, deploy/ruta.service; test/heap.test.ts
 * checks they agree). Measured (BENCHMARKS.md, "Memory"): peak RSS about 25 MB lower; the extra
 * scavenges cost a few percent of create throughput, far less than group commit gained.
 */
export const YOUNG_GENERATION_FLAG = '--max-semi-space-size=4';

/**
 * Caps how far V8 lets the heap grow past its live size before the next full collection, for the
 * long-running processes (`ruta serve`, `ruta worker`). Their live heap is small (~40 MB) and
 * steady, but V8 sizes the growth by the machine's memory: with several GiB it lets garbage
 * accumulate to about 4× the live heap, which made the resident set of `ruta serve` peak near
 * 300 MB (BENCHMARKS.md, "Memory"). A fixed growth keeps the peak near the live size, at the cost
 * of full collections that come more often (each a few ms of main-thread time, mostly incremental).
 *
 * `--heap-growing-percent` is read each time V8 recomputes its limit, so setting it once the
 * process runs takes effect from the next full collection. 0 leaves V8's own heuristic.
 */
export function limitHeapGrowth(percent: number): string | null {
  if (percent <= 0) return null;
  const flag = `--heap-growing-percent=${percent}`;
  setFlagsFromString(flag);
  return flag;
}

/**
 * One full collection, once start-up is done. Building the app (every route's validator and
 * serializer, the OpenAPI document) leaves about 50 MB of garbage, which V8 keeps, and counts in
 * the resident set, until its first full collection; an idle or lightly loaded server may not
 * reach one for a long time. Measured on `ruta serve` (SQLite, idle after start): heap used
 * 104 → 56 MB, RSS 191–196 → 165 MB (BENCHMARKS.md, "Memory"). `gc` is not exposed without the
 * `--expose-gc` flag, which V8 also reads when a new context is made: the function is taken from
 * one fresh context, and the flag is put back so that no later context gets it.
 */
export function collectStartupGarbage(): void {
  setFlagsFromString('--expose-gc');
  try {
    const gc = runInNewContext('gc') as (() => void) | undefined;
    gc?.();
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
}
