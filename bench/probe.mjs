/**
 * Loaded into the server under test with `node --import ./bench/probe.mjs` when the harness starts
 * it with an IPC channel: measures, inside the process, what the load generator cannot see. A
 * `{ probe: id, window }` message is answered with event-loop delay (monitorEventLoopDelay, 1 ms
 * resolution) and GC pauses (PerformanceObserver 'gc', by kind) since the previous 'load' window,
 * and memory (process.memoryUsage(), sampled every 100 ms for the peaks) since the previous
 * 'scenario' window; then that window's figures restart (a scenario holds several load windows).
 * Plain JavaScript, so that measuring the built server does not load a TypeScript loader into it.
 * Without an IPC channel (a process started any other way) it does nothing.
 */
import { constants, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';

const KINDS = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'scavenge',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'mark_compact',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak_callbacks',
};
const MB = 1024 * 1024;
const r1 = (n) => Math.round(n * 10) / 10;

if (process.send && process.channel) {
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  const fresh = () => ({ count: 0, total_ms: 0, max_ms: 0, by_kind: {} });
  let gc = fresh();
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = KINDS[e.detail?.kind] ?? 'other';
      const k = gc.by_kind[kind] ?? { count: 0, total_ms: 0, max_ms: 0 };
      for (const x of [gc, k]) {
        x.count++;
        x.total_ms += e.duration;
        x.max_ms = Math.max(x.max_ms, e.duration);
      }
      gc.by_kind[kind] = k;
    }
  }).observe({ entryTypes: ['gc'] });

  const peaks = () => ({ rss: 0, heapTotal: 0, heapUsed: 0, external: 0, arrayBuffers: 0 });
  let peak = peaks();
  const sample = () => {
    const m = process.memoryUsage();
    for (const k of Object.keys(peak)) peak[k] = Math.max(peak[k], m[k]);
    return m;
  };
  setInterval(sample, 100).unref();

  process.on('message', (msg) => {
    if (typeof msg !== 'object' || msg === null || !('probe' in msg)) return;
    const now = sample();
    const ms = (ns) => r1(ns / 1e6);
    const mb = (o) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, r1(v / MB)]));
    const round = (o) => ({ ...o, total_ms: r1(o.total_ms), max_ms: r1(o.max_ms) });
    // Diagnosis only (BENCH_NODE_FLAGS=--expose-gc): the live heap at the end of a scenario, after a
    // full collection; never in a measured run, where forcing a collection would change the figures.
    let live = null;
    if (msg.window === 'scenario' && typeof globalThis.gc === 'function') {
      globalThis.gc();
      live = r1(process.memoryUsage().heapUsed / MB);
    }
    process.send({
      live_heap_mb: live,
      probe: msg.probe,
      loop: {
        p50_ms: ms(loop.percentile(50)),
        p99_ms: ms(loop.percentile(99)),
        max_ms: ms(loop.max),
        mean_ms: ms(loop.mean),
      },
      gc: {
        ...round(gc),
        by_kind: Object.fromEntries(Object.entries(gc.by_kind).map(([k, v]) => [k, round(v)])),
      },
      memory_mb: mb(now),
      memory_peak_mb: mb(peak),
    });
    if (msg.window === 'scenario') peak = peaks();
    else {
      loop.reset();
      gc = fresh();
    }
  });
  // The channel must not keep the server alive, nor change how it shuts down.
  process.channel.unref();
}
