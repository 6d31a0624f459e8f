// Preloaded (`node --expose-gc --import ./scripts/gc-pressure.mjs dist/cli.js serve`) by
// scripts/node24-stress.mjs into the server it loads: forces garbage collections while requests run,
// so that native objects (prepared statements) are finalised often and at awkward moments. A
// synchronous gc() runs inside a JavaScript context; the asynchronous ones run from a V8 task, as an
// idle-time collection does. Bounded: RUTA_STRESS_GC_COUNT collections at most, and it stops itself
// after RUTA_STRESS_GC_SECONDS; the timer never keeps the process alive.
const gc = globalThis.gc;
if (typeof gc !== 'function') {
  console.error('gc-pressure: run node with --expose-gc');
  process.exit(2);
}
const everyMs = Number(process.env.RUTA_STRESS_GC_MS ?? 25);
const maxCount = Number(process.env.RUTA_STRESS_GC_COUNT ?? 2000);
const maxMs = Number(process.env.RUTA_STRESS_GC_SECONDS ?? 60) * 1000;
const started = Date.now();
let count = 0;
const timer = setInterval(() => {
  if (count >= maxCount || Date.now() - started > maxMs) {
    clearInterval(timer);
    return;
  }
  count++;
  const kind = count % 4;
  if (kind === 0) gc();
  else if (kind === 1) gc({ type: 'minor' });
  else void gc({ type: kind === 2 ? 'major' : 'minor', execution: 'async' });
}, everyMs);
timer.unref();
process.on('exit', () => {
  // Read by the stress script: proves the collections really ran.
  process.stderr.write(`gc-pressure: ${count} forced collections\n`);
});
