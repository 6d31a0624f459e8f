import type { pino } from 'pino';
import type { Config } from '../../shared/config.js';
import type { Db, Engine } from '../../shared/db/index.js';
import { newId } from '../../shared/ids.js';
import { decideOutcome, type Outcome } from './attempt.js';
import type { WebhookMetrics } from './metrics.js';
import type { DeliveryRow } from './repo.js';
import type { SendResult } from './sender.js';
import { type Batch, type DeliveryChange, type EndpointChange, settleBatch } from './settle-repo.js';

export const DISABLE_AFTER_MS = 72 * 3600_000;
/** How stale `last_success_at` may get: every success writing it would make one endpoint row the hot spot. */
export const LAST_SUCCESS_GRANULARITY_MS = 60_000;

type EndpointEffect = { endpointId: string; at: number } & (
  | { kind: 'success' }
  | { kind: 'failure' }
  | { kind: 'disable'; reason: string }
);

/** What one finished attempt, or one delivery cancelled unsent, writes. */
export interface Settlement {
  delivery: DeliveryChange;
  /** The attempt's log row; null when nothing was sent. */
  attempt: Batch['attempts'][number] | null;
  /** What the attempt says about its endpoint; null when nothing was sent. */
  effect: EndpointEffect | null;
  /** For the metrics: the delivery's fate, or null while it has retries left. */
  final: 'succeeded' | 'failed' | 'cancelled' | null;
}

/** The claimed row's columns an attempt does not change. */
const kept = (d: DeliveryRow) => ({
  first_attempt_at: d.first_attempt_at,
  last_attempt_at: d.last_attempt_at,
  last_status_code: d.last_status_code,
  next_attempt_at: d.next_attempt_at,
  completed_at: d.completed_at,
});

// PostgreSQL text cannot hold NUL, and one bad row would fail the whole batch it is written in.
const storable = (s: string | null) => s?.replaceAll('\0', '\uFFFD') ?? null;

/**
 * The settlement of attempt number `attempt` of `d`, started at `started`, answered (or given up) at
 * `now` with `r`: its log row, the delivery's next state (decideOutcome) and the endpoint's effect.
 */
export function settlementOf(
  config: Pick<Config, 'webhookRetrySchedule' | 'webhookTimeoutMs'>,
  d: DeliveryRow,
  attempt: number,
  started: number,
  now: number,
  r: SendResult,
  random?: () => number,
): Settlement & { outcome: Outcome } {
  const first = d.first_attempt_at ?? started;
  const outcome = decideOutcome({ number: attempt, firstAttemptAt: first, now }, r, {
    schedule: config.webhookRetrySchedule,
    attemptBudgetMs: config.webhookTimeoutMs,
    random,
  });
  const base = { ...kept(d), id: d.id, attempts: attempt, first_attempt_at: first, last_attempt_at: started };
  const error = storable(r.error);
  const delivery: DeliveryChange =
    outcome.kind === 'succeeded'
      ? { ...base, status: 'succeeded', last_status_code: r.status, last_error: null, completed_at: now }
      : outcome.kind === 'retry'
        ? {
            ...base,
            status: 'pending',
            last_status_code: r.status,
            last_error: error,
            next_attempt_at: outcome.retryAt,
          }
        : { ...base, status: 'failed', last_status_code: r.status, last_error: error, completed_at: now };
  const target = { endpointId: d.endpoint_id, at: now };
  return {
    outcome,
    delivery,
    attempt: {
      id: newId('whatt', now),
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
      error_message: storable(r.error?.slice(0, 500) ?? null),
      response_body: storable(r.body),
    },
    effect:
      outcome.kind === 'succeeded'
        ? { ...target, kind: 'success' }
        : outcome.kind === 'disable'
          ? { ...target, kind: 'disable', reason: outcome.reason }
          : { ...target, kind: 'failure' },
    final: outcome.kind === 'succeeded' ? 'succeeded' : outcome.kind === 'retry' ? null : 'failed',
  };
}

/** A delivery failed unsent (its endpoint is deleted or disabled): the attempt the claim counted is taken back. */
export function cancellation(d: DeliveryRow, now: number, why: string): Settlement {
  return {
    delivery: {
      ...kept(d),
      id: d.id,
      status: 'failed',
      attempts: Math.max(0, d.attempts - 1),
      last_error: why,
      completed_at: now,
    },
    attempt: null,
    effect: null,
    final: 'cancelled',
  };
}

/**
 * Folds a batch's effects, in order, into one change per endpoint (sorted by id, so concurrent
 * batches lock endpoint rows in one order): a success ends the failure run, a failure after it
 * starts a new one, and a 410 disables whatever else happened.
 */
export function endpointChanges(items: Pick<Settlement, 'effect'>[]): EndpointChange[] {
  const by = new Map<string, EndpointChange>();
  for (const { effect: e } of items) {
    if (!e) continue;
    let c = by.get(e.endpointId);
    if (!c) {
      c = {
        id: e.endpointId,
        at: e.at,
        success_at: null,
        fail_at: null,
        disable: null,
        disable_cutoff: 0,
        stale_before: 0,
      };
      by.set(e.endpointId, c);
    }
    c.at = Math.max(c.at, e.at);
    if (e.kind === 'success') {
      c.success_at = e.at;
      c.fail_at = null;
    } else if (e.kind === 'failure') c.fail_at ??= e.at;
    else c.disable ??= e.reason;
  }
  const out = [...by.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  for (const c of out) {
    c.disable_cutoff = c.at - DISABLE_AFTER_MS;
    c.stale_before = (c.success_at ?? c.at) - LAST_SUCCESS_GRANULARITY_MS;
  }
  return out;
}

export function batchOf(items: Settlement[]): Batch {
  return {
    deliveries: items.map((s) => s.delivery),
    attempts: items.flatMap((s) => (s.attempt ? [s.attempt] : [])),
    endpoints: endpointChanges(items),
  };
}

type Waiting = { s: Settlement; resolve(): void; reject(err: unknown): void };

/**
 * Writes the outcomes of one dispatcher in batches: those recorded in the same turn of the event
 * loop, and those that arrive while a batch is being written, go together in the next one (one
 * statement on PostgreSQL, one transaction on SQLite). One batch at a time, so a worker's batches
 * never wait on each other's row locks. Should a batch fail, its outcomes are written one by one,
 * so one bad outcome cannot sink the others; one that still fails is rejected and its delivery is
 * sent again once its lease expires (delivery is at least once).
 */
export class Settler {
  private queue: Waiting[] = [];
  private busy = false;
  /** Batches written (or tried) so far: tests check that one turn's outcomes share one. */
  batches = 0;

  constructor(
    private readonly db: Db,
    private readonly engine: Engine,
    private readonly owner: string,
    private readonly metrics: WebhookMetrics,
    private readonly log?: pino.Logger,
  ) {}

  settle(s: Settlement): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ s, resolve, reject });
      if (!this.busy && this.queue.length === 1) setImmediate(() => void this.drain());
    });
  }

  private async drain(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue;
        this.queue = [];
        if (!(await this.write(batch, false))) for (const w of batch) await this.write([w], true);
      }
    } finally {
      this.busy = false;
    }
  }

  /** False when the batch failed and `last` is not set (the caller then tries its outcomes one by one). */
  private async write(batch: Waiting[], last: boolean): Promise<boolean> {
    const b = batchOf(batch.map((w) => w.s));
    this.batches++;
    try {
      const after = await settleBatch(this.db, this.engine, this.owner, b);
      const changes = new Map(b.endpoints.map((c) => [c.id, c]));
      for (const e of after) {
        const c = changes.get(e.id);
        if (e.status === 'disabled' && e.disabled_reason === 'failing_72h' && c && e.disabled_at === c.at) {
          this.log?.warn({ endpoint: e.id }, 'webhook endpoint disabled after 72 h of failures');
        }
      }
    } catch (err) {
      if (!last && batch.length > 1) return false;
      for (const w of batch) w.reject(err);
      return true;
    }
    for (const w of batch) {
      if (w.s.final) this.metrics.deliveriesTotal.inc({ outcome: w.s.final });
      w.resolve();
    }
    return true;
  }
}
