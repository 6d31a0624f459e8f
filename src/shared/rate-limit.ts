import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import type { AppContext } from '../app.js';
import type { Executor } from './db/index.js';
import { ApiError } from './errors.js';

export const WINDOW_MS = 60_000;
/** Share of hits that also delete windows that have ended; keeps the table at about one row per active bucket. */
const PURGE_PROBABILITY = 0.01;

/** Counts hits per (bucket, fixed window); returns the count including this hit. */
export interface RateLimitStore {
  hit(bucket: string, windowStart: number): Promise<number>;
}

/** PostgreSQL: one upsert per request, so every instance behind the load balancer shares the counters. */
export class DbRateLimitStore implements RateLimitStore {
  constructor(private readonly db: Executor) {}

  async hit(bucket: string, windowStart: number): Promise<number> {
    const row = await this.db
      .insertInto('rate_limits')
      .values({ bucket, window_start: windowStart, count: 1 })
      .onConflict((oc) =>
        oc.columns(['bucket', 'window_start']).doUpdateSet({ count: sql<number>`rate_limits.count + 1` }),
      )
      .returning('count')
      .executeTakeFirstOrThrow();
    if (Math.random() < PURGE_PROBABILITY) {
      await this.db.deleteFrom('rate_limits').where('window_start', '<', windowStart).execute();
    }
    return Number(row.count);
  }
}

/** SQLite runs as a single instance, so counters stay in memory instead of adding a write per request. */
export class MemoryRateLimitStore implements RateLimitStore {
  private window = 0;
  private counts = new Map<string, number>();

  async hit(bucket: string, windowStart: number): Promise<number> {
    // Fixed windows: when a new one starts, the old counters are simply dropped.
    if (windowStart !== this.window) {
      this.window = windowStart;
      this.counts = new Map();
    }
    const n = (this.counts.get(bucket) ?? 0) + 1;
    this.counts.set(bucket, n);
    return n;
  }
}

export function rateLimitStoreFor(ctx: AppContext): RateLimitStore {
  return ctx.database.engine === 'postgres' ? new DbRateLimitStore(ctx.db) : new MemoryRateLimitStore();
}

export type RateLimitBy = 'key' | 'ip';

function bucketOf(req: FastifyRequest, by: RateLimitBy): string {
  if (by === 'ip') return `ip:${req.ip}`;
  const keyId = req.principal?.keyId;
  if (!keyId) throw new Error('per-key rate limiting needs installAuth first');
  return `key:${keyId}`;
}

/**
 * Fixed 60 s windows per API key (`by: 'key'`, call after installAuth so 401s are not counted)
 * or per client address (`by: 'ip'`). A limit of 0 turns limiting and its headers off.
 */
export function installRateLimit(
  scope: FastifyInstance,
  ctx: AppContext,
  by: RateLimitBy,
  store: RateLimitStore = rateLimitStoreFor(ctx),
): void {
  const limit = by === 'key' ? ctx.config.rateLimitPerMin : ctx.config.publicRateLimitPerMin;
  if (limit === 0) return;
  scope.addHook('onRequest', async (req, reply) => {
    const now = Date.now();
    const windowStart = now - (now % WINDOW_MS);
    const count = await store.hit(bucketOf(req, by), windowStart);
    const reset = String(Math.ceil((windowStart + WINDOW_MS - now) / 1000));
    reply.header('RateLimit-Limit', String(limit));
    reply.header('RateLimit-Remaining', String(Math.max(0, limit - count)));
    reply.header('RateLimit-Reset', reset);
    if (count > limit) {
      throw new ApiError(
        'rate_limited',
        `Too many requests: the limit is ${limit} per minute. Retry after ${reset} seconds.`,
        undefined,
        { 'Retry-After': reset },
      );
    }
  });
}
