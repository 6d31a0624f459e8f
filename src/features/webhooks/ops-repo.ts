import { sql } from 'kysely';
import type { Scope } from '../../shared/auth.js';
import type { Executor, KeysetCursor } from '../../shared/db/index.js';
import type { EndpointStatus, WebhookDeliveriesTable, WebhookEndpointsTable } from '../../shared/db/schema.js';

/**
 * Reads of webhook endpoints and deliveries by scope: one account (a merchant) or every account of
 * the environment (the carrier, `accountId: null`, optionally narrowed to `account`). Kept apart from
 * repo.ts, which holds the dispatcher's hot statements.
 */

export interface EndpointView extends Omit<WebhookEndpointsTable, 'events'> {
  events: string[];
}

export interface FailedDeliveryRow extends WebhookDeliveriesTable {
  event_type: string;
  endpoint_url: string;
}

const endpointOf = (r: WebhookEndpointsTable): EndpointView => ({ ...r, events: JSON.parse(r.events) });

/** The account a read is limited to: the merchant's own, else the carrier's `account` filter, else none. */
const accountOf = (scope: Scope, account: string | undefined): string | undefined => scope.accountId ?? account;

/** An endpoint in scope; deleted ones are invisible. */
export async function findEndpoint(db: Executor, scope: Scope, id: string): Promise<EndpointView | undefined> {
  let q = db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('id', '=', id)
    .where('mode', '=', scope.mode)
    .where('deleted_at', 'is', null);
  if (scope.accountId !== null) q = q.where('account_id', '=', scope.accountId);
  const row = await q.executeTakeFirst();
  return row && endpointOf(row);
}

/**
 * Newest first. One account uses index webhook_endpoints_list; the carrier's unfiltered list reads
 * the environment's endpoints, at most 16 live ones per account (MAX_ENDPOINTS).
 */
export async function listEndpoints(
  db: Executor,
  scope: Scope,
  f: { account?: string; status?: EndpointStatus; after?: KeysetCursor; limit: number },
): Promise<EndpointView[]> {
  let q = db.selectFrom('webhook_endpoints').selectAll().where('mode', '=', scope.mode).where('deleted_at', 'is', null);
  const account = accountOf(scope, f.account);
  if (account !== undefined) q = q.where('account_id', '=', account);
  if (f.status !== undefined) q = q.where('status', '=', f.status);
  const after = f.after;
  if (after) q = q.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(after.created_at, after.id)));
  const rows = await q
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(f.limit + 1)
    .execute();
  return rows.map(endpointOf);
}

/** A failed delivery in scope (a pagination cursor must name one). */
export async function findFailedDelivery(db: Executor, scope: Scope, id: string): Promise<KeysetCursor | undefined> {
  let q = db
    .selectFrom('webhook_deliveries')
    .select(['created_at', 'id'])
    .where('id', '=', id)
    .where('mode', '=', scope.mode)
    .where('status', '=', 'failed');
  if (scope.accountId !== null) q = q.where('account_id', '=', scope.accountId);
  return q.executeTakeFirst();
}

/**
 * Exhausted deliveries, newest first, with their event's type and endpoint's URL; deliveries to a
 * deleted endpoint are left out (nobody can act on them). The status is a literal, not a parameter,
 * so that both planners match the partial index webhook_deliveries_failed (mode, created_at, id)
 * WHERE status = 'failed': a page is an index range, whatever the number of succeeded deliveries.
 */
export function listFailedDeliveries(
  db: Executor,
  scope: Scope,
  f: { account?: string; endpoint?: string; after?: KeysetCursor; limit: number },
): Promise<FailedDeliveryRow[]> {
  return failedDeliveriesQuery(db, scope, f).execute();
}

/** The statement of listFailedDeliveries, unexecuted (a test EXPLAINs it to check the index is usable). */
export function failedDeliveriesQuery(
  db: Executor,
  scope: Scope,
  f: { account?: string; endpoint?: string; after?: KeysetCursor; limit: number },
) {
  let q = db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('events as e', 'e.id', 'd.event_id')
    .innerJoin('webhook_endpoints as w', 'w.id', 'd.endpoint_id')
    .selectAll('d')
    .select(['e.type as event_type', 'w.url as endpoint_url'])
    .where('d.mode', '=', scope.mode)
    .where('d.status', '=', sql.lit('failed'))
    .where('w.deleted_at', 'is', null);
  const account = accountOf(scope, f.account);
  if (account !== undefined) q = q.where('d.account_id', '=', account);
  if (f.endpoint !== undefined) q = q.where('d.endpoint_id', '=', f.endpoint);
  const after = f.after;
  if (after) {
    q = q.where((eb) => eb(eb.refTuple('d.created_at', 'd.id'), '<', eb.tuple(after.created_at, after.id)));
  }
  return q
    .orderBy('d.created_at', 'desc')
    .orderBy('d.id', 'desc')
    .limit(f.limit + 1);
}
