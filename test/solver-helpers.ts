// Instances for the optimizer's tests: a seeded generator, so every generated instance is the same on
// every run, and Euclidean matrices.

/** A seeded LCG returning floats in [0, 1). */
export function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

/** The Euclidean distance between every two points, row by row (time and distance alike). */
export function euclidean(points: [number, number][]): Float64Array {
  const size = points.length;
  const m = new Float64Array(size * size);
  for (let a = 0; a < size; a++) {
    for (let b = 0; b < size; b++) {
      const [ax, ay] = points[a] as [number, number];
      const [bx, by] = points[b] as [number, number];
      m[a * size + b] = Math.hypot(ax - bx, ay - by);
    }
  }
  return m;
}
