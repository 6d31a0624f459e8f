import { createRequire } from 'node:module';
import type SQLite from 'better-sqlite3';

/**
 * The better-sqlite3 build that is safe on this runtime, chosen once per call and loaded lazily, so
 * the other one is never loaded:
 * - Node >= 22: better-sqlite3 13 (installed as `better-sqlite3-13`). Node-API, prebuilt binaries
 *   in the package, nothing to compile. Version 12 must not run here: its `node::ObjectWrap`
 *   objects, built against Node >= 24.19 headers, abort the process (`(env) != nullptr` in
 *   `RemoveEnvironmentCleanupHook`) when a statement is garbage-collected outside a JavaScript
 *   context, i.e. on an idle or exit-time GC.
 * - Node 20: better-sqlite3 12 (an optional dependency, compiled on install). Version 13 needs
 *   Node >= 22 and segfaults on Node 20 at its first query.
 * Both have the same API, so `openDatabase` and Kysely's `SqliteDialect` see one interface.
 * ARCHITECTURE.md ("The SQLite driver") has the measurements.
 */
export type SqliteConstructor = typeof SQLite;

export function sqliteDriverName(nodeVersion: string = process.versions.node): string {
  const major = Number(nodeVersion.split('.')[0]);
  return major >= 22 ? 'better-sqlite3-13' : 'better-sqlite3';
}

const require = createRequire(import.meta.url);

export function loadSqlite(): SqliteConstructor {
  const name = sqliteDriverName();
  try {
    return require(name) as SqliteConstructor;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw err;
    throw new Error(
      `The SQLite driver for Node ${process.versions.node} (${name}) is not installed: run \`npm ci\` with this Node version.`,
      { cause: err },
    );
  }
}
