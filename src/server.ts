import type { FastifyInstance } from 'fastify';
import type { pino } from 'pino';
import { buildApp, JOBS } from './app.js';
import { startImportRunner } from './features/imports/runner.js';
import { countUsers } from './features/people/repo.js';
import { startDispatcher } from './features/webhooks/dispatcher.js';
import { type Config, loadConfig, publicUrlWarning } from './shared/config.js';
import type { AppContext } from './shared/context.js';
import { collectStartupGarbage, limitHeapGrowth } from './shared/heap.js';
import { JobRunner } from './shared/jobs/runner.js';
import { openContext } from './shared/open-context.js';

/** Background loops (the webhook dispatcher, cleanup) that start with the process and stop before the database closes. */
export interface Service {
  stop(): Promise<void>;
}

export type ServiceFactory = (ctx: AppContext, log: pino.Logger) => Service;

/** The leased jobs of every kind in JOBS (route plan solves), each kind at its own concurrency. */
const startJobs: ServiceFactory = (ctx, log) => new JobRunner(ctx, JOBS, { log }).start();

/** Background services each process runs (`ruta serve` unless --api-only, `ruta worker`); features append theirs. */
export const backgroundServices: ServiceFactory[] = [startDispatcher, startImportRunner, startJobs];

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

/** Why `listen` failed, in the operator's words: which variable to change. */
function listenError(err: NodeJS.ErrnoException, config: Pick<Config, 'port' | 'host'>): Error {
  switch (err.code) {
    case 'EADDRINUSE':
      return new Error(
        `PORT ${config.port} is already in use on ${config.host} (another process, perhaps another ruta serve, listens there): stop it or set PORT to a free port`,
      );
    case 'EACCES':
      return new Error(`PORT ${config.port} needs privileges this user lacks: use a port above 1023 (behind a proxy)`);
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_FAIL':
      return new Error(
        `HOST ${config.host} is not an address of this machine (${err.code}): use 0.0.0.0 (every interface), 127.0.0.1 or one of its own addresses`,
      );
    default:
      return err;
  }
}

/**
 * Listens, and only then starts the background services. A process that cannot listen (the port
 * is taken, HOST is not an address here) exits 1; had its webhook dispatcher and job runner started
 * first, they would have claimed deliveries and plan solves just before the exit, each claim
 * counting an attempt that never ran, with its lease left to lapse: a service restarting in a loop
 * (systemd's Restart=on-failure while another process holds the port) would use up their attempts.
 */
export async function listenThenStart(
  app: FastifyInstance,
  config: Pick<Config, 'port' | 'host'>,
  start: () => Service[],
): Promise<Service[]> {
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    throw listenError(err as NodeJS.ErrnoException, config);
  }
  return start();
}

export async function serve(opts: { background: boolean } = { background: true }): Promise<FastifyInstance> {
  const config = loadConfig();
  limitHeapGrowth(config.heapGrowthPercent);
  const { ctx, database } = await openContext(config, { longRunning: true });
  const log = ctx.logger;
  const app = await buildApp(ctx);
  const services = await listenThenStart(app, config, () =>
    opts.background ? backgroundServices.map((f) => f(ctx, log)) : [],
  ).catch(async (err) => {
    // Exit with the listen error, not one from closing what never served.
    await app.close().catch(() => {});
    await database.close().catch(() => {});
    throw err;
  });
  // The bound port, which differs from the configured one when PORT=0 asks for any free port.
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  collectStartupGarbage();
  log.info({ port, engine: ctx.engine }, 'ruta listening');
  const publicUrlWarned = publicUrlWarning(config.publicUrl);
  if (publicUrlWarned) log.warn({ public_url: config.publicUrl }, publicUrlWarned);
  if (!config.defaultTimezoneSet) {
    // Not a mistake (UTC may be meant), but a carrier elsewhere would otherwise find its days cut at UTC midnight.
    log.info(
      'RUTA_DEFAULT_TIMEZONE is not set: the carrier’s days and times are in UTC, except where a depot or an account has its own zone. Set it to yours, e.g. RUTA_DEFAULT_TIMEZONE=America/Lima (docs/operations.md).',
    );
  }
  onShutdown(log, async () => {
    // Stop taking requests first, then let workers finish or release what they hold.
    await app.close();
    await Promise.all(services.map((s) => s.stop()));
    await database.close();
  });
  // After the shutdown handler is in place, and best effort: a SIGTERM (which closes the database)
  // during this read must still end in a clean exit, and a hint is not worth failing for.
  const users = await countUsers(ctx.db).catch(() => undefined);
  if (users === 0) {
    log.info(
      'No users yet. Create the first admin: npm run ruta -- users create --email you@example.com --name "Your Name" --role admin',
    );
  }
  return app;
}

export async function worker(): Promise<void> {
  const config = loadConfig();
  limitHeapGrowth(config.heapGrowthPercent);
  const { ctx, database } = await openContext(config, { longRunning: true });
  const log = ctx.logger;
  const services = backgroundServices.map((f) => f(ctx, log));
  collectStartupGarbage();
  log.info({ engine: ctx.engine, services: services.length }, 'ruta worker running');
  onShutdown(log, async () => {
    await Promise.all(services.map((s) => s.stop()));
    await database.close();
  });
}
