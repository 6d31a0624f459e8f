import type { Scope } from '../../shared/auth.js';
import type { AppContext } from '../../shared/context.js';
import { ApiError, notFound } from '../../shared/errors.js';
import { iso } from '../../shared/time.js';
import * as ops from './ops-repo.js';
import type { DeliveryListQuery, EndpointListQuery } from './ops-schemas.js';
import { presentEndpoint } from './service.js';

function badCursor(what: string, id: string): ApiError {
  return new ApiError('parameter_invalid', `Invalid starting_after: no such ${what} '${id}'.`, 'starting_after');
}

export async function getEndpoint(ctx: AppContext, scope: Scope, id: string) {
  const e = await ops.findEndpoint(ctx.db, scope, id);
  if (!e) throw notFound('webhook endpoint', id);
  return presentEndpoint(e);
}

export async function listEndpoints(ctx: AppContext, scope: Scope, q: EndpointListQuery) {
  const limit = q.limit ?? 20;
  let after: ops.EndpointView | undefined;
  if (q.starting_after !== undefined) {
    after = await ops.findEndpoint(ctx.db, scope, q.starting_after);
    if (!after) throw badCursor('webhook endpoint', q.starting_after);
  }
  const rows = await ops.listEndpoints(ctx.db, scope, { account: q.account, status: q.status, after, limit });
  return {
    object: 'list' as const,
    data: rows.slice(0, limit).map((r) => presentEndpoint(r)),
    has_more: rows.length > limit,
  };
}

function presentDeliveryDetail(d: ops.FailedDeliveryRow) {
  return {
    id: d.id,
    object: 'webhook_delivery' as const,
    account: d.account_id,
    event: d.event_id,
    event_type: d.event_type,
    endpoint: d.endpoint_id,
    endpoint_url: d.endpoint_url,
    order: d.order_id,
    status: d.status,
    attempts: d.attempts,
    last_error: d.last_error,
    last_status_code: d.last_status_code,
    created_at: iso(d.created_at),
    completed_at: d.completed_at === null ? null : iso(d.completed_at),
    livemode: d.mode === 'live',
  };
}

/** Failed deliveries (the only status listed so far: the schema requires status=failed). */
export async function listDeliveries(ctx: AppContext, scope: Scope, q: DeliveryListQuery) {
  const limit = q.limit ?? 20;
  let after: { created_at: number; id: string } | undefined;
  if (q.starting_after !== undefined) {
    after = await ops.findFailedDelivery(ctx.db, scope, q.starting_after);
    if (!after) throw badCursor('failed webhook delivery', q.starting_after);
  }
  const rows = await ops.listFailedDeliveries(ctx.db, scope, {
    account: q.account,
    endpoint: q.endpoint,
    after,
    limit,
  });
  return {
    object: 'list' as const,
    data: rows.slice(0, limit).map(presentDeliveryDetail),
    has_more: rows.length > limit,
  };
}
