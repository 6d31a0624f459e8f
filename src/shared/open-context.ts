import { type Config, loadConfig } from './config.js';
import { type AppContext, createContext } from './context.js';
import { type Database, openDatabase } from './db/index.js';
import { migrate } from './db/migrate.js';

/** Errors that mean the database named by DATABASE_URL cannot be reached at all. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ECONNRESET']);

/**
 * "connect ECONNREFUSED 127.0.0.1:5432" named no variable: the first thing a process does is reach
 * the database, so say which setting points there. The driver's message holds no password.
 */
export function unreachable(err: unknown): unknown {
  const code = (err as NodeJS.ErrnoException).code;
  if (!(err instanceof Error) || code === undefined || !UNREACHABLE.has(code)) return err;
  return new Error(
    `DATABASE_URL: cannot reach the database (${err.message}): is PostgreSQL running there, and are the host and port right?`,
    { cause: err },
  );
}

/**
 * A migrated database and the context over it; close `database` when done. Apart from server.ts
 * (which builds the HTTP app) so that a CLI command such as `ruta keys create` starts without
 * loading Fastify and every feature's routes: about a second of CPU per run.
 */
export async function openContext(
  config: Config = loadConfig(),
  opts: { longRunning?: boolean } = {},
): Promise<{ ctx: AppContext; database: Database }> {
  let ctx: AppContext | undefined;
  // A server or worker checkpoints SQLite's WAL on a thread of its own; a one-off command needs no thread.
  const walCheckpointer = opts.longRunning
    ? {
        onError: (err: unknown) =>
          ctx?.logger.error({ err }, 'SQLite: the checkpoint thread failed; commits checkpoint the WAL again'),
      }
    : undefined;
  const database = openDatabase(config.databaseUrl, { walCheckpointer });
  try {
    await migrate(database, { timezone: config.defaultTimezone });
  } catch (err) {
    await database.close().catch(() => {});
    throw unreachable(err);
  }
  ctx = createContext(database, config);
  return { ctx, database };
}
