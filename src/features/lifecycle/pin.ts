import type { Scope } from '../../shared/auth.js';
import type { AppContext } from '../../shared/context.js';
import { ApiError } from '../../shared/errors.js';
import { safeEqual } from '../../shared/ids.js';
import { presentOrder } from '../orders/present.js';
import { PIN_TRIES } from '../orders/proof-settings.js';
import type { OrderRow } from '../orders/repo.js';
import type { Order } from '../orders/schemas.js';
import { resolveOrder } from '../orders/service.js';
import { recordOrderEvent, signalQueued } from '../webhooks/outbox.js';
import * as repo from './repo.js';

const locked = (id: string) =>
  new ApiError(
    'pin_locked',
    `The delivery PIN of order ${id} is locked after ${PIN_TRIES} wrong tries; a dispatcher must override it (POST /v1/orders/${id}/pin_override).`,
    'pin',
  );

/**
 * The PIN part of a delivery (DESIGN §14): how the proof records it (`verified`, `overridden`, or
 * null when the order has none). A wrong PIN is counted in a transaction of its own, committed
 * before the 422 leaves, so a retry cannot wipe it; the fifth locks the PIN with an
 * `order.pin_locked` event in that same transaction.
 */
export async function checkPin(
  ctx: AppContext,
  order: OrderRow,
  given: string | undefined,
  now: number,
): Promise<'verified' | 'overridden' | null> {
  if (order.pin_state === null || order.delivery_pin === null) return null;
  if (order.pin_state === 'overridden') return 'overridden';
  if (order.pin_state === 'locked') throw locked(order.id);
  if (given === undefined) {
    throw new ApiError('parameter_missing', 'Missing required parameter: pin (ask the customer for it).', 'pin');
  }
  if (safeEqual(given, order.delivery_pin)) return 'verified';
  const outcome = await ctx.db.transaction().execute(async (trx) => {
    const tries = await repo.countWrongPin(trx, order.id, now);
    if (tries === undefined) return (await repo.pinStateOf(trx, order.id)) === 'locked' ? 'locked' : 'mismatch';
    if (tries < PIN_TRIES) return { tries };
    const row = await repo.setPinState(trx, order.id, 'set', 'locked', now);
    if (row) await recordOrderEvent(trx, 'order.pin_locked', row, { pin: { state: 'locked', attempts: tries } }, now);
    return 'locked';
  });
  if (outcome === 'locked') {
    signalQueued(ctx);
    throw locked(order.id);
  }
  const left = typeof outcome === 'object' ? PIN_TRIES - outcome.tries : undefined;
  throw new ApiError(
    'pin_mismatch',
    `Invalid pin: it does not match the order's delivery PIN${left === undefined ? '' : ` (${left} ${left === 1 ? 'try' : 'tries'} left before it locks)`}.`,
    'pin',
  );
}

/**
 * A dispatcher's override of a locked PIN: the order can then be delivered without it. Kept in the
 * order's history as an `order.pin_overridden` event with the reason and who overrode it.
 */
export async function overridePin(
  ctx: AppContext,
  scope: Scope,
  id: string,
  reason: string,
  actor: string,
): Promise<Order> {
  const order = await resolveOrder(ctx, scope, id);
  const notLocked = (state: string | null | undefined) =>
    new ApiError(
      'pin_not_locked',
      state == null
        ? `Order ${order.id} has no delivery PIN.`
        : `The delivery PIN of order ${order.id} is ${state}, not locked: only a locked PIN is overridden.`,
    );
  if (order.pin_state !== 'locked') throw notLocked(order.pin_state);
  const now = ctx.clock();
  const row = await ctx.db.transaction().execute(async (trx) => {
    const r = await repo.setPinState(trx, order.id, 'locked', 'overridden', now);
    if (!r) throw notLocked(await repo.pinStateOf(trx, order.id));
    await recordOrderEvent(
      trx,
      'order.pin_overridden',
      r,
      { reason, overridden_by: actor, pin: { state: 'overridden', attempts: r.pin_attempts } },
      now,
    );
    return r;
  });
  signalQueued(ctx);
  return presentOrder(row);
}
