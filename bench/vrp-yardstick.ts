// The machine's yardstick for `bench:vrp`: a fixed amount of work that does not use the solver, timed
// in the same process before each instance. The optimizer's targets are wall-clock limits
// (0.3 s, 1 s, 60 s), and two machines of the same type have run the same code 30–40 % apart
// (BENCHMARKS.md, "Eight more variants, and a slower machine"); with the yardstick beside each run,
// results from different machines can be told apart from changes to the code.
//
// The work resembles the solver's inner loops: 2-opt to a local optimum (first improvement) on
// random Euclidean tours, over a Float64Array matrix, with data-dependent branches. Never change it:
// its time is only comparable with itself.

/** Tours of this many cities, this many of them: 36–73 ms a pass on the machine of 2026-12-03 (later). */
const CITIES = 200;
const TOURS = 12;

/** One pass over all the tours; returns their total length (so that the work cannot be skipped). */
function work(): number {
  let state = 12345;
  const rand = () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 4294967296;
  };
  const x = new Float64Array(CITIES);
  const y = new Float64Array(CITIES);
  const d = new Float64Array(CITIES * CITIES);
  const tour = new Int32Array(CITIES);
  let total = 0;
  for (let t = 0; t < TOURS; t++) {
    for (let i = 0; i < CITIES; i++) {
      x[i] = rand() * 1000;
      y[i] = rand() * 1000;
      tour[i] = i;
    }
    for (let i = 0; i < CITIES; i++) {
      for (let j = 0; j < CITIES; j++) {
        d[i * CITIES + j] = Math.hypot((x[i] as number) - (x[j] as number), (y[i] as number) - (y[j] as number));
      }
    }
    for (let improved = true; improved; ) {
      improved = false;
      for (let i = 0; i < CITIES - 2; i++) {
        const a = tour[i] as number;
        const b = tour[i + 1] as number;
        for (let j = i + 2; j < CITIES; j++) {
          const c = tour[j] as number;
          const e = tour[(j + 1) % CITIES] as number;
          const delta =
            (d[a * CITIES + c] as number) +
            (d[b * CITIES + e] as number) -
            (d[a * CITIES + b] as number) -
            (d[c * CITIES + e] as number);
          if (delta < -1e-9) {
            for (let lo = i + 1, hi = j; lo < hi; lo++, hi--) {
              const s = tour[lo] as number;
              tour[lo] = tour[hi] as number;
              tour[hi] = s;
            }
            improved = true;
            break;
          }
        }
      }
    }
    for (let i = 0; i < CITIES; i++)
      total += d[(tour[i] as number) * CITIES + (tour[(i + 1) % CITIES] as number)] as number;
  }
  return total;
}

let checksum = Number.NaN;

/**
 * One timed pass, in ms. The machine's speed drifts by tens of percent within seconds on a shared
 * host (passes of the same process: 147–260 ms for four times this work), so a run times one pass
 * before each instance and reports their median beside the instances' own figures.
 */
export function yardstick(): number {
  // The first passes of a process let the JIT compile the loop; their time is not used.
  if (Number.isNaN(checksum)) {
    checksum = work();
    for (let i = 0; i < 3; i++) work();
  }
  const t0 = performance.now();
  if (work() !== checksum) throw new Error('the yardstick is not deterministic');
  return performance.now() - t0;
}
