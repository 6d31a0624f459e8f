import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import ipaddr from 'ipaddr.js';
import { actorOf } from './auth.js';
import type { AppContext } from './context.js';
import type { Executor } from './db/index.js';
import { ApiError } from './errors.js';
import { addHits, hitCounter, purgeCounters } from './rate-limit-repo.js';

export const WINDOW_MS = 60_000;
/** Share of hits that also delete windows that have ended; keeps the table at about one row per active bucket. */
const PURGE_PROBABILITY = 0.01;

/** Counts hits per (bucket, fixed window); returns the count including this hit. */
export interface RateLimitStore {
  hit(bucket: string, windowStart: number): Promise<number>;
}

/**
 * PostgreSQL, exact: one upsert per request, so every instance sees every hit at once
 * (`RUTA_RATE_LIMIT_SYNC_MS=0`). It costs a round trip and a row lock on the hot path of every request.
 */
export class DbRateLimitStore implements RateLimitStore {
  constructor(private readonly db: Executor) {}

  async hit(bucket: string, windowStart: number): Promise<number> {
    const count = await hitCounter(this.db, bucket, windowStart);
    if (Math.random() < PURGE_PROBABILITY) await purgeCounters(this.db, windowStart);
    return count;
  }
}

/**
 * PostgreSQL, batched (the default): hits are counted in memory and, every `intervalMs`, written in
 * one statement that also reads back each bucket's total over all instances. Within one instance the
 * count is exact; across instances it is shared to within one interval, so a key spread over N
 * instances can get past its limit by at most what the other N−1 accepted since their last sync
 * (about one second of its traffic on each). A request never waits for the database.
 */
export class BatchedRateLimitStore implements RateLimitStore {
  private window = 0;
  /** Each bucket's total in the database as of our last sync (our synced hits included). */
  private shared = new Map<string, number>();
  /** Hits counted here and not yet written. */
  private pending = new Map<string, number>();
  /** Hits being written now: still counted, or a hit during a sync would see its bucket short by them. */
  private inflight = new Map<string, number>();
  private syncing: Promise<void> | undefined;
  private purgedBefore = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly db: Executor,
    intervalMs: number,
    private readonly onError: (err: unknown) => void,
  ) {
    this.timer = setInterval(() => void this.sync().catch(onError), intervalMs);
    // The timer alone must not keep a process alive; close() writes what is left.
    this.timer.unref();
  }

  async hit(bucket: string, windowStart: number): Promise<number> {
    // Fixed windows: when a new one starts, the old counters (written or not) no longer matter.
    if (windowStart !== this.window) {
      this.window = windowStart;
      this.shared = new Map();
      this.pending = new Map();
      this.inflight = new Map();
    }
    const mine = (this.pending.get(bucket) ?? 0) + 1;
    this.pending.set(bucket, mine);
    return (this.shared.get(bucket) ?? 0) + (this.inflight.get(bucket) ?? 0) + mine;
  }

  /** Writes the pending hits and refreshes the shared totals; one sync at a time. */
  sync(): Promise<void> {
    this.syncing ??= this.write().finally(() => {
      this.syncing = undefined;
    });
    return this.syncing;
  }

  private async write(): Promise<void> {
    if (this.pending.size === 0) return;
    const window = this.window;
    const batch = [...this.pending];
    this.inflight = this.pending;
    this.pending = new Map();
    let totals: Map<string, number>;
    try {
      totals = await addHits(this.db, window, batch);
    } catch (err) {
      // Keep the hits for the next try, unless their window has ended meanwhile.
      if (window === this.window) {
        for (const [b, n] of batch) this.pending.set(b, (this.pending.get(b) ?? 0) + n);
        this.inflight = new Map();
      }
      throw err;
    }
    if (window !== this.window) return;
    // The totals include the batch, so it stops counting apart in the same step.
    for (const [b, n] of totals) this.shared.set(b, n);
    this.inflight = new Map();
    if (this.purgedBefore !== window) {
      this.purgedBefore = window;
      await purgeCounters(this.db, window);
    }
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.sync().catch(this.onError);
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

export function rateLimitStoreFor(ctx: AppContext): RateLimitStore & { close?(): Promise<void> } {
  if (ctx.engine === 'sqlite') return new MemoryRateLimitStore();
  if (ctx.config.rateLimitSyncMs === 0) return new DbRateLimitStore(ctx.db);
  return new BatchedRateLimitStore(ctx.db, ctx.config.rateLimitSyncMs, (err) =>
    ctx.logger.error({ err }, 'rate limit counters could not be synced'),
  );
}

export type RateLimitBy = 'key' | 'ip';

/**
 * The client an address stands for. An IPv6 host is usually given a whole /64 and may use any
 * address in it (privacy extensions rotate them), so all of the /64 is one client; an IPv4-mapped
 * address (`::ffff:203.0.113.1`, from a dual-stack socket) is its IPv4 address.
 */
export function clientOf(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const ip = ipaddr.process(address);
  if (ip.kind() === 'ipv4') return ip.toString();
  const parts = (ip as ipaddr.IPv6).parts.slice(0, 4);
  return `${new ipaddr.IPv6([...parts, 0, 0, 0, 0]).toNormalizedString()}/64`;
}

function bucketOf(req: FastifyRequest, by: RateLimitBy, group: string): string {
  if (by === 'ip') return `ip:${group}:${clientOf(req.ip)}`;
  // Per key, per signed-in user, per courier session's courier: whoever the principal is.
  if (!req.principal) throw new Error('per-key rate limiting needs installAuth first');
  return `key:${actorOf(req.principal)}`;
}

/**
 * Fixed 60 s windows per API key (`by: 'key'`, call after installAuth so 401s are not counted)
 * or per client address (`by: 'ip'`, which needs a `group`). A limit of 0 turns limiting and its
 * headers off. `group` names the per-address count: the tracking pages and the sign-in routes are
 * counted apart, also on PostgreSQL, where every instance's counts share one table.
 */
export function installRateLimit(
  scope: FastifyInstance,
  ctx: AppContext,
  by: 'key',
  opts?: { store?: RateLimitStore },
): void;
export function installRateLimit(
  scope: FastifyInstance,
  ctx: AppContext,
  by: 'ip',
  opts: { group: string; store?: RateLimitStore },
): void;
export function installRateLimit(
  scope: FastifyInstance,
  ctx: AppContext,
  by: RateLimitBy,
  opts: { group?: string; store?: RateLimitStore } = {},
): void {
  const limit = by === 'key' ? ctx.config.rateLimitPerMin : ctx.config.publicRateLimitPerMin;
  if (limit === 0) return;
  const store = storeOf(scope, ctx, opts.store);
  const group = opts.group ?? '';
  scope.addHook('onRequest', async (req, reply) => countHit(ctx, store, bucketOf(req, by, group), limit, reply));
}

/**
 * For the keyed scope's authentication hook (installAuth's `onRefused`): a request refused before
 * anyone is known to be calling (no key, a wrong key, an ended session; a CSRF or mode refusal)
 * has no key to count against, so it counts against its client address, at the per-key limit, in
 * a bucket of its own (`refused:`), apart from the sign-in and tracking pages' per-address one.
 * So its 401 carries RateLimit-* headers like every other answer of the API (DESIGN §6), and a
 * client that floods the API with bad keys gets 429 `rate_limited` like one with a good key.
 * Undefined when limits are off.
 */
export function refusedRateLimit(
  scope: FastifyInstance,
  ctx: AppContext,
  given?: RateLimitStore,
): ((req: FastifyRequest, reply: FastifyReply) => Promise<void>) | undefined {
  const limit = ctx.config.rateLimitPerMin;
  if (limit === 0) return undefined;
  const store = storeOf(scope, ctx, given);
  return (req, reply) => countHit(ctx, store, `refused:${clientOf(req.ip)}`, limit, reply);
}

function storeOf(scope: FastifyInstance, ctx: AppContext, given: RateLimitStore | undefined): RateLimitStore {
  const store: RateLimitStore & { close?(): Promise<void> } = given ?? rateLimitStoreFor(ctx);
  // Runs after the server stopped taking requests and before the database closes (see drain.ts).
  if (store.close) scope.addHook('onClose', async () => store.close?.());
  return store;
}

/** Counts one hit of `bucket`, sets the RateLimit-* headers, and refuses it (429) over the limit. */
async function countHit(
  ctx: AppContext,
  store: RateLimitStore,
  bucket: string,
  limit: number,
  reply: FastifyReply,
): Promise<void> {
  const now = ctx.clock();
  const windowStart = now - (now % WINDOW_MS);
  const count = await store.hit(bucket, windowStart);
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
}
