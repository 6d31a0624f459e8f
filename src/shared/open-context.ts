import { type Config, loadConfig } from './config.js';
import { type AppContext, createContext } from './context.js';
import { type Database, openDatabase } from './db/index.js';
import { migrate } from './db/migrate.js';

/**
 * A migrated database and the context over it; close `database` when done. Apart from server.ts
 * (which builds the HTTP app) so that a CLI command such as `ruta keys create` starts without
 * loading Fastify and every feature's routes: about a second of CPU per run.
 */
export async function openContext(config: Config = loadConfig()): Promise<{ ctx: AppContext; database: Database }> {
  const database = openDatabase(config.databaseUrl);
  await migrate(database, { timezone: config.defaultTimezone });
  return { ctx: createContext(database, config), database };
}
