import type { pino } from 'pino';
import type { Config } from '../../shared/config.js';
import type { Db, Engine } from '../../shared/db/index.js';
import { newId } from '../../shared/ids.js';
import { decideOutcome } from './attempt.js';
import type { GroupCommit } from './group-commit.js';
import type { WebhookMetrics } from './metrics.js';
import * as repo from './repo.js';
import type { SendResult } from './sender.js';

export const DISABLE_AFTER_MS = 72 * 3600_000;

export interface SettleDeps {
  db: Db;
  engine: Engine;
  config: Config;
  owner: string;
  commit: GroupCommit;
  metrics: WebhookMetrics;
  log?: pino.Logger;
}

/**
 * Writes an attempt's log row and applies its outcome (decideOutcome) to the delivery and its
 * endpoint, only while `owner` still holds the lease (otherwise another worker took over).
 */
export async function settleAttempt(
  deps: SettleDeps,
  d: repo.DeliveryRow,
  attempt: number,
  started: number,
  now: number,
  r: SendResult,
): Promise<void> {
  const { db, config, owner, metrics } = deps;
  const first = d.first_attempt_at ?? started;
  const base = { attempts: attempt, first_attempt_at: first, last_attempt_at: started, last_status_code: r.status };
  const log: repo.NewAttempt = {
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
    error_message: r.error?.slice(0, 500) ?? null,
    response_body: r.body,
  };
  const outcome = decideOutcome({ number: attempt, firstAttemptAt: first, now }, r, {
    schedule: config.webhookRetrySchedule,
    attemptBudgetMs: config.webhookTimeoutMs,
  });
  if (outcome.kind === 'succeeded') {
    const done = { ...base, status: 'succeeded' as const, completed_at: now, last_error: null };
    await repo.recordSucceeded(deps.engine, db, (work) => deps.commit.run(work), log, owner, done, now);
    metrics.deliveriesTotal.inc({ outcome: 'succeeded' });
    return;
  }
  await deps.commit.run(async (trx) => {
    await repo.insertAttempt(trx, log);
    await repo.settleDelivery(trx, d.id, owner, {
      ...base,
      last_error: r.error,
      ...(outcome.kind === 'retry' ? { next_attempt_at: outcome.retryAt } : { status: 'failed', completed_at: now }),
    });
    if (outcome.kind === 'disable') await repo.disableEndpoint(trx, d.endpoint_id, outcome.reason, now);
    else if (await repo.recordFailure(trx, d.endpoint_id, now, DISABLE_AFTER_MS)) {
      deps.log?.warn({ endpoint: d.endpoint_id }, 'webhook endpoint disabled after 72 h of failures');
    }
  });
  if (outcome.kind !== 'retry') metrics.deliveriesTotal.inc({ outcome: 'failed' });
}
