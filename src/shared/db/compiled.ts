import { CompiledQuery, type DialectAdapter, type Insertable } from 'kysely';
import type { Executor } from './index.js';
import type { DB } from './schema.js';

/**
 * An INSERT of one row with a fixed column list, for the hottest writes (an order, its timeline
 * entry, its event). Kysely would build, freeze and compile the same query tree on every call
 * (about a tenth of the create path's CPU together); here the SQL text is compiled once per
 * database (dialects differ in placeholders) and each call only lines up the values.
 */
export function compiledInsert<T extends keyof DB & string>(
  table: T,
  columns: readonly (keyof Insertable<DB[T]> & string)[],
): (db: Executor, row: Insertable<DB[T]>) => Promise<void> {
  const texts = new WeakMap<DialectAdapter, string>();
  return async (db, row) => {
    const adapter = db.getExecutor().adapter;
    let text = texts.get(adapter);
    if (text === undefined) {
      const sample = Object.fromEntries(columns.map((c) => [c, null])) as Insertable<DB[T]>;
      text = db
        .insertInto(table)
        .values(sample as never)
        .compile().sql;
      texts.set(adapter, text);
    }
    const r = row as Record<string, unknown>;
    await db.executeQuery(
      CompiledQuery.raw(
        text,
        columns.map((c) => r[c] ?? null),
      ),
    );
  };
}

/**
 * The same for up to `perStatement` rows in one INSERT (its text compiled once per row count): a
 * create with customer messages writes three of them and a job, and on SQLite each statement costs
 * its own trip through Kysely's driver and better-sqlite3 (the statement-cache lookup of
 * db/index.ts, binding, a step) on top of the rows' writing.
 */
export function compiledInsertRows<T extends keyof DB & string>(
  table: T,
  columns: readonly (keyof Insertable<DB[T]> & string)[],
  perStatement: number,
): (db: Executor, rows: readonly Insertable<DB[T]>[]) => Promise<void> {
  const texts = new WeakMap<DialectAdapter, Map<number, string>>();
  const sample = Object.fromEntries(columns.map((c) => [c, null])) as Insertable<DB[T]>;
  return async (db, rows) => {
    const adapter = db.getExecutor().adapter;
    let byCount = texts.get(adapter);
    if (byCount === undefined) {
      byCount = new Map();
      texts.set(adapter, byCount);
    }
    for (let i = 0; i < rows.length; i += perStatement) {
      const part = rows.slice(i, i + perStatement) as Record<string, unknown>[];
      let text = byCount.get(part.length);
      if (text === undefined) {
        text = db
          .insertInto(table)
          .values(part.map(() => sample) as never)
          .compile().sql;
        byCount.set(part.length, text);
      }
      await db.executeQuery(
        CompiledQuery.raw(
          text,
          part.flatMap((r) => columns.map((c) => r[c] ?? null)),
        ),
      );
    }
  };
}
