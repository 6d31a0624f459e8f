import type { Principal, Scope } from '../../shared/auth.js';
import { actorOf } from '../../shared/auth.js';
import type { AppContext } from '../../shared/context.js';
import { ApiError, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { localDay } from '../../shared/local-time.js';
import { fromMajor } from '../../shared/money.js';
import { iso } from '../../shared/time.js';
import { findCourier } from '../dispatch/repo.js';
import { carrierZone, courierOr404, notAfterToday, presentHandover } from './cash.js';
import * as repo from './cash-repo.js';
import type { CashHandover, HandoverBody } from './schemas.js';

// A courier's cash handed over: recorded for a day, voided when recorded wrong (docs/money.md).
// The figures that count them are cash.ts's.

/**
 * POST /v1/couriers/{id}/cash_handovers: recorded as said, never refused for its amount (it happened).
 * It counts for `day`, a local day of the carrier's zone (as end_of_day reads days), today by
 * default: yesterday's cash corrected today counts for yesterday, not short there and over today.
 */
export async function recordHandover(
  ctx: AppContext,
  scope: Scope,
  who: Principal,
  id: string,
  body: HandoverBody,
): Promise<CashHandover> {
  const courier = await courierOr404(ctx, scope, id);
  const amount = fromMajor(body.amount);
  if (amount === undefined || amount <= 0) {
    throw new ApiError('parameter_invalid', 'Invalid amount: more than 0, at most 2 decimal places.', 'amount');
  }
  const now = ctx.clock();
  const zone = await carrierZone(ctx);
  const today = localDay(now, zone);
  const day = body.day === undefined ? today : notAfterToday(body.day, 'day', today, zone);
  const row: repo.HandoverRow = {
    id: newId('cho', now),
    mode: courier.mode,
    courier_id: courier.id,
    amount,
    currency: body.currency,
    received_by: body.received_by,
    notes: body.notes ?? null,
    day,
    created_by: actorOf(who),
    created_at: now,
    voided_at: null,
    voided_by: null,
    void_reason: null,
  };
  await repo.insertHandover(ctx.db, row);
  return presentHandover(row);
}

const alreadyVoided = (h: repo.HandoverRow) =>
  new ApiError(
    'handover_already_voided',
    `Cash handover ${h.id} is already voided${h.voided_at === null ? '' : ` (at ${iso(h.voided_at)})`}: "${h.void_reason ?? ''}". A voided handover stays voided; record a new one for the right amount.`,
    'id',
  );

/**
 * POST /v1/cash_handovers/{id}/void: a handover recorded wrong (a mistyped amount) stops counting,
 * and stays listed with when and why. Never deleted: money records are kept, as Stripe keeps a
 * voided invoice. Voiding one already voided is 409 (Stripe refuses to void a void invoice), so a
 * second click never changes the reason nor hides that someone else voided it first. Whoever may
 * record a handover may void one; a handover of a courier the caller cannot see is 404.
 */
export async function voidHandover(
  ctx: AppContext,
  scope: Scope,
  who: Principal,
  id: string,
  reason: string,
): Promise<CashHandover> {
  const h = await repo.findHandover(ctx.db, scope.mode, id);
  if (!h || !(await findCourier(ctx.db, scope, h.courier_id))) throw notFound('cash handover', id);
  if (h.voided_at !== null) throw alreadyVoided(h);
  const v = { voided_at: ctx.clock(), voided_by: actorOf(who), void_reason: reason };
  if (!(await repo.voidHandover(ctx.db, h.id, v))) {
    // Voided by another request between the read and the write: say so with its reason.
    throw alreadyVoided((await repo.findHandover(ctx.db, scope.mode, id)) ?? h);
  }
  return presentHandover({ ...h, ...v });
}
