import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../src/shared/db/index.js';
import { sqliteDriverName } from '../src/shared/db/sqlite-driver.js';

const ROOT = join(import.meta.dirname, '..');

/**
 * Another process writing to the same SQLite file (a `ruta worker` beside `ruta serve --api-only`, a
 * CLI command): it runs until it has written, and says so on exit.
 */
function otherProcessWrites(file: string): { exited: Promise<number | null> } {
  const script = `
    const Sqlite = require(${JSON.stringify(sqliteDriverName())});
    const db = new Sqlite(${JSON.stringify(file)});
    db.pragma('busy_timeout = 20000');
    db.prepare("insert into probe (k) values ('other')").run();
  `;
  const child = spawn(process.execPath, ['-e', script], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  return { exited: new Promise((resolve) => child.once('exit', (code) => resolve(code))) };
}

describe('SQLite transactions with another process on the same file', () => {
  let dir: string;
  let handle: Database;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ruta-immediate-'));
    handle = openDatabase(`sqlite:${join(dir, 'ruta.db')}`);
    await sql`create table probe (k text primary key)`.execute(handle.db);
  });
  afterAll(async () => {
    await handle?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('a transaction that reads, then writes, is not refused because another process wrote in between', async () => {
    const file = join(dir, 'ruta.db');
    let other: { exited: Promise<number | null> } | undefined;
    await handle.db.transaction().execute(async (trx) => {
      await sql`select k from probe`.execute(trx);
      // The other process writes now. A deferred transaction (SQLite's default) lets it commit
      // here, and its own write below then fails at once with SQLITE_BUSY_SNAPSHOT, which no busy
      // timeout waits out; an immediate one holds the write lock from its start, so the other
      // process waits for this commit instead. Up to 2 s for it to commit (or to be seen waiting).
      other = otherProcessWrites(file);
      await Promise.race([other.exited, new Promise((resolve) => setTimeout(resolve, 2000))]);
      await sql`insert into probe (k) values ('this')`.execute(trx);
    });
    expect(await other?.exited).toBe(0);
    const { rows } = await sql<{ k: string }>`select k from probe order by k`.execute(handle.db);
    expect(rows.map((r) => r.k)).toEqual(['other', 'this']);
  });
});
