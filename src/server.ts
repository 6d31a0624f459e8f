import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { type AppContext, buildApp, loggerOptions } from './app.js';
import { startDispatcher } from './features/webhooks/dispatcher.js';
import { type Config, loadConfig } from './shared/config.js';
import { openDatabase } from './shared/db/index.js';
import { migrate } from './shared/db/migrate.js';

/** Background loops (the webhook dispatcher, cleanup) that start with the process and stop before the database closes. */
export interface Service {
  stop(): Promise<void>;
}

export type ServiceFactory = (ctx: AppContext, log: pino.Logger) => Service;

/** Background services each process runs; features append theirs. */
export const backgroundServices: ServiceFactory[] = [startDispatcher];

export async function openContext(config: Config = loadConfig()): Promise<AppContext> {
  const database = openDatabase(config.databaseUrl);
  await migrate(database);
  return { config, database, db: database.db };
}

function onShutdown(log: pino.Logger, stop: () => Promise<void>): void {
  let stopping = false;
  const handler = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 30_000);
    force.unref();
    stop().then(
      () => process.exit(0),
      (err) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
}

export async function serve(opts: { background: boolean } = { background: true }): Promise<FastifyInstance> {
  const config = loadConfig();
  const log = pino(loggerOptions(config.logLevel) as pino.LoggerOptions);
  const ctx = await openContext(config);
  const app = await buildApp(ctx, { logger: loggerOptions(config.logLevel) });
  const services = opts.background ? backgroundServices.map((f) => f(ctx, log)) : [];
  await app.listen({ port: config.port, host: config.host });
  // The bound port, which differs from the configured one when PORT=0 asks for any free port.
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  log.info({ port, engine: ctx.database.engine }, 'ruta listening');
  onShutdown(log, async () => {
    // Stop taking requests first, then let workers finish or release what they hold.
    await app.close();
    await Promise.all(services.map((s) => s.stop()));
    await ctx.database.close();
  });
  return app;
}

export async function worker(): Promise<void> {
  const config = loadConfig();
  const log = pino(loggerOptions(config.logLevel) as pino.LoggerOptions);
  const ctx = await openContext(config);
  const services = backgroundServices.map((f) => f(ctx, log));
  log.info({ engine: ctx.database.engine, services: services.length }, 'ruta worker running');
  onShutdown(log, async () => {
    await Promise.all(services.map((s) => s.stop()));
    await ctx.database.close();
  });
}
