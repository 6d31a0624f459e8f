import type SQLite from 'better-sqlite3';
import { CompiledQuery, type DialectAdapter, type Kysely, type Transaction } from 'kysely';
import type { DB } from './schema.js';

/**
 * SQLite's connection as the statements below use it: prepared statements (the cache of
 * db/index.ts) and whether a transaction is open on it.
 */
export interface DirectSqlite {
  prepare(text: string): SQLite.Statement;
  readonly inTransaction: boolean;
}

/** Each SQLite database's connection, by its Kysely instance's adapter (a transaction shares it). */
const directs = new WeakMap<DialectAdapter, DirectSqlite>();

/** Lets the statements of db/compiled.ts run on `db`'s SQLite connection without Kysely's driver (`run`). */
export function runDirectlyOn(db: Kysely<DB>, sqlite: DirectSqlite): void {
  directs.set(db.getExecutor().adapter, sqlite);
}

/**
 * Runs compiled SQL (the statements of db/compiled.ts). On SQLite, straight on better-sqlite3
 * (synchronous) rather than through Kysely's driver, whose connection mutex, transaction wrapper and per-query executor make a
 * dozen promises and closures for each statement: on the create path that was 40 % of the JS heap
 * it allocated (BENCHMARKS.md, "Fewer allocations per create"). Only when that is what Kysely
 * would do anyway: inside a transaction's callback (`db` is the transaction, whose connection is
 * ours until it ends), or outside one while no transaction is open on the connection (a statement
 * of its own, autocommitted). While another caller's transaction is open, it waits its turn
 * through Kysely, so it can never run inside someone else's transaction. PostgreSQL: Kysely.
 */
export async function run(
  db: Kysely<DB> | Transaction<DB>,
  text: string,
  params: readonly unknown[],
): Promise<unknown[]> {
  const sqlite = directs.get(db.getExecutor().adapter);
  if (sqlite !== undefined && (db.isTransaction || !sqlite.inTransaction)) {
    const stmt = sqlite.prepare(text);
    if (stmt.reader) return stmt.all(params);
    stmt.run(params);
    return [];
  }
  return (await db.executeQuery(CompiledQuery.raw(text, params as unknown[]))).rows;
}
