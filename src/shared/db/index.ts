import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type SQLite from 'better-sqlite3';
import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  Kysely,
  type Kysely as KyselyType,
  PostgresDialect,
  type SqliteDatabase,
  SqliteDialect,
  type SqliteDialectConfig,
  SqliteDriver,
  sql,
  type Transaction,
} from 'kysely';
import pg from 'pg';
import { WalCheckpointer } from './checkpointer.js';
import { type DirectSqlite, runDirectlyOn } from './direct.js';
import type { DB } from './schema.js';
import { loadSqlite } from './sqlite-driver.js';

export type Engine = 'sqlite' | 'postgres';
export type Db = KyselyType<DB>;
export type Tx = Transaction<DB>;
/** Either the database or an open transaction: data-access functions accept both. */
export type Executor = Db | Tx;
/** Position in a newest-first list, compared as the row value (created_at, id). */
export interface KeysetCursor {
  created_at: number;
  id: string;
}

export interface Database {
  db: Db;
  engine: Engine;
  /** SQLite file databases opened with `walCheckpointer`: the thread that checkpoints the WAL. */
  checkpointer?: WalCheckpointer;
  ping(): Promise<void>;
  close(): Promise<void>;
}

function wrap(db: Db, engine: Engine, checkpointer?: WalCheckpointer): Database {
  return {
    db,
    engine,
    checkpointer,
    ping: async () => {
      await sql`select 1`.execute(db);
    },
    close: async () => {
      await checkpointer?.stop();
      await db.destroy();
    },
  };
}

// int8 (COUNT, bigint columns holding epoch milliseconds) fits a JS number for every value we store.
pg.types.setTypeParser(20, (v) => Number(v));
// numeric
pg.types.setTypeParser(1700, (v) => Number(v));

export function engineOf(url: string): Engine {
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) return 'postgres';
  if (url.startsWith('sqlite:')) return 'sqlite';
  throw new Error(`DATABASE_URL must start with sqlite: or postgres://, got "${url.split(':')[0]}:…"`);
}

function sqlitePath(url: string): string {
  const path = url.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
  return path === ':memory:' ? path : resolve(path);
}

const STATEMENT_CACHE_SIZE = 500;

/**
 * Kysely's SQLite driver prepares every query anew, which the create-path profile showed as a tenth
 * of the server's CPU. Kysely emits the same SQL text for the same query shape, so prepared
 * statements are kept by text (bounded: `IN (…)` lists of many lengths must not grow it forever).
 * better-sqlite3 is synchronous, so one statement is never run twice at once.
 */
function cachingStatements(sqlite: SQLite.Database): SqliteDatabase & DirectSqlite {
  const cache = new Map<string, SQLite.Statement>();
  return {
    get inTransaction() {
      return sqlite.inTransaction;
    },
    prepare(text: string) {
      let stmt = cache.get(text);
      if (!stmt) {
        stmt = sqlite.prepare(text);
        if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
        cache.set(text, stmt);
      }
      return stmt;
    },
    close: () => sqlite.close(),
  };
}

export interface OpenOptions {
  poolSize?: number;
  /**
   * SQLite: checkpoint the WAL on a thread of its own (checkpointer.ts), for long-running processes
   * (`ruta serve`, `ruta worker`); told when that thread fails and the connection checkpoints again.
   */
  walCheckpointer?: { onError: (err: unknown) => void; intervalMs?: number };
}

/**
 * Switches the file to WAL. Two processes opening a new file at once (two CLI runs, a server and a
 * worker) both try; the file is still in rollback mode then, where SQLite answers one of two
 * connections that both hold a shared lock and want an exclusive one SQLITE_BUSY at once, without
 * the busy timeout (it would deadlock otherwise). CI's Node 24 stress script hit it: "database is
 * locked" on the second of its first two runs. So the switch is retried for up to 5 s.
 */
function toWal(sqlite: { pragma(source: string): unknown }): void {
  const until = performance.now() + 5000;
  for (;;) {
    try {
      sqlite.pragma('journal_mode = WAL');
      return;
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      if (typeof code !== 'string' || !code.startsWith('SQLITE_BUSY') || performance.now() > until) throw err;
      // openDatabase is synchronous: a short blocking wait, only while another process holds the file.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10 + Math.random() * 20);
    }
  }
}

/**
 * SQLite transactions begin IMMEDIATE: with the write lock, waiting on busy_timeout for it. Kysely
 * begins them DEFERRED, and a deferred transaction that reads and then writes, while another
 * process (a `ruta worker` beside `serve --api-only`, a CLI command) commits between the two, is
 * refused at its write with SQLITE_BUSY ("database is locked") at once: its snapshot is stale, so no
 * wait could help (test/sqlite-transactions.test.ts). Within one process nothing changes: its one
 * connection runs one transaction at a time anyway.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  constructor(private readonly settings: SqliteDialectConfig) {
    super(settings);
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.settings);
  }
}

export function openDatabase(url: string, opts: OpenOptions = {}): Database {
  const engine = engineOf(url);
  if (engine === 'postgres') {
    const pool = new pg.Pool({ connectionString: url, max: opts.poolSize ?? 20 });
    // An idle client that errors (server restart) must not crash the process; the pool replaces it.
    pool.on('error', () => {});
    return wrap(new Kysely<DB>({ dialect: new PostgresDialect({ pool }) }), engine);
  }
  const file = sqlitePath(url);
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const Sqlite = loadSqlite();
  const sqlite = new Sqlite(file);
  sqlite.pragma('busy_timeout = 5000');
  toWal(sqlite);
  // WAL + NORMAL survives a process crash; only an OS crash can lose the last commits.
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  const checkpointer =
    opts.walCheckpointer && file !== ':memory:'
      ? new WalCheckpointer(sqlite, file, opts.walCheckpointer.onError, opts.walCheckpointer.intervalMs)
      : undefined;
  const statements = cachingStatements(sqlite);
  const db = new Kysely<DB>({ dialect: new ImmediateSqliteDialect({ database: statements }) });
  // The hot statements of db/compiled.ts run on the same connection and statement cache directly (direct.ts).
  runDirectlyOn(db, statements);
  return wrap(db, engine, checkpointer);
}
