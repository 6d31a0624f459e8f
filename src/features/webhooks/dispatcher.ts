import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { pino } from 'pino';
import type { AppContext } from '../../app.js';
import type { Config } from '../../shared/config.js';
import type { Db, Engine, Tx } from '../../shared/db/index.js';
import * as metrics from './metrics.js';
import { deliveriesQueued } from './outbox.js';
import * as repo from './repo.js';
import { nextAttemptAt } from './retry.js';
import { destroyAgents, type SendResult, send } from './sender.js';
import { signatureHeader } from './signature.js';

type Context = { event: repo.DeliveryEvent; endpoint: repo.EndpointRow } | Error;

export const DISABLE_AFTER_MS = 72 * 3600_000;
const LEASE_MARGIN_MS = 15_000;
const USER_AGENT = 'Ruta-Webhooks/1.0';

export interface DispatcherOptions {
  db: Db;
  engine: Engine;
  config: Config;
  log?: pino.Logger;
  /** The clock; injectable so tests can jump hours (retries, lease expiry, the 72 h rule). */
  now?: () => number;
  /** Fallback poll when nothing wakes us. */
  pollMs?: number;
  /** PostgreSQL URL to LISTEN on, so commits in other processes wake this one. */
  listenUrl?: string;
}

/**
 * Claims due deliveries (leased, so a crashed worker's claims come back after the lease expires),
 * sends each with its own 5 s budget, and records the outcome. Woken by new deliveries in this
 * process, by NOTIFY from others on PostgreSQL, by each finished attempt, and by a fallback timer.
 */
export class Dispatcher {
  readonly owner = `wkr_${randomBytes(8).toString('hex')}`;
  private readonly now: () => number;
  private readonly pollMs: number;
  private readonly concurrency: number;
  /** A slow or dead receiver gets at most this many slots, so others keep flowing. */
  private readonly perEndpointCap: number;
  private readonly claimBatch: number;
  /** SQLite: outcomes waiting for the next group commit (see inTransaction). */
  private pendingRecords: { fn: (trx: Tx) => Promise<unknown>; resolve(v: unknown): void; reject(e: unknown): void }[] =
    [];
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly perEndpoint = new Map<string, number>();
  private running = false;
  private pendingWake = false;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private listener: pg.Client | undefined;
  /** LISTEN is live: commits (ours too) wake us by NOTIFY, when the new rows are visible. */
  private listening = false;
  /**
   * A local create emits before its commit; on PostgreSQL a claim then finds nothing yet and costs a
   * round trip, so while LISTEN is live the NOTIFY at commit is the wake-up instead.
   */
  private readonly onQueued = () => {
    if (!this.listening) this.wake();
  };

  constructor(private readonly o: DispatcherOptions) {
    this.now = o.now ?? Date.now;
    this.pollMs = o.pollMs ?? 1000;
    this.concurrency = o.config.webhookConcurrency;
    this.perEndpointCap = Math.max(1, Math.ceil(this.concurrency * 0.8));
    this.claimBatch = Math.max(1, Math.floor(this.concurrency / 8));
  }

  start(): this {
    deliveriesQueued.on('queued', this.onQueued);
    void this.listen();
    this.wake();
    return this;
  }

  private async listen(): Promise<void> {
    if (!this.o.listenUrl || this.listener || this.stopped) return;
    const client = new pg.Client({ connectionString: this.o.listenUrl });
    this.listener = client;
    client.on('notification', () => this.wake());
    client.on('error', () => {
      // The fallback poll keeps deliveries moving; the next poll reconnects.
      if (this.listener === client) {
        this.listener = undefined;
        this.listening = false;
      }
      void client.end().catch(() => {});
    });
    try {
      await client.connect();
      await client.query('LISTEN ruta_webhooks');
      if (this.listener === client) this.listening = true;
    } catch (err) {
      this.o.log?.warn({ err }, 'webhook dispatcher: LISTEN failed; polling');
      if (this.listener === client) this.listener = undefined;
      await client.end().catch(() => {});
    }
  }

  wake(): void {
    if (this.stopped) return;
    this.pendingWake = true;
    if (this.running) return;
    this.running = true;
    void this.run();
  }

  private async run(): Promise<void> {
    let delay = this.pollMs;
    try {
      while (this.pendingWake && !this.stopped) {
        this.pendingWake = false;
        const free = this.concurrency - this.inFlight.size;
        // A finishing attempt wakes us. Under a backlog, slots are refilled a batch at a time rather
        // than one claim per finished attempt (each claim scans past the leased rows).
        if (free <= 0 || (this.inFlight.size > 0 && free < this.claimBatch)) break;
        const claimed = await this.claim(free);
        if (claimed.length === free) this.pendingWake = true;
      }
      // While attempts are in flight, each one's end wakes us; the next retry time matters only when idle.
      if (this.inFlight.size === 0) {
        const next = await repo.nextDueAt(this.o.db, this.now());
        if (next !== null) delay = Math.max(5, Math.min(this.pollMs, next - this.now()));
      }
    } catch (err) {
      if (!this.stopped) this.o.log?.error({ err }, 'webhook dispatcher: claim failed');
    } finally {
      this.running = false;
    }
    if (this.stopped) return;
    if (this.pendingWake) return this.wake();
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      void this.listen();
      this.wake();
    }, delay); // not unref'd: this timer is what keeps `ruta worker` alive
  }

  private async claim(limit: number): Promise<repo.DeliveryRow[]> {
    const now = this.now();
    const saturated = [...this.perEndpoint].filter(([, n]) => n >= this.perEndpointCap).map(([id]) => id);
    const claimed = await repo.claimDue(this.o.db, this.o.engine, {
      owner: this.owner,
      now,
      leaseUntil: now + this.o.config.webhookTimeoutMs + LEASE_MARGIN_MS,
      limit,
      excludeEndpoints: saturated,
    });
    if (claimed.length === 0) return claimed;
    // Reserve the slots before the context query, so a concurrent wake does not over-claim.
    const ready = new Map<string, (c: Context) => void>();
    const contexts = new Map(
      claimed.map((d) => [d.id, new Promise<Context>((resolve) => ready.set(d.id, resolve))] as const),
    );
    for (const d of claimed) this.launch(d, contexts.get(d.id)!);
    try {
      const { events, endpoints } = await repo.deliveryContexts(this.o.db, claimed);
      for (const d of claimed) {
        const event = events.get(d.event_id);
        const endpoint = endpoints.get(d.endpoint_id);
        ready.get(d.id)!(
          event && endpoint ? { event, endpoint } : new Error(`delivery ${d.id}: event or endpoint missing`),
        );
      }
    } catch (err) {
      for (const d of claimed) ready.get(d.id)!(err as Error);
    }
    return claimed;
  }

  private launch(d: repo.DeliveryRow, context: Promise<Context>): void {
    this.perEndpoint.set(d.endpoint_id, (this.perEndpoint.get(d.endpoint_id) ?? 0) + 1);
    metrics.inFlightGauge.inc();
    const p = context
      .then((c) => {
        if (c instanceof Error) throw c;
        return this.process(d, c);
      })
      .catch((err) => this.o.log?.error({ err, delivery: d.id }, 'webhook dispatcher: delivery failed'))
      .finally(() => {
        this.inFlight.delete(d.id);
        const n = (this.perEndpoint.get(d.endpoint_id) ?? 1) - 1;
        if (n <= 0) this.perEndpoint.delete(d.endpoint_id);
        else this.perEndpoint.set(d.endpoint_id, n);
        metrics.inFlightGauge.dec();
        this.wake();
      });
    this.inFlight.set(d.id, p);
  }

  private async process(
    d: repo.DeliveryRow,
    { event, endpoint }: { event: repo.DeliveryEvent; endpoint: repo.EndpointRow },
  ): Promise<void> {
    const { db, config } = this.o;
    const started = this.now();
    if (endpoint.deleted_at !== null || (endpoint.status === 'disabled' && d.kind === 'event')) {
      const why = endpoint.deleted_at !== null ? 'endpoint deleted' : `endpoint disabled (${endpoint.disabled_reason})`;
      await repo.settleDelivery(db, d.id, this.owner, { status: 'failed', completed_at: started, last_error: why });
      metrics.deliveriesTotal.inc({ outcome: 'cancelled' });
      return;
    }
    const attempt = d.attempts + 1;
    const secrets = [endpoint.secret];
    if (endpoint.previous_secret && (endpoint.previous_secret_expires_at ?? 0) > started) {
      secrets.push(endpoint.previous_secret);
    }
    const headers: Record<string, string> = {
      'Content-Type': 'application/json',
      'User-Agent': USER_AGENT,
      'Service-Event': event.type,
      ...(event.order_id ? { 'Service-Order-Id': event.order_id } : {}),
      'Service-Signature': signatureHeader(event.payload, secrets, started),
      'Service-Attempt': String(attempt),
      'Service-Event-Id': event.id,
    };
    const result = await send(
      {
        url: endpoint.url,
        body: event.payload,
        headers,
        timeoutMs: config.webhookTimeoutMs,
        allowInsecure: config.webhookAllowInsecure,
      },
      this.perEndpointCap,
    );
    metrics.attemptsTotal.inc({ outcome: result.ok ? 'success' : 'failure' });
    metrics.attemptDuration.observe({ outcome: result.ok ? 'success' : 'failure' }, result.durationMs / 1000);
    if (result.errorClass) metrics.attemptFailures.inc({ class: result.errorClass });
    await this.record(d, attempt, started, result);
  }

  private async record(d: repo.DeliveryRow, attempt: number, started: number, r: SendResult): Promise<void> {
    const { db, config } = this.o;
    const now = Math.max(this.now(), started);
    const first = d.first_attempt_at ?? started;
    const base = { attempts: attempt, first_attempt_at: first, last_attempt_at: started, last_status_code: r.status };
    const log = {
      delivery_id: d.id,
      endpoint_id: d.endpoint_id,
      event_id: d.event_id,
      attempt,
      succeeded: r.ok ? 1 : 0,
      started_at: started,
      finished_at: started + r.durationMs,
      duration_ms: r.durationMs,
      response_status: r.status,
      error_class: r.errorClass,
      error_message: r.error?.slice(0, 500) ?? null,
      response_body: r.body,
    };
    if (r.ok && this.o.engine === 'postgres') {
      // The common case, in one round trip.
      await repo.recordSucceededPg(
        db,
        log,
        this.owner,
        { ...base, status: 'succeeded', completed_at: now, last_error: null },
        now,
      );
      metrics.deliveriesTotal.inc({ outcome: 'succeeded' });
      return;
    }
    const outcome = await this.inTransaction(async (trx): Promise<'succeeded' | 'failed' | 'retry'> => {
      await repo.insertAttempt(trx, log);
      if (r.ok) {
        await repo.settleDelivery(trx, d.id, this.owner, {
          ...base,
          status: 'succeeded',
          completed_at: now,
          last_error: null,
        });
        await repo.recordSuccess(trx, d.endpoint_id, now);
        return 'succeeded';
      }
      const gone = r.status === 410;
      const retryAfter = r.status === 429 || r.status === 503 ? r.retryAfterMs : null;
      const next = gone
        ? null
        : nextAttemptAt(
            config.webhookRetrySchedule,
            attempt,
            first,
            now,
            retryAfter,
            Math.random,
            config.webhookTimeoutMs,
          );
      await repo.settleDelivery(trx, d.id, this.owner, {
        ...base,
        last_error: r.error,
        ...(next === null ? { status: 'failed', completed_at: now } : { next_attempt_at: next }),
      });
      if (gone) await repo.disableEndpoint(trx, d.endpoint_id, 'http_410', now);
      else if (await repo.recordFailure(trx, d.endpoint_id, now, DISABLE_AFTER_MS)) {
        this.o.log?.warn({ endpoint: d.endpoint_id }, 'webhook endpoint disabled after 72 h of failures');
      }
      return next === null ? 'failed' : 'retry';
    });
    if (outcome !== 'retry') metrics.deliveriesTotal.inc({ outcome });
  }

  /**
   * On SQLite, outcomes recorded in the same turn of the event loop share one transaction (a group
   * commit): a commit per attempt was the worker's largest cost after the sends themselves. Should
   * the shared transaction fail, every outcome in it is rejected and its delivery is sent again once
   * its lease expires (delivery is at least once). PostgreSQL commits run in parallel on the pool.
   */
  private inTransaction<T>(fn: (trx: Tx) => Promise<T>): Promise<T> {
    if (this.o.engine === 'postgres') return this.o.db.transaction().execute(fn);
    return new Promise<T>((resolve, reject) => {
      this.pendingRecords.push({ fn, resolve: resolve as (v: unknown) => void, reject });
      if (this.pendingRecords.length === 1) setImmediate(() => void this.flushRecords());
    });
  }

  private async flushRecords(): Promise<void> {
    const batch = this.pendingRecords;
    this.pendingRecords = [];
    try {
      const results = await this.o.db.transaction().execute(async (trx) => {
        const out: unknown[] = [];
        for (const r of batch) out.push(await r.fn(trx));
        return out;
      });
      for (const [i, r] of batch.entries()) r.resolve(results[i]);
    } catch (err) {
      for (const r of batch) r.reject(err);
    }
  }

  /** Stops claiming, waits (bounded) for in-flight attempts, and hands back the leases of any still running. */
  async stop(graceMs = this.o.config.webhookTimeoutMs + 1000): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    deliveriesQueued.off('queued', this.onQueued);
    const listener = this.listener;
    this.listener = undefined;
    await listener?.end().catch(() => {});
    const pending = [...this.inFlight.values()];
    let t: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled(pending), new Promise((r) => (t = setTimeout(r, graceMs)))]);
    clearTimeout(t);
    await repo.releaseLeases(this.o.db, this.owner, [...this.inFlight.keys()]).catch(() => {});
  }

  get inFlightCount(): number {
    return this.inFlight.size;
  }
}

/** The background service `ruta serve` and `ruta worker` run (see backgroundServices in server.ts). */
export function startDispatcher(ctx: AppContext, log?: pino.Logger): { stop(): Promise<void> } {
  const d = new Dispatcher({
    db: ctx.db,
    engine: ctx.database.engine,
    config: ctx.config,
    log,
    listenUrl: ctx.database.engine === 'postgres' ? ctx.config.databaseUrl : undefined,
  }).start();
  return {
    stop: async () => {
      await d.stop();
      destroyAgents();
    },
  };
}
