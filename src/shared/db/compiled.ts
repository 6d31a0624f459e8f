import type { Compilable, DialectAdapter, Insertable } from 'kysely';
import { run } from './direct.js';
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
    await run(
      db,
      textOf(db, 1),
      columns.map((c) => r[c] ?? null),
    );
  };
}

/**
 * The same, for a row whose stored form differs from the caller's in a few columns (an order: its
 * JSON columns as text, its derived columns): `row`'s fields, with `stored`'s in place of those it
 * names. Merging them into one object first (`{ ...row, ...stored }`) made a 60-column object V8
 * keeps as a dictionary: about 9 KB of garbage per order, against the 0.5 KB of the values' array.
 * The caller's types must cover every column between them.
 */
export function compiledInsertStored<T extends keyof DB & string>(
  table: T,
  columns: readonly (keyof Insertable<DB[T]> & string)[],
): (db: Executor, row: object, stored: Partial<Insertable<DB[T]>>) => Promise<void> {
  const textOf = insertTexts(table, columns);
  return async (db, row, stored) => {
    const r = row as Record<string, unknown>;
    const s = stored as Record<string, unknown>;
    const values = new Array<unknown>(columns.length);
    for (let i = 0; i < columns.length; i++) {
      const c = columns[i] as string;
      values[i] = (c in s ? s[c] : r[c]) ?? null;
    }
    await run(db, textOf(db, 1), values);
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
      await run(
        db,
        textOf(db, part.length),
        part.flatMap((r) => columns.map((c) => r[c] ?? null)),
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

/** What a precompiled query takes: text values, and lists of them (an `in (…)`; one text per length). */
type Arg = string | readonly string[];

/** A parameter of the compiled query: the caller's argument `arg` (element `item` of a list), or a constant. */
type Slot = { arg: number; item: number } | { value: unknown };

/**
 * A query built with Kysely once per database and argument shape (the lengths of its list
 * arguments) and run from its compiled text after that: the reads every create makes (the API
 * key, the account's settings and webhook endpoints) were being built, frozen and compiled anew
 * on every request. `build` is called with a marker in place of each argument (so it must only
 * pass them through as values, never inspect them); the compiled parameters holding a marker are
 * filled with the call's arguments, the others are the query's constants.
 */
export function precompiled<A extends Arg[], R>(
  build: (db: Executor, ...args: A) => Compilable<R>,
): (db: Executor, ...args: A) => Promise<R[]> {
  const compiled = new WeakMap<DialectAdapter, Map<string, { text: string; slots: Slot[] }>>();
  return async (db, ...args) => {
    const adapter = db.getExecutor().adapter;
    let byShape = compiled.get(adapter);
    if (byShape === undefined) {
      byShape = new Map();
      compiled.set(adapter, byShape);
    }
    // Built only when there are lists: the usual call (text values alone) allocates no key.
    let shape = '';
    for (const a of args) if (typeof a !== 'string') shape += `${a.length},`;
    let query = byShape.get(shape);
    if (query === undefined) {
      const marks = new Map<string, { arg: number; item: number }>();
      const mark = (arg: number, item: number) => {
        const m = `\u0000arg ${arg}.${item}`;
        marks.set(m, { arg, item });
        return m;
      };
      const marked = args.map((a, i) => (typeof a === 'string' ? mark(i, -1) : a.map((_, j) => mark(i, j))));
      const { sql, parameters } = build(db, ...(marked as A)).compile();
      const slots = parameters.map((p): Slot => (typeof p === 'string' && marks.get(p)) || { value: p });
      query = { text: sql, slots };
      byShape.set(shape, query);
    }
    const { slots } = query;
    const params = new Array<unknown>(slots.length);
    for (let i = 0; i < slots.length; i++) {
      const s = slots[i] as Slot;
      if ('value' in s) params[i] = s.value;
      else params[i] = s.item < 0 ? args[s.arg] : (args[s.arg] as readonly string[])[s.item];
    }
    return (await run(db, query.text, params)) as R[];
  };
}
