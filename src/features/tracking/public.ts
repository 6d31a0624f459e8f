import type { AppContext } from '../../shared/context.js';
import { addDays, localDay } from '../../shared/local-time.js';
import { iso } from '../../shared/time.js';
import { typedTrackingCode } from '../../shared/tracking-code.js';
import { fileUrl } from '../files/service.js';
import { findProof } from '../lifecycle/repo.js';
import { FAILURE_REASONS, type FailureReason, FINISHED_STATUSES } from '../lifecycle/transitions.js';
import { requestedDay } from '../orders/local-days.js';
import type { OrderStatus } from '../orders/schemas.js';
import { catalogOf, fill, type Lang } from './i18n/index.js';
import { findOrderByTrackingCode, type PublicOrderRow } from './public-repo.js';
import type { PublicTracking } from './public-schemas.js';
import { type TrackingView, trackingOf } from './service.js';

/** The courier's first name is public only while the parcel is with them. */
export const LIVE_STATUSES: readonly OrderStatus[] = ['picked_up', 'in_transit', 'arriving', 'at_location'];
/** Its position only while it is on its way to this stop (and no other stop comes first). */
const POSITION_STATUSES: readonly OrderStatus[] = ['in_transit', 'arriving', 'at_location'];
/**
 * Before departure the customer may still tell the courier how to deliver: also once a new day is
 * set after a failed attempt (rescheduled), when "nobody was home" most needs a word for the next try.
 */
export const INSTRUCTION_STATUSES: readonly OrderStatus[] = [
  'pending',
  'validated',
  'assigned',
  'ready_for_pickup',
  'rescheduled',
];
export const DELIVERED: readonly OrderStatus[] = ['delivered', 'partially_delivered'];
/**
 * No arrival to estimate: the courier is at the door, or this attempt is over (the view's ETA of 0
 * at the door read "any minute now" under "the courier is at the delivery address").
 */
export const NO_ETA_STATUSES: readonly OrderStatus[] = ['at_location', ...FINISHED_STATUSES];
/** Nothing to follow on a map once the attempt is over: delivered, failed, returned, cancelled. */
export const NO_MAP_STATUSES: readonly OrderStatus[] = FINISHED_STATUSES;
/** The day and time window asked for are the customer's best guide until the courier sets off (and once moved). */
export const REQUESTED_STATUSES: readonly OrderStatus[] = INSTRUCTION_STATUSES;
/**
 * On the way but with no arrival to estimate (the courier's phone has shared no position yet), the
 * window asked for is still the customer's best guide: the departure's message promised it too.
 */
const REQUESTED_UNTIL_ETA: readonly OrderStatus[] = ['picked_up', 'in_transit', 'arriving'];
/** The receiver's name and the photos stay on the page this long after delivery (DESIGN §15). */
export const PROOF_DAYS = 7;
/** Days offered after a failure: the next ones in the delivery's zone. */
export const RESCHEDULE_DAYS = 5;
/** Links on the page outlive a long read, not a week. */
const LINK_TTL_SECONDS = 3600;

/**
 * The first word of a name, and nothing that looks like contact data: a customer "name" of
 * `ana@example.com` or a phone number must not leak through the one field the page shows.
 */
export function firstName(name: unknown): string | null {
  if (typeof name !== 'string') return null;
  const first = name.trim().split(/\s+/)[0]?.slice(0, 40) ?? '';
  if (first === '' || /[@\d]/.test(first)) return null;
  return first;
}

const isFailureReason = (v: unknown): v is FailureReason => (FAILURE_REASONS as readonly unknown[]).includes(v);

/** The requested day and time window, in the order's zone, while they are what the customer waits for. */
function requestedOf(row: PublicOrderRow, eta: number | null): PublicTracking['requested'] {
  const until = REQUESTED_UNTIL_ETA.includes(row.status) && eta === null;
  if (!REQUESTED_STATUSES.includes(row.status) && !until) return null;
  const day = requestedDay(row.requested_date, row.timezone);
  const w = row.time_window;
  if (day === null && w === null) return null;
  return { day, time_window: w === null ? null : { start: w.start, end: w.end } };
}

function text(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const s = value.trim();
  return s === '' ? null : s.slice(0, 100);
}

/**
 * The destination on the map, to about 100 m (3 decimals): enough to show where the parcel goes,
 * not the door, should the link travel beyond the customer.
 */
const approx = (v: unknown): number | null =>
  typeof v === 'number' && Number.isFinite(v) ? Math.round(v * 1000) / 1000 : null;

const FIVE_MIN = 5 * 60_000;

/**
 * "14:10–14:40": the ETA ± a quarter of the time left (at least 5 min), widened to whole five
 * minutes, so the window narrows as the courier nears.
 */
export function etaWindow(now: number, minutes: number): { from: string; to: string } {
  const at = now + minutes * 60_000;
  const half = Math.max(5, Math.round(minutes / 4)) * 60_000;
  const from = Math.max(now, Math.floor((at - half) / FIVE_MIN) * FIVE_MIN);
  return { from: iso(from), to: iso(Math.ceil((at + half) / FIVE_MIN) * FIVE_MIN) };
}

/** What the public view needs besides the row and the tracking view: read by `publicTracking`. */
export interface PublicExtras {
  now: number;
  lang: Lang;
  logoUrl: string | null;
  proof: PublicTracking['proof'];
}

/**
 * Builds the public view by allow-listing: only the fields named here leave the server. Street
 * address, contact data, documents, notes, metadata, money and external ids never do.
 */
export function presentPublic(row: PublicOrderRow, view: TrackingView, x: PublicExtras): PublicTracking {
  const status = view.status;
  const words = catalogOf(x.lang);
  const merchant = row.brand_name ?? row.account_name;
  const courierName = view.courier ? firstName(view.courier.name) : null;
  const onTheWay = POSITION_STATUSES.includes(status) && view.stops_before === 0;
  const eta = NO_ETA_STATUSES.includes(status) ? null : (view.eta_minutes ?? null);
  const d = row.delivery_address;
  return {
    object: 'public_tracking',
    tracking_code: row.tracking_code,
    livemode: row.mode === 'live',
    lang: x.lang,
    status,
    status_label: words.status[status],
    // Once rated, "you can rate the delivery below" would point at a form that is gone.
    next_step:
      status === 'delivered' && row.feedback_rating !== null
        ? words.ui.ratedNext
        : fill(words.next[status], { merchant }),
    merchant: { name: merchant, color: row.brand_color, logo_url: x.logoUrl },
    customer: { first_name: firstName(row.customer.name) },
    destination: { district: text(d.district), city: text(d.city), lat: approx(d.lat), lng: approx(d.lng) },
    courier:
      LIVE_STATUSES.includes(status) && view.courier
        ? {
            name: courierName,
            lat: onTheWay ? (view.courier.lat ?? null) : null,
            lng: onTheWay ? (view.courier.lng ?? null) : null,
          }
        : null,
    eta_minutes: eta,
    eta_window: eta === null ? null : etaWindow(x.now, eta),
    stops_before: LIVE_STATUSES.includes(status) ? view.stops_before : null,
    requested: requestedOf(row, eta),
    // The reason's code only (the page says it in words): the courier's notes are internal.
    failure_reason: status === 'failed' && isFailureReason(row.failure_reason) ? row.failure_reason : null,
    delivery: { instructions: row.delivery_instructions, safe_place: row.safe_place },
    actions: {
      instructions: INSTRUCTION_STATUSES.includes(status),
      reschedule_days:
        status === 'failed'
          ? Array.from({ length: RESCHEDULE_DAYS }, (_, i) => addDays(localDay(x.now, row.timezone), i + 1))
          : null,
      feedback: DELIVERED.includes(status) && row.feedback_rating === null,
    },
    feedback:
      row.feedback_rating === null ? null : { rating: row.feedback_rating, comment: row.feedback_comment ?? null },
    proof: x.proof,
    timezone: row.timezone,
    timeline: view.timeline.map((t) => ({
      status: t.status,
      label: words.status[t.status],
      occurred_at: t.occurred_at,
    })),
  };
}

/** The order behind a (case-insensitive, possibly grouped) tracking code; undefined when unknown. */
export async function orderByCode(ctx: AppContext, rawCode: string): Promise<PublicOrderRow | undefined> {
  // Printed codes are often grouped ("7KQ2-M9XD-4T1B"); Crockford says hyphens carry no meaning.
  const code = typedTrackingCode(rawCode);
  return code ? findOrderByTrackingCode(ctx.db, code) : undefined;
}

/** The receiver's first name and the photos, for PROOF_DAYS after delivery; null otherwise. */
async function proofOf(ctx: AppContext, row: PublicOrderRow, now: number): Promise<PublicTracking['proof']> {
  if (!DELIVERED.includes(row.status) || row.delivered_at === null) return null;
  if (now - row.delivered_at >= PROOF_DAYS * 86_400_000) return null;
  const p = await findProof(ctx.db, row.id);
  if (!p) return null;
  const ttl = Math.min(LINK_TTL_SECONDS, Math.ceil((row.delivered_at + PROOF_DAYS * 86_400_000 - now) / 1000));
  return {
    receiver_name: firstName(p.receiver_name),
    photo_urls: await Promise.all(p.photo_files.map((id) => fileUrl(ctx, id, ttl))),
  };
}

export async function presentRow(ctx: AppContext, row: PublicOrderRow, lang: Lang): Promise<PublicTracking> {
  const now = ctx.clock();
  const [view, proof, logoUrl] = await Promise.all([
    trackingOf(ctx, row),
    proofOf(ctx, row, now),
    row.brand_logo_file ? fileUrl(ctx, row.brand_logo_file, LINK_TTL_SECONDS) : Promise.resolve(null),
  ]);
  return presentPublic(row, view, { now, lang, logoUrl, proof });
}

/** Any order in any account or environment, by its (case-insensitive) tracking code; undefined when unknown. */
export async function publicTracking(
  ctx: AppContext,
  rawCode: string,
  lang: Lang = 'en',
): Promise<PublicTracking | undefined> {
  const row = await orderByCode(ctx, rawCode);
  return row && presentRow(ctx, row, lang);
}
