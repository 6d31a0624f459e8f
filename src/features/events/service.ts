import type { AppContext } from '../../shared/context.js';
import { ApiError, notFound } from '../../shared/errors.js';
import * as events from '../webhooks/events-repo.js';
import { deliveryRow, signalQueued, subscribes } from '../webhooks/outbox.js';
import * as webhooks from '../webhooks/repo.js';
import { EVENT_TYPES, TEST_EVENT } from '../webhooks/schemas.js';
import { presentDelivery } from '../webhooks/service.js';

function presentEvent(e: events.EventRow, deliveries: webhooks.DeliveryRow[], withDeliveries: boolean) {
  const envelope = JSON.parse(e.payload);
  return {
    ...envelope,
    pending_webhooks: deliveries.filter((d) => d.status === 'pending').length,
    ...(withDeliveries ? { deliveries: deliveries.map(presentDelivery) } : {}),
  };
}

export async function listEvents(
  ctx: AppContext,
  owner: events.Owner,
  q: {
    limit?: number;
    starting_after?: string;
    event?: string;
    order?: string;
    delivery_success?: boolean;
    include_deliveries?: boolean;
  },
) {
  const limit = q.limit ?? 20;
  let after: events.Cursor | undefined;
  if (q.starting_after !== undefined) {
    const c = await events.findEvent(ctx.db, owner, q.starting_after);
    if (!c) {
      throw new ApiError(
        'parameter_invalid',
        `Invalid starting_after: no such event '${q.starting_after}'.`,
        'starting_after',
      );
    }
    after = c;
  }
  if (q.event !== undefined && !EVENT_TYPES.includes(q.event as never) && q.event !== TEST_EVENT) {
    throw new ApiError('parameter_invalid', `Invalid event: unknown event '${q.event}'.`, 'event');
  }
  const rows = await events.listEvents(ctx.db, owner, {
    type: q.event,
    order: q.order,
    deliverySuccess: q.delivery_success,
    after,
    limit,
  });
  const page = rows.slice(0, limit);
  const deliveries = await webhooks.deliveriesOfEvents(
    ctx.db,
    page.map((e) => e.id),
  );
  return {
    object: 'list' as const,
    has_more: rows.length > limit,
    data: page.map((e) =>
      presentEvent(
        e,
        deliveries.filter((d) => d.event_id === e.id),
        q.include_deliveries === true,
      ),
    ),
  };
}

async function eventOrThrow(ctx: AppContext, owner: events.Owner, id: string): Promise<events.EventRow> {
  const e = await events.findEvent(ctx.db, owner, id);
  if (!e) throw notFound('event', id);
  return e;
}

export async function getEvent(ctx: AppContext, owner: events.Owner, id: string) {
  const e = await eventOrThrow(ctx, owner, id);
  return presentEvent(e, await webhooks.deliveriesOfEvents(ctx.db, [e.id]), true);
}

/**
 * Queues the event again: to `endpoint` when given (even if disabled or no longer subscribed, as
 * the merchant asked for it), otherwise to every enabled endpoint subscribed to it now.
 */
export async function redeliver(
  ctx: AppContext,
  owner: events.Owner,
  id: string,
  endpointId: string | undefined,
  now = ctx.clock(),
) {
  const e = await eventOrThrow(ctx, owner, id);
  let targets: webhooks.EndpointRow[];
  if (endpointId !== undefined) {
    const target = await webhooks.findEndpoint(ctx.db, owner, endpointId);
    if (!target) {
      throw new ApiError(
        'parameter_invalid',
        `Invalid endpoint: no such webhook endpoint '${endpointId}'.`,
        'endpoint',
      );
    }
    targets = [target];
  } else {
    targets = (await webhooks.enabledEndpoints(ctx.db, owner)).filter((x) => subscribes(x.events, e.type));
  }
  const sequence = Number(JSON.parse(e.payload).data?.sequence ?? 0);
  const rows = targets.map((t) => deliveryRow({ id: e.id, order_id: e.order_id, sequence }, t, 'redeliver', now));
  await webhooks.insertDeliveries(ctx.db, rows);
  if (rows.length > 0) signalQueued(ctx);
  return { object: 'list' as const, data: rows.map(presentDelivery) };
}
