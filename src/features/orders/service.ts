import type { Scope } from '../../shared/auth.js';
import type { AppContext } from '../../shared/context.js';
import { phoneKey, searchKey } from '../../shared/db/tables/orders.js';
import { ApiError, notFound } from '../../shared/errors.js';
import { normalizeTrackingCode } from '../../shared/ids.js';
import { parseInstant } from '../../shared/time.js';
import type { OrderFilter, Search } from './list-repo.js';
import * as list from './list-repo.js';
import type { CountsQuery, ListQuery } from './list-schemas.js';
import { presentListed } from './present.js';
import * as repo from './repo.js';
import { ORDER_STATUSES, type OrderStatus } from './schemas.js';

/** `id` may be an order id or a tracking code; anything outside the scope is indistinguishable from missing. */
export async function resolveOrder(ctx: AppContext, scope: Scope, id: string): Promise<repo.OrderRow> {
  let row: repo.OrderRow | undefined;
  if (id.startsWith('ord_')) row = await repo.findOrder(ctx.db, scope, { id });
  else {
    const code = normalizeTrackingCode(id);
    if (code) row = await repo.findOrder(ctx.db, scope, { trackingCode: code });
  }
  if (!row) throw notFound('order', id);
  return row;
}

function parseDate(value: string | undefined): number | undefined {
  return value === undefined ? undefined : parseInstant(value);
}

/** What the search box's text may be (see `Search`); the phone only from 4 digits on, or it matches half the city. */
function searchOf(text: string): Search {
  const term = text.trim();
  if (term === '') throw new ApiError('parameter_invalid', 'Invalid search: must not be blank.', 'search');
  const digits = term.replace(/\D/g, '');
  const nameKey = searchKey(term);
  return {
    id: term.startsWith('ord_') ? term : undefined,
    trackingCode: normalizeTrackingCode(term),
    externalOrderId: term,
    nameKey: nameKey === '' ? undefined : nameKey,
    phoneKey: /^[+\d\s().-]+$/.test(term) && digits.length >= 4 ? (phoneKey(digits) ?? undefined) : undefined,
  };
}

/**
 * The filters GET /v1/orders and GET /v1/orders/counts share, checked and parsed the same way. A
 * merchant's `account` was answered by the route (shared/access.ts, accountNamed: its own is left
 * out); one that still arrives with a scope of one account is a sandbox courier's.
 */
function filterOf(ctx: AppContext, scope: Scope, q: CountsQuery): OrderFilter {
  if (q.account !== undefined && scope.accountId !== null) {
    throw new ApiError(
      'parameter_invalid',
      'Only the carrier (operator keys, admins, dispatchers) can filter by account.',
      'account',
    );
  }
  return {
    scope,
    account: q.account,
    source: q.source,
    externalOrderId: q.external_order_id,
    createdGte: parseDate(q.created_gte),
    createdLt: parseDate(q.created_lt),
    dueGte: parseDate(q.due_gte),
    dueLt: parseDate(q.due_lt),
    dueDay: q.due_on,
    dueFrom: q.due_from,
    dueTo: q.due_to,
    courier: q.courier,
    district: q.district === undefined ? undefined : { engine: ctx.engine, name: q.district },
    outcome: q.outcome,
    onTime: q.on_time,
    firstAttempt: q.first_attempt,
    rated: q.rated,
    rating: q.rating,
    search: q.search === undefined ? undefined : searchOf(q.search),
    codStatus: q.cod_status,
    farFromAddress: q.far_from_address,
  };
}

/** `withPin`: the caller is the merchant (see presentOrder). */
export async function listOrders(ctx: AppContext, scope: Scope, q: ListQuery, withPin = false) {
  const filter = filterOf(ctx, scope, q);
  if (q.starting_after !== undefined && q.ending_before !== undefined) {
    throw new ApiError('parameter_invalid', 'Pass either starting_after or ending_before, not both.', 'ending_before');
  }
  const cursorScope: Scope = { ...scope, accountId: scope.accountId ?? q.account ?? null };
  const limit = q.limit ?? 20;
  const rows = await list.listOrders(ctx.db, {
    ...filter,
    status: q.status,
    after: q.starting_after,
    before: q.ending_before,
    cursorScope,
    limit,
  });
  // An empty page is also what an unknown cursor gives: only then is the cursor looked up on its own.
  const cursor = q.starting_after ?? q.ending_before;
  if (rows.length === 0 && cursor !== undefined) {
    const param = q.starting_after !== undefined ? 'starting_after' : 'ending_before';
    const found = cursor.startsWith('ord_') && (await repo.findOrder(ctx.db, cursorScope, { id: cursor }));
    if (!found) throw new ApiError('parameter_invalid', `Invalid ${param}: no such order '${cursor}'.`, param);
  }
  const has_more = rows.length > limit;
  const page = rows.slice(0, limit);
  if (q.ending_before !== undefined) page.reverse();
  return { object: 'list' as const, data: page.map((l) => presentListed(l, withPin)), has_more };
}

/** How many orders of each status the list would show for the same filters (every status present, 0 included). */
export async function countOrders(ctx: AppContext, scope: Scope, q: CountsQuery) {
  const found = await list.countOrders(ctx.db, filterOf(ctx, scope, q));
  const counts = Object.fromEntries(ORDER_STATUSES.map((s) => [s, found.get(s) ?? 0])) as Record<OrderStatus, number>;
  const total = ORDER_STATUSES.reduce((sum, s) => sum + counts[s], 0);
  return { object: 'order_counts' as const, livemode: scope.mode === 'live', total, counts };
}
