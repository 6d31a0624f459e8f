import { setFlagsFromString } from 'node:v8';

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
