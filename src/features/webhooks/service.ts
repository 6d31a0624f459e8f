import { API_VERSION } from '../../shared/config.js';
import type { AppContext } from '../../shared/context.js';
import { ApiError, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { iso } from '../../shared/time.js';
import * as events from './events-repo.js';
import { deliveryRow, signalQueued } from './outbox.js';
import * as repo from './repo.js';
import type { EndpointCreate, EndpointUpdate } from './schemas.js';
import { EVENT_TYPES, TEST_EVENT } from './schemas.js';
import { newSecret } from './signature.js';
import { UnsafeUrlError, vetTarget } from './ssrf.js';

export const ROTATION_OVERLAP_MS = 24 * 3600_000;
/** Endpoints per account and environment (deleted ones do not count): each event fans out to all of them. */
export const MAX_ENDPOINTS = 16;
const CATALOG = new Set<string>([...EVENT_TYPES, '*']);

export function presentEndpoint(e: repo.EndpointRow, secret?: string) {
  return {
    id: e.id,
    object: 'webhook_endpoint' as const,
    account: e.account_id,
    url: e.url,
    events: e.events,
    description: e.description,
    status: e.status,
    disabled_reason: e.disabled_reason,
    disabled_at: e.disabled_at === null ? null : iso(e.disabled_at),
    created_at: iso(e.created_at),
    livemode: e.mode === 'live',
    ...(secret === undefined ? {} : { secret }),
  };
}

export function presentDelivery(d: repo.DeliveryRow) {
  return {
    id: d.id,
    object: 'webhook_delivery' as const,
    event: d.event_id,
    endpoint: d.endpoint_id,
    order: d.order_id,
    status: d.status,
    attempts: d.attempts,
    next_attempt_at: d.status === 'pending' ? iso(d.next_attempt_at) : null,
    last_error: d.last_error,
    created_at: iso(d.created_at),
  };
}

function checkEvents(events: string[]): string[] {
  if (events.length === 0) {
    throw new ApiError('parameter_invalid', 'Invalid events: subscribe to at least one event, or "*".', 'events');
  }
  events.forEach((name, i) => {
    if (!CATALOG.has(name)) {
      throw new ApiError(
        'parameter_invalid',
        `Invalid events[${i}]: unknown event '${name}'. Known events: ${EVENT_TYPES.join(', ')}, or "*".`,
        `events[${i}]`,
      );
    }
  });
  return [...new Set(events)];
}

async function checkUrl(ctx: AppContext, raw: string): Promise<string> {
  try {
    const { url } = await vetTarget(raw, ctx.config.webhookAllowInsecure);
    return url.toString();
  } catch (err) {
    if (err instanceof UnsafeUrlError) {
      // A developer pointing at a receiver on their own machine needs to know the switch exists;
      // it is named only where it would help (plain http or a local address), and only while off.
      const hint =
        !ctx.config.webhookAllowInsecure && err.devAllows
          ? ' For a test receiver on your own machine, start Ruta with RUTA_WEBHOOK_ALLOW_INSECURE=1 (never in production).'
          : '';
      throw new ApiError('parameter_invalid', `Invalid url: ${err.message}.${hint}`, 'url');
    }
    throw err;
  }
}

async function endpointOrThrow(ctx: AppContext, owner: repo.Owner, id: string): Promise<repo.EndpointRow> {
  const e = await repo.findEndpoint(ctx.db, owner, id);
  if (!e) throw notFound('webhook endpoint', id);
  return e;
}

export async function createEndpoint(ctx: AppContext, owner: repo.Owner, body: EndpointCreate, now = ctx.clock()) {
  const events = checkEvents(body.events);
  const url = await checkUrl(ctx, body.url);
  const row: repo.EndpointRow = {
    id: newId('we', now),
    account_id: owner.accountId,
    mode: owner.mode,
    url,
    description: body.description ?? null,
    events,
    secret: newSecret(),
    previous_secret: null,
    previous_secret_expires_at: null,
    status: 'enabled',
    disabled_reason: null,
    disabled_at: null,
    first_failure_at: null,
    last_success_at: null,
    created_at: now,
    updated_at: now,
    deleted_at: null,
  };
  if (!(await repo.insertEndpointWithinLimit(ctx.db, ctx.engine, row, MAX_ENDPOINTS))) {
    throw new ApiError(
      'endpoint_limit_reached',
      `This account already has ${MAX_ENDPOINTS} webhook endpoints in ${owner.mode} mode, the most allowed. Delete one first.`,
    );
  }
  return presentEndpoint(row, row.secret);
}

export async function updateEndpoint(
  ctx: AppContext,
  owner: repo.Owner,
  id: string,
  body: EndpointUpdate,
  now = ctx.clock(),
) {
  const current = await endpointOrThrow(ctx, owner, id);
  const set: Partial<repo.EndpointRow> = { updated_at: now };
  if (body.events !== undefined) set.events = checkEvents(body.events);
  if (body.url !== undefined) set.url = await checkUrl(ctx, body.url);
  if (body.description !== undefined) set.description = body.description;
  if (body.status === 'disabled' && current.status === 'enabled') {
    Object.assign(set, { status: 'disabled', disabled_reason: 'manual', disabled_at: now });
  }
  if (body.status === 'enabled' && current.status === 'disabled') {
    // A fresh start: the 72 h failure run counts again from the next failure.
    Object.assign(set, { status: 'enabled', disabled_reason: null, disabled_at: null, first_failure_at: null });
  }
  const row = await repo.updateEndpoint(ctx.db, current.id, set);
  if (!row) throw notFound('webhook endpoint', id);
  return presentEndpoint(row);
}

export async function deleteEndpoint(ctx: AppContext, owner: repo.Owner, id: string, now = ctx.clock()) {
  const current = await endpointOrThrow(ctx, owner, id);
  // Soft delete: the delivery log keeps its references; nothing more is sent to it.
  await repo.updateEndpoint(ctx.db, current.id, { deleted_at: now, updated_at: now, status: 'disabled' });
  return { id: current.id, object: 'webhook_endpoint' as const, deleted: true as const };
}

export async function rotateSecret(ctx: AppContext, owner: repo.Owner, id: string, now = ctx.clock()) {
  const current = await endpointOrThrow(ctx, owner, id);
  const secret = newSecret();
  const row = await repo.updateEndpoint(ctx.db, current.id, {
    secret,
    previous_secret: current.secret,
    previous_secret_expires_at: now + ROTATION_OVERLAP_MS,
    updated_at: now,
  });
  if (!row) throw notFound('webhook endpoint', id);
  return presentEndpoint(row, secret);
}

/** Queues a signed `webhook.test` event for this endpoint only (even a disabled one). */
export async function sendTest(ctx: AppContext, owner: repo.Owner, id: string, now = ctx.clock()) {
  const endpoint = await endpointOrThrow(ctx, owner, id);
  const eventId = newId('evt', now);
  const payload = JSON.stringify({
    id: eventId,
    object: 'event',
    event: TEST_EVENT,
    created_at: iso(now),
    livemode: owner.mode === 'live',
    api_version: API_VERSION,
    data: { object: 'webhook_endpoint', id: endpoint.id, message: 'This is a test event from Ruta.' },
  });
  const delivery = deliveryRow({ id: eventId, order_id: null, sequence: 0 }, endpoint, 'test', now);
  await ctx.db.transaction().execute(async (trx) => {
    await events.insertEvent(trx, {
      id: eventId,
      account_id: owner.accountId,
      mode: owner.mode,
      type: TEST_EVENT,
      order_id: null,
      payload,
      created_at: now,
    });
    await repo.insertDeliveries(trx, [delivery]);
  });
  signalQueued(ctx);
  return presentDelivery(delivery);
}

export async function listAttempts(
  ctx: AppContext,
  owner: repo.Owner,
  id: string,
  q: { limit?: number; starting_after?: string; event?: string },
) {
  const endpoint = await endpointOrThrow(ctx, owner, id);
  const limit = q.limit ?? 20;
  if (q.starting_after !== undefined && !(await repo.attemptExists(ctx.db, endpoint.id, q.starting_after))) {
    throw new ApiError(
      'parameter_invalid',
      `Invalid starting_after: no such attempt '${q.starting_after}' of webhook endpoint '${endpoint.id}'.`,
      'starting_after',
    );
  }
  const rows = await repo.listAttempts(ctx.db, endpoint.id, { after: q.starting_after, event: q.event, limit });
  return {
    object: 'list' as const,
    has_more: rows.length > limit,
    data: rows.slice(0, limit).map(presentAttempt),
  };
}

/**
 * One row of the attempt log. A failed attempt that is its delivery's latest either waits for its
 * retry (`next_attempt_at`) or was the last one: the delivery failed for good (`gave_up`: its 24 h of
 * retries are spent, the endpoint answered 410, or it was disabled or deleted before the next try).
 * An attempt the delivery already tried again after has neither. While the next try is under way,
 * the delivery has counted it (claimDue) and the latest attempt has neither either.
 */
export function presentAttempt(a: repo.LoggedAttempt) {
  const latest = a.succeeded !== 1 && a.attempt === a.delivery_attempts;
  return {
    id: a.id,
    object: 'webhook_attempt' as const,
    delivery: a.delivery_id,
    event: a.event_id,
    event_type: a.event_type,
    order: a.order_id,
    attempt: a.attempt,
    succeeded: a.succeeded === 1,
    started_at: iso(a.started_at),
    finished_at: iso(a.finished_at),
    duration_ms: a.duration_ms,
    response_status: a.response_status,
    error_class: a.error_class,
    error_message: a.error_message,
    response_body: a.response_body,
    next_attempt_at: latest && a.delivery_status === 'pending' ? iso(a.delivery_next_attempt_at) : null,
    gave_up: latest && a.delivery_status === 'failed',
  };
}
