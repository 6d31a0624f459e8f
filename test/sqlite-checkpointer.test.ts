import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/shared/db/index.js';
import { loadSqlite } from '../src/shared/db/sqlite-driver.js';

/** Only the checkpoints a test asks for (`checkpoint()`), so what each one finds is known. */
const ASKED_ONLY = { onError: () => {}, intervalMs: 3_600_000 };
const dir = mkdtempSync(join(tmpdir(), 'ruta-checkpointer-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function pragma(database: ReturnType<typeof openDatabase>, text: string): Promise<unknown> {
  return Object.values((await sql.raw(`PRAGMA ${text}`).execute(database.db)).rows[0] as object)[0];
}

/** Rows of about 2 KB each, one commit per 50: enough WAL pages to see where they went. */
async function fill(database: ReturnType<typeof openDatabase>, rows: number): Promise<void> {
  await sql`CREATE TABLE IF NOT EXISTS filler (id INTEGER PRIMARY KEY, body TEXT NOT NULL)`.execute(database.db);
  for (let i = 0; i < rows; i += 50) {
    await database.db.transaction().execute(async (tx) => {
      for (let j = i; j < i + 50; j++)
        await sql`INSERT INTO filler (body) VALUES (${`row ${j} `.padEnd(2000, 'x')})`.execute(tx);
    });
  }
}

// SQLite only (the checkpointer is SQLite's WAL): runs once, not through describeEach.
describe('SQLite WAL checkpoints on a thread of their own', () => {
  it('leaves the writing connection a backstop only, and copies the WAL into the database on its thread', async () => {
    const file = join(dir, 'thread.db');
    const database = openDatabase(`sqlite:${file}`, { walCheckpointer: ASKED_ONLY });
    try {
      expect(database.checkpointer?.running).toBe(true);
      // The writer would checkpoint at SQLite's 1 000 pages; with the thread, only past 10 000.
      expect(await pragma(database, 'wal_autocheckpoint')).toBe(10_000);
      await fill(database, 2_000);
      // ~1 000 pages in the WAL, none of them checkpointed by the writer (it would have at 1 000).
      const before = statSync(`${file}-wal`).size;
      expect(before).toBeGreaterThan(2_000 * 2_000);
      const result = await database.checkpointer!.checkpoint();
      expect(result.busy).toBe(0);
      expect(result.log).toBeGreaterThan(900);
      expect(result.checkpointed).toBe(result.log);
      // A reader on its own connection, through the database file: every row is there.
      const reader = new (loadSqlite())(file, { readonly: true });
      expect((reader.prepare('SELECT count(*) AS n FROM filler').get() as { n: number }).n).toBe(2_000);
      reader.close();
    } finally {
      await database.close();
    }
    // The writer closed last, so SQLite tidied the WAL away; the data stayed.
    expect(existsSync(`${file}-wal`)).toBe(false);
    const again = openDatabase(`sqlite:${file}`);
    try {
      expect(await pragma(again, 'wal_autocheckpoint')).toBe(1_000);
      const { rows } = await sql<{ n: number }>`SELECT count(*) AS n FROM filler`.execute(again.db);
      expect(rows[0]!.n).toBe(2_000);
    } finally {
      await again.close();
    }
  });

  it('starts the WAL over once everything is copied, so it does not grow without end', async () => {
    const file = join(dir, 'restart.db');
    const database = openDatabase(`sqlite:${file}`, { walCheckpointer: ASKED_ONLY });
    try {
      await fill(database, 1_000);
      await database.checkpointer!.checkpoint();
      // The next commit finds every frame copied and writes from the WAL's start again.
      await fill(database, 50);
      const { log } = await database.checkpointer!.checkpoint();
      expect(log).toBeLessThan(200);
    } finally {
      await database.close();
    }
  });

  it('hands checkpoints back to the writer, and says so, when the thread fails', async () => {
    const file = join(dir, 'fails.db');
    const errors: unknown[] = [];
    const database = openDatabase(`sqlite:${file}`, {
      walCheckpointer: { ...ASKED_ONLY, onError: (err) => errors.push(err) },
    });
    try {
      const checkpointer = database.checkpointer!;
      // What a crash of the thread looks like from here: it exits without being asked to.
      await (checkpointer as unknown as { worker: { terminate(): Promise<number> } }).worker.terminate();
      await expect.poll(() => errors.length).toBe(1);
      expect(String(errors[0])).toContain('checkpoint thread exited');
      expect(checkpointer.running).toBe(false);
      expect(await pragma(database, 'wal_autocheckpoint')).toBe(1_000);
      await expect(checkpointer.checkpoint()).rejects.toThrow('not running');
    } finally {
      await database.close();
    }
  });

  it('is not started for a one-off command or an in-memory database', async () => {
    const plain = openDatabase(`sqlite:${join(dir, 'plain.db')}`);
    const memory = openDatabase('sqlite::memory:', { walCheckpointer: { onError: () => {} } });
    try {
      expect(plain.checkpointer).toBeUndefined();
      expect(memory.checkpointer).toBeUndefined();
      expect(await pragma(plain, 'wal_autocheckpoint')).toBe(1_000);
    } finally {
      await plain.close();
      await memory.close();
    }
  });
});
