import type { AppContext } from '../../shared/context.js';
import type { LiveData } from '../../shared/live.js';
import * as dispatch from '../dispatch/repo.js';

/**
 * Tells each courier's phones, after the commit, that its route changed: a `route` live message
 * (docs/stream.md). A courier session gets no order events (an order event is the merchant's), so
 * without it a move made elsewhere (the same courier's other phone, dispatch's desk) or a route made
 * for it reached the phone only when it next read its route.
 */
export async function tellCouriers(
  ctx: AppContext,
  changed: { courierId: string | null; routeId: string | null }[],
  reason: LiveData['route']['reason'],
): Promise<void> {
  const seen = new Set<string>();
  for (const { courierId, routeId } of changed) {
    if (courierId === null || seen.has(courierId)) continue;
    seen.add(courierId);
    const c = await dispatch.courierById(ctx.db, courierId);
    if (c) tellCourier(ctx, c, routeId, reason);
  }
}

/**
 * The one way a `route` message is published. Its audience is the courier's own account, never the
 * route's: a route an operator made for a merchant's sandbox courier has no account, but that
 * courier's phone is scoped to the merchant's, and would not hear of it.
 */
export function tellCourier(
  ctx: AppContext,
  c: Pick<dispatch.CourierRow, 'id' | 'mode' | 'account_id'>,
  routeId: string | null,
  reason: LiveData['route']['reason'],
): void {
  ctx.live.publish(
    'route',
    { mode: c.mode, accountId: c.account_id, courierId: c.id },
    { id: routeId, courier: c.id, reason },
  );
}
