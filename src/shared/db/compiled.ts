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
  const textOf = insertTexts(table, columns);
  return async (db, row) => {
    const r = row as Record<string, unknown>;
    await db.executeQuery(
      CompiledQuery.raw(
        textOf(db, 1),
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
  const textOf = insertTexts(table, columns);
  return async (db, rows) => {
    for (let i = 0; i < rows.length; i += perStatement) {
      const part = rows.slice(i, i + perStatement) as Record<string, unknown>[];
      await db.executeQuery(
        CompiledQuery.raw(
          textOf(db, part.length),
          part.flatMap((r) => columns.map((c) => r[c] ?? null)),
        ),
      );
    }
  };
}

/** The INSERT's SQL text for `count` rows, compiled once per database and row count. */
function insertTexts<T extends keyof DB & string>(
  table: T,
  columns: readonly (keyof Insertable<DB[T]> & string)[],
): (db: Executor, count: number) => string {
  const texts = new WeakMap<DialectAdapter, Map<number, string>>();
  const sample = Object.fromEntries(columns.map((c) => [c, null])) as Insertable<DB[T]>;
  return (db, count) => {
    const adapter = db.getExecutor().adapter;
    let byCount = texts.get(adapter);
    if (byCount === undefined) {
      byCount = new Map();
      texts.set(adapter, byCount);
    }
    let text = byCount.get(count);
    if (text === undefined) {
      text = db
        .insertInto(table)
        .values(Array.from({ length: count }, () => sample) as never)
        .compile().sql;
      byCount.set(count, text);
    }
    return text;
  };
}
