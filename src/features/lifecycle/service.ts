import type { Scope } from '../../shared/auth.js';
import { ApiError } from '../../shared/errors.js';
import { iso, presentOrder } from '../orders/present.js';
import * as orders from '../orders/repo.js';
import type { Order } from '../orders/schemas.js';
import { type OrdersContext, resolveOrder } from '../orders/service.js';
import { recordOrderEvent } from '../webhooks/outbox.js';
import { type Action, TRANSITIONS } from './transitions.js';

/** What a move writes besides the status: extra columns, and extra event data. */
export interface MoveEffect {
  set?: Partial<orders.OrderRow>;
  data?: Record<string, unknown>;
  /** Overrides the table's target, e.g. partially_delivered. */
  to?: string;
  event?: string;
}

function refused(action: Action, order: { id: string; status: string }): ApiError {
  if (action === 'cancel') {
    return new ApiError(
      'order_not_cancellable',
      `Order ${order.id} can no longer be cancelled: its status is ${order.status}.`,
    );
  }
  return new ApiError('invalid_transition', `Cannot ${action} order ${order.id}: its status is ${order.status}.`);
}

/**
 * Runs one lifecycle move: the guarded status update, its timeline entry and its outbox event
 * commit in one transaction. The UPDATE is conditional on the current status, so two concurrent
 * moves from the same status cannot both succeed.
 */
export async function move(
  ctx: OrdersContext,
  scope: Scope,
  id: string,
  action: Action,
  effect: (order: orders.OrderRow, now: number) => MoveEffect | Promise<MoveEffect>,
): Promise<Order> {
  const t = TRANSITIONS[action];
  const current = await resolveOrder(ctx, scope, id);
  if (!t.from.includes(current.status as never)) throw refused(action, current);
  const now = Date.now();
  const e = await effect(current, now);
  const to = e.to ?? t.to;
  const updated = await ctx.db.transaction().execute(async (trx) => {
    const row = await orders.transitionOrder(trx, current.id, t.from, { ...e.set, status: to, updated_at: now });
    if (!row) {
      const latest = (await orders.findOrder(trx, scope, { id: current.id })) ?? current;
      throw refused(action, latest);
    }
    await orders.insertTimeline(trx, { order_id: row.id, status: to, occurred_at: now, lat: null, lng: null });
    await recordOrderEvent(trx, e.event ?? t.event, row, e.data ?? {}, now);
    return row;
  });
  return presentOrder(updated);
}

export function cancel(ctx: OrdersContext, scope: Scope, id: string, reason: string | undefined): Promise<Order> {
  return move(ctx, scope, id, 'cancel', (order, now) => ({
    set: { cancellation_reason: reason ?? null },
    data: { cancellation_reason: reason ?? null, cancelled_at: iso(now), previous_status: order.status },
  }));
}
