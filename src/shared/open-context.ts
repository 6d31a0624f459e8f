import { type Config, loadConfig } from './config.js';
import { type AppContext, createContext } from './context.js';
import { type Database, openDatabase } from './db/index.js';
import { migrate } from './db/migrate.js';

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
  await migrate(database, { timezone: config.defaultTimezone });
  ctx = createContext(database, config);
  return { ctx, database };
}
