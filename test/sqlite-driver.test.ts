import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/shared/db/index.js';
import { loadSqlite, sqliteDriverName } from '../src/shared/db/sqlite-driver.js';

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const major = Number(process.versions.node.split('.')[0]);
const dir = mkdtempSync(join(tmpdir(), 'ruta-driver-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// SQLite only: this is about the SQLite driver, so it runs once, not through describeEach.
describe(`the SQLite driver on Node ${process.versions.node}`, () => {
  it('is better-sqlite3 12 on Node 20 and 13 from Node 22', () => {
    expect(sqliteDriverName('20.20.0')).toBe('better-sqlite3');
    expect(sqliteDriverName('21.7.3')).toBe('better-sqlite3');
    expect(sqliteDriverName('22.0.0')).toBe('better-sqlite3-13');
    expect(sqliteDriverName('24.21.0')).toBe('better-sqlite3-13');
  });

  it('loads the installed version this runtime needs', () => {
    const name = sqliteDriverName();
    const { version } = require(`${name}/package.json`) as { version: string };
    expect(version.split('.')[0]).toBe(major >= 22 ? '13' : '12');
    expect(loadSqlite()).toBe(require(name));
  });

  it('opens with WAL, synchronous NORMAL, a busy timeout and foreign keys', async () => {
    const database = openDatabase(`sqlite:${join(dir, 'pragmas.db')}`);
    try {
      const one = async (pragma: string) =>
        Object.values((await sql.raw(`PRAGMA ${pragma}`).execute(database.db)).rows[0] as object)[0];
      expect(await one('journal_mode')).toBe('wal');
      expect(await one('synchronous')).toBe(1);
      expect(await one('busy_timeout')).toBe(5000);
      expect(await one('foreign_keys')).toBe(1);
    } finally {
      await database.close();
    }
  });

  // The regression for the Node 24 abort: statements evicted from the cache and collected by V8 on
  // its own made better-sqlite3 12 abort the process (exit 134) on Node >= 24.19, every time.
  it('survives statements collected outside JavaScript, and exits 0', async () => {
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', 'scripts/sqlite-churn.mjs', `sqlite:${join(dir, 'churn.db')}`, '--source'],
      { env: { ...process.env, RUTA_LOG_LEVEL: 'warn' } },
    );
    expect(stdout).toContain('churn: 20000 queries, 2000 distinct');
  }, 120_000);
});
