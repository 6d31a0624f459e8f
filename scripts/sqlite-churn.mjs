// Run by scripts/node24-stress.mjs as a child: opens a SQLite database through the project's own
// `openDatabase` (the runtime-chosen driver, pragmas and statement cache), runs more distinct queries
// than the statement cache holds while allocating, so evicted statements are garbage-collected by
// V8's own (task-driven, context-less) collections and at exit, then closes and exits naturally.
// With better-sqlite3 12 on Node 24.21 this aborted 8 runs in 8 (exit 134).
// Usage: node scripts/sqlite-churn.mjs sqlite:/tmp/x.db (after a build), or from the sources as
// test/sqlite-driver.test.ts runs it: node --import tsx scripts/sqlite-churn.mjs sqlite:/tmp/x.db --source
import { sql } from 'kysely';

const { openDatabase } = await import(
  process.argv[3] === '--source' ? '../src/shared/db/index.ts' : '../dist/shared/db/index.js'
);
const database = openDatabase(process.argv[2]);
let junk = [];
for (let i = 0; i < 20_000; i++) {
  await sql`select ${sql.raw(String(i % 2000))} as n`.execute(database.db);
  junk.push(new Array(50).fill(i));
  if (junk.length > 50_000) junk = [];
}
await database.close();
console.log('churn: 20000 queries, 2000 distinct');
