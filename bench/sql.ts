/**
 * One SQL statement against the bench database from the bench process, for set-up shortcuts and
 * counts that the API has no cheap way to give (as seed.ts does for its bulk rows). `?` placeholders
 * on both engines (numbered for PostgreSQL here). A connection per call: these are few.
 */
import pg from 'pg';
import { loadSqlite } from '../src/shared/db/sqlite-driver.js';
import type { DbKind } from './env.js';

export async function sql<T = Record<string, unknown>>(
  kind: DbKind,
  url: string,
  text: string,
  params: unknown[] = [],
): Promise<T[]> {
  if (kind === 'sqlite') {
    const SQLite = loadSqlite();
    const db = new SQLite(url.slice('sqlite:'.length));
    try {
      // The server holds the database meanwhile: wait for its write lock rather than fail.
      db.pragma('busy_timeout = 10000');
      const stmt = db.prepare(text);
      if (stmt.reader) return stmt.all(...params) as T[];
      stmt.run(...params);
      return [];
    } finally {
      db.close();
    }
  }
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    let n = 0;
    return (
      await c.query(
        text.replace(/\?/g, () => `$${++n}`),
        params,
      )
    ).rows as T[];
  } finally {
    await c.end();
  }
}

/** `select count(*) as n …` as a number. */
export async function count(kind: DbKind, url: string, text: string, params: unknown[] = []): Promise<number> {
  const [row] = await sql<{ n: number | string }>(kind, url, text, params);
  return Number(row?.n ?? 0);
}
