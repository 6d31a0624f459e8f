// Reads Vitest's JSON report: fails unless the PostgreSQL suite ran and passed and every browser
// test (a file named *.browser.*) ran, and prints the plain "N passed, N failed" line CI reads.
// Usage: node .ci/check-report.mjs REPORT.json [NODE_MAJOR] [sqlite-only | browser-on-postgres] —
// with NODE_MAJOR, also fails unless it runs on that Node major (CI puts the Node under test first
// on PATH for the tests and for this); with sqlite-only, a run of the SQLite half alone
// (TEST_DATABASE_URL unset) passes; with browser-on-postgres, the browser tests that take an engine
// must have run on PostgreSQL alone (RUTA_TEST_BROWSER_ENGINES=postgres: their SQLite run is the
// Node 24 run's).
import { readFileSync } from 'node:fs';

const report = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const tests = report.testResults.flatMap((f) => f.assertionResults.map((t) => ({ ...t, file: f.name })));
const passed = tests.filter((t) => t.status === 'passed');
const failed = tests.filter((t) => t.status === 'failed');
const skipped = tests.length - passed.length - failed.length;
const onEngine = (t, engine) => t.ancestorTitles.some((a) => a.includes(`[${engine}]`));
const pgPassed = passed.filter((t) => onEngine(t, 'postgres')).length;
const sqlitePassed = passed.filter((t) => onEngine(t, 'sqlite')).length;

const expectedMajor = process.argv[3];
const major = process.versions.node.split('.')[0];
console.log(`node ${process.version}`);
if (expectedMajor && major !== expectedMajor) {
  console.error(`Expected Node ${expectedMajor}, running on ${process.version}.`);
  process.exit(1);
}
console.log(`sqlite tests passed: ${sqlitePassed}; postgres tests passed: ${pgPassed}`);
console.log(`tests: ${passed.length} passed, ${failed.length} failed, ${skipped} skipped`);
if (failed.length > 0 || !report.success) process.exit(1);
const mode = process.argv[4] ?? '';
if (!['', 'sqlite-only', 'browser-on-postgres'].includes(mode)) {
  console.error(`Unknown mode "${mode}": sqlite-only or browser-on-postgres.`);
  process.exit(1);
}
const sqliteOnly = mode === 'sqlite-only';
if (sqliteOnly) {
  if (pgPassed > 0 || sqlitePassed === 0) {
    console.error(`A SQLite-only run: ${sqlitePassed} SQLite and ${pgPassed} PostgreSQL tests passed.`);
    process.exit(1);
  }
} else if (pgPassed === 0) {
  console.error('The PostgreSQL suite did not run: is TEST_DATABASE_URL set and PostgreSQL up?');
  process.exit(1);
}
// The engines' suites must match (the browser tests' may be on PostgreSQL alone: browser-on-postgres).
const notBrowser = (t) => !/\.browser\./.test(t.file);
const pgApi = passed.filter((t) => notBrowser(t) && onEngine(t, 'postgres')).length;
const sqliteApi = passed.filter((t) => notBrowser(t) && onEngine(t, 'sqlite')).length;
if (!sqliteOnly && pgApi < sqliteApi) {
  console.error(`Only ${pgApi} PostgreSQL tests passed against ${sqliteApi} on SQLite: the suites must match.`);
  process.exit(1);
}

// A browser test that skips (no Chromium) passes for the wrong reason: CI installs Chromium.
const browser = tests.filter((t) => /\.browser\./.test(t.file));
const browserSkipped = browser.filter((t) => t.status !== 'passed' && t.status !== 'failed');
if (browser.length === 0 || browserSkipped.length > 0) {
  console.error(`Browser tests: ${browser.length} found, ${browserSkipped.length} skipped; they must all run:`);
  for (const t of browserSkipped) console.error(`  skipped: ${t.fullName}`);
  process.exit(1);
}
console.log(`browser tests run: ${browser.length}`);
if (mode === 'browser-on-postgres') {
  const onSqlite = browser.filter((t) => onEngine(t, 'sqlite'));
  const onPg = browser.filter((t) => onEngine(t, 'postgres'));
  if (onSqlite.length > 0 || onPg.length === 0) {
    console.error(`Browser tests on SQLite: ${onSqlite.length}, on PostgreSQL: ${onPg.length}; they must run on PostgreSQL alone here`);
    console.error('(a browser test file takes its engines from describeEachInBrowser, test/helpers.ts):');
    for (const f of new Set(onSqlite.map((t) => t.file))) console.error(`  ${f}`);
    process.exit(1);
  }
}

// The slowest files (each one's own time, run beside the others), where CI's time goes.
const files = report.testResults
  .map((f) => ({ name: f.name.replace(/^.*\/test\//, 'test/'), ms: f.endTime - f.startTime }))
  .filter((f) => Number.isFinite(f.ms))
  .sort((a, b) => b.ms - a.ms);
const total = files.reduce((sum, f) => sum + f.ms, 0);
console.log(`files: ${files.length}, ${Math.round(total / 1000)} s in all; the slowest:`);
for (const f of files.slice(0, 12)) console.log(`  ${String(Math.round(f.ms / 1000)).padStart(5)} s  ${f.name}`);
