import { nextAttemptAt } from './retry.js';
import { signatureHeader, standardSignature } from './signature.js';

// The two pure decisions of one delivery attempt: what to send, and what its answer means. No
// database and no clock of their own, so test/webhook-units.test.ts checks them directly.

export const USER_AGENT = 'Ruta-Webhooks/1.0';

export interface HeaderInput {
  event: { id: string; type: string; order_id: string | null };
  body: string;
  endpoint: { secret: string; previous_secret: string | null; previous_secret_expires_at: number | null };
  /** 1-based; continues across a lease takeover (the count is kept with the delivery's claim). */
  attempt: number;
  /** When this attempt starts: `t` and `webhook-timestamp`. */
  now: number;
}

/** The secrets that sign now: the current one, then the previous one during its rotation overlap. */
export function signingSecrets(e: HeaderInput['endpoint'], now: number): string[] {
  const out = [e.secret];
  if (e.previous_secret && (e.previous_secret_expires_at ?? 0) > now) out.push(e.previous_secret);
  return out;
}

/** Every header of one attempt: the spec's, `Service-Event-Id`, and the Standard Webhooks three. */
export function buildHeaders(i: HeaderInput): Record<string, string> {
  const secrets = signingSecrets(i.endpoint, i.now);
  const standard = standardSignature(i.event.id, i.body, secrets, i.now);
  return {
    'Content-Type': 'application/json',
    'User-Agent': USER_AGENT,
    'Service-Event': i.event.type,
    ...(i.event.order_id ? { 'Service-Order-Id': i.event.order_id } : {}),
    'Service-Signature': signatureHeader(i.body, secrets, i.now),
    'Service-Attempt': String(i.attempt),
    'Service-Event-Id': i.event.id,
    ...(standard === null
      ? {}
      : {
          'webhook-id': i.event.id,
          'webhook-timestamp': String(Math.floor(i.now / 1000)),
          'webhook-signature': standard,
        }),
  };
}

export type Outcome =
  | { kind: 'succeeded' }
  | { kind: 'retry'; retryAt: number }
  /** The schedule is exhausted. */
  | { kind: 'failed' }
  /** 410 Gone: the delivery fails and the endpoint is disabled at once. */
  | { kind: 'disable'; reason: 'http_410' };

export interface AttemptFacts {
  /** 1-based number of the attempt that just ended. */
  number: number;
  firstAttemptAt: number;
  /** When the answer (or the failure) came. */
  now: number;
}

export interface ResponseFacts {
  ok: boolean;
  status: number | null;
  retryAfterMs: number | null;
}

export interface RetryPolicy {
  /** Seconds between attempts (config.webhookRetrySchedule). */
  schedule: number[];
  /** What one attempt may take, kept free for each remaining attempt inside the 24 h. */
  attemptBudgetMs: number;
  random?: () => number;
}

/**
 * What an attempt's answer means. A 2xx succeeds; 410 disables; otherwise the next retry from the
 * schedule (Retry-After counts on 429 and 503 only), or failed when the schedule is done. The 72 h
 * rule is not decided here: it depends on the endpoint's other deliveries, so the repository
 * decides it against the endpoint row (recordFailure).
 */
export function decideOutcome(attempt: AttemptFacts, response: ResponseFacts, policy: RetryPolicy): Outcome {
  if (response.ok) return { kind: 'succeeded' };
  if (response.status === 410) return { kind: 'disable', reason: 'http_410' };
  const retryAfter = response.status === 429 || response.status === 503 ? response.retryAfterMs : null;
  const retryAt = nextAttemptAt(
    policy.schedule,
    attempt.number,
    attempt.firstAttemptAt,
    attempt.now,
    retryAfter,
    policy.random ?? Math.random,
    policy.attemptBudgetMs,
  );
  return retryAt === null ? { kind: 'failed' } : { kind: 'retry', retryAt };
}
