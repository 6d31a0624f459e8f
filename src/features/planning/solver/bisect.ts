// Bisection over a non-decreasing stretch of a typed array (a route's earliest or latest starts).

/** The first q in [lo, hi) with a[base + q] > x, or hi (a non-decreasing there). */
export function firstAbove(a: Float64Array, base: number, lo: number, hi: number, x: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((a[base + mid] as number) > x) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** The first q in [lo, hi) with a[base + q] ≥ x, written as "not x > a", or hi (a non-decreasing there). */
export function firstAtLeast(a: Float64Array, base: number, lo: number, hi: number, x: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (!(x > (a[base + mid] as number))) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}
