import type { AppContext } from '../../shared/context.js';
import { distanceM, farFromAddress } from '../../shared/geo.js';
import { parseInstant } from '../../shared/time.js';
import type { OrderRow } from '../orders/repo.js';
import type { MovePosition } from './schemas.js';

/** A phone's clock may run a little fast; more than this ahead is a wrong clock, not a fix. */
const AHEAD_MS = 5 * 60_000;
/** An offline-queued move is replayed within the day; a fix older than this is a wrong clock too. */
const BEHIND_MS = 48 * 3600_000;

/** A move's fix, checked, with how far it was from the order's address. */
export interface Fix {
  lat: number;
  lng: number;
  accuracy_m: number | null;
  recorded_at: number;
  /** Null when the address has no coordinates. */
  distance_m: number | null;
  far: boolean | null;
}

/**
 * Checks a move's position (the schema checked its shape) and measures it against the address.
 * A fix taken more than 5 minutes ahead of the server's clock or more than 48 hours before it is
 * dropped, and the move goes through without it: refusing it would refuse the move itself, and a
 * phone's offline queue replays the same request, so a wrong clock or a queue kept for days would
 * never sync. A `recorded_at` that is not a date-time at all is refused by the schema (422).
 */
export function fixOf(ctx: AppContext, order: OrderRow, p: MovePosition | undefined, now: number): Fix | null {
  if (!p) return null;
  const recorded = p.recorded_at === undefined ? now : parseInstant(p.recorded_at);
  if (recorded > now + AHEAD_MS || recorded < now - BEHIND_MS) {
    ctx.logger.info({ order: order.id, recorded_at: p.recorded_at }, 'move position dropped: outside the clock window');
    return null;
  }
  const a = order.delivery_address;
  const distance =
    a.lat === undefined || a.lng === undefined
      ? null
      : distanceM({ lat: a.lat, lng: a.lng }, { lat: p.lat, lng: p.lng });
  const accuracy = p.accuracy_m ?? null;
  return {
    lat: p.lat,
    lng: p.lng,
    accuracy_m: accuracy,
    recorded_at: recorded,
    distance_m: distance,
    far: distance === null ? null : farFromAddress(distance, accuracy, ctx.config.farFromAddressM),
  };
}

/**
 * The order's last-attempt columns for a deliver or fail: this attempt's fix, or all null without
 * one, so a far flag of an earlier attempt never sticks to a later one taken without a position.
 */
export function attemptColumns(f: Fix | null): Partial<OrderRow> {
  return {
    attempt_lat: f?.lat ?? null,
    attempt_lng: f?.lng ?? null,
    attempt_accuracy_m: f?.accuracy_m ?? null,
    attempt_recorded_at: f?.recorded_at ?? null,
    attempt_distance_m: f?.distance_m ?? null,
    attempt_far: f?.far === null || f === null ? null : f.far ? 1 : 0,
  };
}
