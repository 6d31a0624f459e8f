import type { AppContext } from '../../shared/context.js';
import { ApiError } from '../../shared/errors.js';
import { addDays, localDay } from '../../shared/local-time.js';
import { iso } from '../../shared/time.js';
import { advance } from '../lifecycle/repo.js';
import { applyMove, rescheduleEffect } from '../lifecycle/service.js';
import type { OrderRow } from '../orders/repo.js';
import { recordOrderEvent, signalQueued } from '../webhooks/outbox.js';
import type { Lang } from './i18n/index.js';
import { DELIVERED, INSTRUCTION_STATUSES, orderByCode, presentRow, RESCHEDULE_DAYS } from './public.js';
import { addCourierRating, type PublicOrderRow } from './public-repo.js';
import type { FeedbackBody, InstructionsBody, PublicTracking, RescheduleBody } from './public-schemas.js';

/**
 * The customer's three actions on the tracking page (DESIGN §15). Each writes only its own
 * columns of the one order the code names, guarded by its status and event sequence, and an
 * order event in the same transaction: the console's stream, the board and the merchant's
 * webhooks see it like any other move.
 */

const changed = (id: string) =>
  new ApiError('invalid_transition', `Order ${id} changed meanwhile; reload the page and try again.`);

const refused = (what: string, status: string) =>
  new ApiError('invalid_transition', `${what} is not possible now: the delivery's status is ${status}.`);

const clean = (s: string | null | undefined): string | null => {
  // Control characters (but newlines and tabs) have no business in a note for the courier.
  const t = [...(s ?? '')]
    .filter((ch) => ch === '\n' || ch === '\t' || (ch >= ' ' && ch !== '\u007f'))
    .join('')
    .trim();
  return t === '' ? null : t;
};

async function customerChange(
  ctx: AppContext,
  row: OrderRow,
  set: Partial<OrderRow>,
  type: string,
  data: Record<string, unknown>,
  within?: (trx: Parameters<typeof advance>[0], updated: OrderRow) => Promise<void>,
): Promise<void> {
  const now = ctx.clock();
  await ctx.db.transaction().execute(async (trx) => {
    const updated = await advance(trx, row, { ...set, updated_at: now }, false);
    if (!updated) throw changed(row.id);
    await within?.(trx, updated);
    await recordOrderEvent(trx, type, updated, { ...data, by: 'customer' }, now);
  });
  signalQueued(ctx);
}

/** Before departure: free-text instructions and a safe place (empty clears them). */
export async function giveInstructions(
  ctx: AppContext,
  row: PublicOrderRow,
  body: InstructionsBody,
  lang: Lang,
): Promise<PublicTracking> {
  if (!INSTRUCTION_STATUSES.includes(row.status)) throw refused('Changing the instructions', row.status);
  const instructions = clean(body.instructions);
  const safePlace = clean(body.safe_place);
  await customerChange(
    ctx,
    row,
    { delivery_instructions: instructions, safe_place: safePlace },
    'order.instructions_updated',
    { delivery_instructions: instructions, safe_place: safePlace },
  );
  return again(ctx, row, lang);
}

/** After a failure: one of the days offered on the page; the order goes back to the dispatch pool. */
export async function chooseDay(
  ctx: AppContext,
  row: PublicOrderRow,
  body: RescheduleBody,
  lang: Lang,
): Promise<PublicTracking> {
  if (row.status !== 'failed') throw refused('Choosing a new day', row.status);
  const now = ctx.clock();
  const today = localDay(now, row.timezone);
  const offered = Array.from({ length: RESCHEDULE_DAYS }, (_, i) => addDays(today, i + 1));
  if (!offered.includes(body.day)) {
    throw new ApiError('parameter_invalid', `Invalid day: choose one of ${offered.join(', ')}.`, 'day');
  }
  const e = rescheduleEffect(row, { requested_date: body.day });
  e.data = { ...e.data, by: 'customer' };
  await ctx.db.transaction().execute((trx) => applyMove(trx, row, 'reschedule', e, now));
  signalQueued(ctx);
  return again(ctx, row, lang);
}

/** After delivery, once: 1–5 and a comment; the courier's average follows in the same transaction. */
export async function rate(
  ctx: AppContext,
  row: PublicOrderRow,
  body: FeedbackBody,
  lang: Lang,
): Promise<PublicTracking> {
  if (!DELIVERED.includes(row.status)) throw refused('Rating', row.status);
  if (row.feedback_rating !== null) {
    throw new ApiError('invalid_transition', 'This delivery has already been rated; a rating is given once.');
  }
  const comment = clean(body.comment);
  const now = ctx.clock();
  await customerChange(
    ctx,
    row,
    { feedback_rating: body.rating, feedback_comment: comment, feedback_at: now },
    'order.rated',
    {
      rating: body.rating,
      comment,
      rated_at: iso(now),
      courier: row.courier_id === null ? null : { id: row.courier_id, name: row.courier_name ?? '' },
    },
    async (trx) => {
      if (row.courier_id !== null) await addCourierRating(trx, row.courier_id, body.rating);
    },
  );
  return again(ctx, row, lang);
}

async function again(ctx: AppContext, row: PublicOrderRow, lang: Lang): Promise<PublicTracking> {
  const fresh = await orderByCode(ctx, row.tracking_code);
  return presentRow(ctx, fresh ?? row, lang);
}
