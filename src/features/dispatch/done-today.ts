import type { Scope } from '../../shared/auth.js';
import type { AppContext } from '../../shared/context.js';
import { notFound } from '../../shared/errors.js';
import { localDay } from '../../shared/local-time.js';
import { iso } from '../../shared/time.js';
import { type FinishedRow, finishedSince } from './done-repo.js';
import { findCourier } from './repo.js';
import type { DoneStop } from './schemas.js';

/**
 * A local day starts at most 24 hours before any instant of it, 25 on a day that gains an hour:
 * whatever the zone, every order finished "today" was written in the last 26 hours.
 */
const LONGEST_DAY_MS = 26 * 60 * 60 * 1000;

/** When the order reached its status: the delivery, the return, else its last write (a fail or a cancel, nothing after). */
const finishedAt = (r: FinishedRow) => r.delivered_at ?? r.returned_at ?? r.updated_at;

/**
 * GET /v1/couriers/{id}/done_today: the courier's orders finished today, each read in its own zone
 * (the depot's, else the account's: `orders.timezone`), oldest first. A courier session lists only
 * its unfinished orders (DESIGN §9), so this is how a phone that did not make the moves (a new
 * phone, a cleared browser) learns what its courier already did. Like a finished order, a done stop
 * shows no phone and no street address: the customer's name and the district (else the city).
 */
export async function doneToday(ctx: AppContext, scope: Scope, id: string) {
  const courier = await findCourier(ctx.db, scope, id);
  if (!courier) throw notFound('courier', id);
  const now = ctx.clock();
  const rows = await finishedSince(ctx.db, scope, courier.id, now - LONGEST_DAY_MS);
  const data: DoneStop[] = rows
    .filter((r) => localDay(finishedAt(r), r.timezone) === localDay(now, r.timezone))
    .sort((a, b) => finishedAt(a) - finishedAt(b) || (a.id < b.id ? -1 : 1))
    .map((r) => {
      const address = JSON.parse(r.delivery_address) as { district?: string; city?: string };
      return {
        object: 'done_stop',
        order: r.id,
        tracking_code: r.tracking_code,
        status: r.status as DoneStop['status'],
        customer_name: (JSON.parse(r.customer) as { name: string }).name,
        place: address.district ?? address.city ?? null,
        route: r.route_id,
        finished_at: iso(finishedAt(r)),
        timezone: r.timezone,
      };
    });
  return { object: 'list' as const, data, has_more: false };
}
