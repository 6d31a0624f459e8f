// Reads Vitest's JSON report: fails unless the PostgreSQL suite ran and passed, and prints the
// plain "N passed, N failed" line CI reads.
import { readFileSync } from 'node:fs';

const report = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const tests = report.testResults.flatMap((f) => f.assertionResults);
const passed = tests.filter((t) => t.status === 'passed');
const failed = tests.filter((t) => t.status === 'failed');
const skipped = tests.length - passed.length - failed.length;
const pgPassed = passed.filter((t) => t.ancestorTitles.some((a) => a.includes('[postgres]'))).length;
const sqlitePassed = passed.filter((t) => t.ancestorTitles.some((a) => a.includes('[sqlite]'))).length;

console.log(`sqlite tests passed: ${sqlitePassed}; postgres tests passed: ${pgPassed}`);
console.log(`tests: ${passed.length} passed, ${failed.length} failed, ${skipped} skipped`);
if (failed.length > 0 || !report.success) process.exit(1);
if (pgPassed === 0) {
  console.error('The PostgreSQL suite did not run: is TEST_DATABASE_URL set and PostgreSQL up?');
  process.exit(1);
}
if (pgPassed < sqlitePassed) {
  console.error(`Only ${pgPassed} PostgreSQL tests passed against ${sqlitePassed} on SQLite: the suites must match.`);
  process.exit(1);
}
