import { EventEmitter } from 'node:events';
import { pino } from 'pino';
import pretty from 'pino-pretty';
import { Registry } from 'prom-client';
import type { Config } from './config.js';
import type { Db, Engine } from './db/index.js';
import { Instance } from './instance.js';
import { LiveBus } from './live.js';

/** Epoch milliseconds. Time is read through the context so tests can hold it still or move it on. */
export type Clock = () => number;

/**
 * The machine's clock: the only place in src/ that reads it (test/one-clock.test.ts). Everything
 * else takes time from `ctx.clock`, or from a Clock it was given where there is no context (the
 * local webhook receiver of `ruta webhooks listen`). Read on each call, so a test that stubs
 * Date.now moves it too.
 */
export const systemClock: Clock = () => Date.now();

/**
 * What every route, service and background job of one app or worker instance works with; the one
 * context type (features take this, not their own variants). It holds no per-request data, and
 * nothing here is process-wide: two instances in one process each have their own.
 */
export interface AppContext {
  readonly db: Db;
  /** The one place the engine is known; repositories whose SQL differs take it from here. */
  readonly engine: Engine;
  readonly config: Config;
  readonly clock: Clock;
  readonly logger: pino.Logger;
  /**
   * This instance's metrics (HTTP, webhook deliveries); `/metrics` serves them after the
   * process-wide default metrics. Per instance, so two apps in one process count apart.
   */
  readonly metrics: Registry;
  /**
   * Wake-ups within this instance: a request that queues background work (webhook deliveries:
   * `'webhooks:queued'`) signals, and this instance's worker listens. Never crosses instances.
   */
  readonly signals: EventEmitter;
  /** Live updates other than order events (courier positions, plan and import progress), see live.ts. */
  readonly live: LiveBus;
  /** This instance's own long-lived state (location buffer, stream hub); closed by app.close(). */
  readonly instance: Instance<AppContext>;
}

export function loggerOptions(level: string): pino.LoggerOptions {
  return {
    level,
    // Belt and braces: nothing logs headers or bodies today, but if anyone ever does, secrets stay out.
    redact: {
      paths: [
        'req.headers.authorization',
        'headers.authorization',
        'req.headers.cookie',
        'headers.cookie',
        '*.secret',
        'secret',
        '*.key_hash',
        '*.password',
        'password',
        '*.password_hash',
      ],
      censor: '[redacted]',
    },
  };
}

/**
 * The process's logger: one JSON object a line for log collectors, or coloured lines for a person
 * reading a terminal (`RUTA_LOG_FORMAT=auto` decides by whether stdout is a TTY). pino-pretty runs
 * as a synchronous stream in this thread, not as a transport worker, so nothing is lost on exit.
 */
export function createLogger(
  config: Pick<Config, 'logLevel' | 'logFormat'>,
  out: { isTTY?: boolean; destination?: NodeJS.WritableStream } = {},
): pino.Logger {
  const isTTY = out.isTTY ?? process.stdout.isTTY === true;
  const usePretty = config.logFormat === 'pretty' || (config.logFormat === 'auto' && isTTY);
  if (!usePretty) {
    // pino's own fast writer to fd 1, unless a test hands in a stream to read.
    return out.destination
      ? pino(loggerOptions(config.logLevel), out.destination)
      : pino(loggerOptions(config.logLevel));
  }
  const stream = pretty({
    sync: true,
    colorize: isTTY,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname',
    destination: out.destination ?? process.stdout,
  });
  return pino(loggerOptions(config.logLevel), stream);
}

/** A context over an open database; whoever opened the database closes it. */
export function createContext(
  database: { db: Db; engine: Engine },
  config: Config,
  opts: { clock?: Clock; logger?: pino.Logger } = {},
): AppContext {
  const clock = opts.clock ?? systemClock;
  const logger = opts.logger ?? createLogger(config);
  const instance = new Instance<AppContext>();
  const ctx: AppContext = {
    db: database.db,
    engine: database.engine,
    config,
    clock,
    logger,
    metrics: new Registry(),
    signals: new EventEmitter(),
    live: new LiveBus({ db: database.db, engine: database.engine, clock, logger }),
    instance,
  };
  instance.bind(ctx);
  return ctx;
}
