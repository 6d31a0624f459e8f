import type { pino } from 'pino';
import type { Config } from '../../shared/config.js';
import type { AppContext } from '../../shared/context.js';
import { buildHeaders } from './attempt.js';
import { type Claimed, type DeliveryContext, LEASE_MARGIN_MS, Leases } from './claims.js';
import { WakeListener } from './listen.js';
import { WebhookMetrics } from './metrics.js';
import { QUEUED } from './outbox.js';
import * as repo from './repo.js';
import { Agents, send } from './sender.js';
import { cancellation, Settler, settlementOf } from './settle.js';

export { DISABLE_AFTER_MS } from './settle.js';

/**
 * Time and settings come from the context (`ctx.clock`, `ctx.config`): a test that needs one
 * dispatcher hours ahead, or with another setting, gives it a context of its own.
 */
export interface DispatcherOptions {
  /** Fallback poll when nothing wakes us. */
  pollMs?: number;
  /** PostgreSQL URL to LISTEN on, so commits in other processes wake this one. */
  listenUrl?: string;
}

/**
 * The loop of one worker: claims due deliveries (claims.ts), sends each with its own 5 s budget
 * through this dispatcher's own connection pools, and settles the outcome (settle.ts, attempt.ts),
 * the outcomes of one event-loop turn together.
 * Woken by this instance's `ctx.signals`, by NOTIFY from others on PostgreSQL (listen.ts), by each
 * finished attempt, and by a fallback timer. Everything it holds (agents, leases, metrics handles,
 * the settler) belongs to this instance: two in one process never share any of it.
 */
export class Dispatcher {
  private readonly config: Config;
  private readonly now: () => number;
  private readonly pollMs: number;
  private readonly concurrency: number;
  /** A slow or dead receiver gets at most this many slots, so others keep flowing. */
  private readonly perEndpointCap: number;
  private readonly claimBatch: number;
  private readonly leases: Leases;
  private readonly agents: Agents;
  private readonly settler: Settler;
  readonly metrics: WebhookMetrics;
  private readonly listener: WakeListener | undefined;
  private readonly log: pino.Logger | undefined;
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly perEndpoint = new Map<string, number>();
  private running = false;
  private pendingWake = false;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  /**
   * A local write signals right after its commit; on PostgreSQL, while LISTEN is live, the NOTIFY
   * of that same commit wakes us too, so the signal would only cost a second claim round trip.
   */
  private readonly onQueued = () => {
    if (!this.listener?.listening) this.wake();
  };

  constructor(
    private readonly ctx: AppContext,
    o: DispatcherOptions = {},
  ) {
    this.config = ctx.config;
    this.now = ctx.clock;
    this.pollMs = o.pollMs ?? 1000;
    this.concurrency = this.config.webhookConcurrency;
    this.perEndpointCap = Math.max(1, Math.ceil(this.concurrency * 0.8));
    this.claimBatch = Math.max(1, Math.floor(this.concurrency / 8));
    this.leases = new Leases(ctx.db, ctx.engine, this.config.webhookTimeoutMs + LEASE_MARGIN_MS);
    this.agents = new Agents(this.perEndpointCap);
    this.metrics = new WebhookMetrics(ctx.metrics);
    this.log = ctx.logger;
    this.settler = new Settler(ctx.db, ctx.engine, this.leases.owner, this.metrics, ctx.logger);
    this.listener = o.listenUrl ? new WakeListener(o.listenUrl, () => this.wake(), ctx.logger) : undefined;
  }

  get owner(): string {
    return this.leases.owner;
  }

  start(): this {
    this.ctx.signals.on(QUEUED, this.onQueued);
    void this.listener?.connect();
    this.wake();
    return this;
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
        const saturated = [...this.perEndpoint].filter(([, n]) => n >= this.perEndpointCap).map(([id]) => id);
        const claimed = await this.leases.claim(this.now(), free, saturated);
        if (this.stopped) {
          // stop() ran during the claim and waits only for what was in flight then: hand these back
          // rather than send them from a dispatcher that is going away.
          await this.leases.release(
            claimed.map((c) => c.delivery.id),
            true,
          );
          break;
        }
        for (const c of claimed) this.launch(c);
        if (claimed.length === free) this.pendingWake = true;
      }
      // While attempts are in flight, each one's end wakes us; the next retry time matters only when idle.
      if (this.inFlight.size === 0) {
        const next = await repo.nextDueAt(this.ctx.db, this.now());
        if (next !== null) delay = Math.max(5, Math.min(this.pollMs, next - this.now()));
      }
    } catch (err) {
      if (!this.stopped) this.log?.error({ err }, 'webhook dispatcher: claim failed');
    } finally {
      this.running = false;
    }
    if (this.stopped) return;
    if (this.pendingWake) return this.wake();
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      void this.listener?.connect();
      this.wake();
    }, delay); // not unref'd: this timer is what keeps `ruta worker` alive
  }

  private launch({ delivery: d, context }: Claimed): void {
    this.perEndpoint.set(d.endpoint_id, (this.perEndpoint.get(d.endpoint_id) ?? 0) + 1);
    this.metrics.inFlight.inc();
    const p = (context instanceof Error ? Promise.reject(context) : this.process(d, context))
      .catch((err) => this.log?.error({ err, delivery: d.id }, 'webhook dispatcher: delivery failed'))
      .finally(() => {
        this.inFlight.delete(d.id);
        const n = (this.perEndpoint.get(d.endpoint_id) ?? 1) - 1;
        if (n <= 0) this.perEndpoint.delete(d.endpoint_id);
        else this.perEndpoint.set(d.endpoint_id, n);
        this.metrics.inFlight.dec();
        this.wake();
      });
    this.inFlight.set(d.id, p);
  }

  private async process(d: repo.DeliveryRow, { event, endpoint }: DeliveryContext): Promise<void> {
    const started = this.now();
    if (endpoint.deleted_at !== null || (endpoint.status === 'disabled' && d.kind === 'event')) {
      const why = endpoint.deleted_at !== null ? 'endpoint deleted' : `endpoint disabled (${endpoint.disabled_reason})`;
      // Nothing was sent, so the attempt the claim counted is taken back.
      return this.settler.settle(cancellation(d, started, why));
    }
    // The claim counted this attempt (claimDue), so a takeover after a crash continues the count.
    const attempt = d.attempts;
    const headers = buildHeaders({ event, body: event.payload, endpoint, attempt, now: started });
    const result = await send(
      {
        url: endpoint.url,
        body: event.payload,
        headers,
        timeoutMs: this.config.webhookTimeoutMs,
        allowInsecure: this.config.webhookAllowInsecure,
        clock: this.now,
      },
      this.agents,
    );
    const label = { outcome: result.ok ? 'success' : 'failure' };
    this.metrics.attemptsTotal.inc(label);
    this.metrics.attemptDuration.observe(label, result.durationMs / 1000);
    if (result.errorClass) this.metrics.attemptFailures.inc({ class: result.errorClass });
    const now = Math.max(this.now(), started);
    await this.settler.settle(settlementOf(this.config, d, attempt, started, now, result));
  }

  /** Stops claiming, waits (bounded) for in-flight attempts, and hands back the leases of any still running. */
  async stop(graceMs = this.config.webhookTimeoutMs + 1000): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.ctx.signals.off(QUEUED, this.onQueued);
    await this.listener?.stop();
    const pending = [...this.inFlight.values()];
    let t: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled(pending), new Promise((r) => (t = setTimeout(r, graceMs)))]);
    clearTimeout(t);
    await this.leases.release([...this.inFlight.keys()]).catch(() => {});
    this.agents.destroy();
  }

  get inFlightCount(): number {
    return this.inFlight.size;
  }

  /** Origins with an open connection pool (for tests of instance isolation). */
  get poolCount(): number {
    return this.agents.size;
  }
}

/** The background service `ruta serve` and `ruta worker` run (see backgroundServices in server.ts). */
export function startDispatcher(ctx: AppContext): { stop(): Promise<void> } {
  const d = new Dispatcher(ctx, { listenUrl: ctx.engine === 'postgres' ? ctx.config.databaseUrl : undefined });
  return d.start();
}
