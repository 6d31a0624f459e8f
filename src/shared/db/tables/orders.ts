import type { Mode } from './columns.js';
import type { PinState } from './proof_settings.js';

export const ORDER_STATUSES = [
  'pending',
  'validated',
  'assigned',
  'ready_for_pickup',
  'picked_up',
  'in_transit',
  'arriving',
  'at_location',
  'delivered',
  'partially_delivered',
  'failed',
  'returned',
  'rescheduled',
  'cancelled',
] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/** No move leaves these (the transition table, features/lifecycle/transitions.ts, is built on them). */
export const TERMINAL_STATUSES: readonly OrderStatus[] = ['delivered', 'partially_delivered', 'returned', 'cancelled'];

/**
 * Done, as a courier's day and the live map count it: the terminal statuses and a failed attempt
 * (which dispatch may retry another day, but which this stop is over with).
 */
export const FINISHED_STATUSES = [
  'delivered',
  'partially_delivered',
  'failed',
  'returned',
  'cancelled',
] as const satisfies readonly OrderStatus[];

/** A courier session sees its orders only while they are its to work on (DESIGN §9: unfinished). */
export const COURIER_ACTIVE_STATUSES = [
  'assigned',
  'ready_for_pickup',
  'picked_up',
  'in_transit',
  'arriving',
  'at_location',
] as const satisfies readonly OrderStatus[];

export const ORDER_SOURCES = ['manual', 'excel', 'api', 'webhook', 'ecommerce', 'service_erp', 'service'] as const;
export type OrderSource = (typeof ORDER_SOURCES)[number];

/** Created by 001_core; 002_lifecycle added picked_up_at, delivered_at, returned_at, failure_notes. */
export interface OrdersTable {
  id: string;
  account_id: string;
  mode: Mode;
  tracking_code: string;
  external_order_id: string | null;
  source: OrderSource | null;
  status: OrderStatus;
  /** JSON Customer. */
  customer: string;
  /** JSON Address. */
  delivery_address: string;
  /**
   * Added by 032_pickup_pairs: JSON Address where the parcel is collected, with `depot` (the id of
   * the depot it names, or null); null when it leaves from the depot like every other order.
   */
  pickup_address: string | null;
  /** JSON array of items. */
  items: string;
  /**
   * RFC 3339 date-time: as the merchant sent it, or, for a plain day (`2026-11-25`), that day's
   * first instant written with the zone's offset (`2026-11-25T00:00:00-05:00`).
   */
  requested_date: string | null;
  /** JSON {start, end} or null. */
  /** 021_constraints: JSON array of the skills its courier needs; null = none. */
  requirements: string | null;
  time_window: string | null;
  priority: number;
  is_urgent: number;
  requires_signature: number;
  requires_photo: number;
  /** minor units */
  cash_on_delivery: number;
  /** minor units */
  shipping_cost: number;
  currency: string;
  weight_kg: number;
  packages: number;
  customer_notes: string | null;
  /** JSON object. */
  metadata: string;
  courier_id: string | null;
  courier_name: string | null;
  route_id: string | null;
  cancellation_reason: string | null;
  failure_reason: string | null;
  attempts: number;
  /** Last `sequence` handed to an event of this order. */
  event_seq: number;
  /** 016: written by the customer on the tracking page before departure. */
  delivery_instructions: string | null;
  safe_place: string | null;
  /** 016: the customer's one rating (1–5) after delivery. */
  feedback_rating: number | null;
  feedback_comment: string | null;
  feedback_at: number | null;
  created_at: number;
  updated_at: number;
  picked_up_at: number | null;
  delivered_at: number | null;
  returned_at: number | null;
  failure_notes: string | null;
  /**
   * Added by 009_order_board, derived on every write (orders/repo.ts), never shown: when the order
   * is due, `requested_date` as epoch ms or, without one, `created_at` (the board's day filter).
   */
  due_at: number;
  /** `searchKey(customer.name)`: the board's prefix search on the customer's name. */
  customer_key: string;
  /** `phoneKey(customer.phone ?? customer.whatsapp)`: the board's search by the phone's last digits. */
  phone_key: string | null;
  /**
   * Added by 014_local_days, fixed at creation: the IANA zone the order's days and times of day are
   * read in (its account's depot's, else its account's, else the carrier's; docs/api.md).
   */
  timezone: string;
  /**
   * Added by 014_local_days, derived with `due_at` (orders/repo.ts): the local day (YYYY-MM-DD, in
   * `timezone`) the order is due: its requested day, else the day it was created.
   */
  due_day: string;
  /** Added by 019_setup: JSON Geocode (orders/address-schemas.ts), how the geocoder located the address; null when it came with coordinates. */
  geocode: string | null;
  /** Added by 023_labels: when the parcel was scanned into the courier's vehicle; null until then. */
  loaded_at: number | null;
  /**
   * Added by 017_money, fixed when the order is delivered (lifecycle/on-time.ts): 1 inside its
   * time window on its due day (without a window: by the end of its due day), 0 late, null not delivered.
   */
  on_time: number | null;
  /**
   * Added by 020_proof_pin, fixed at creation: JSON `{signature, photo, pin, id_check, age_check}`,
   * each `required|optional|off` (orders/proof-settings.ts); null on orders older than it.
   */
  proof: string | null;
  /** 020: the 4-digit delivery PIN when `proof.pin` is required; shown to the merchant only. */
  delivery_pin: string | null;
  /** 020: wrong PINs given to `deliver` so far. */
  pin_attempts: number;
  /** 020: null without a PIN, else set | locked | overridden. */
  pin_state: PinState | null;
  /**
   * Added by 024_move_positions: where the phone was at the last attempt (deliver, fail) when the
   * courier sent a position; `attempt_distance_m` from the address and `attempt_far` (1 far, 0 not,
   * shared/geo.ts farFromAddress) only when the address has coordinates. All null otherwise.
   */
  attempt_lat: number | null;
  attempt_lng: number | null;
  attempt_accuracy_m: number | null;
  attempt_recorded_at: number | null;
  attempt_distance_m: number | null;
  attempt_far: number | null;
}

/** Longest stored search key: enough for any name anyone types, short enough for an index entry. */
const KEY_LENGTH = 100;

/**
 * A name as the search compares it: accents dropped (José → jose), lower case, spaces collapsed.
 * Stored and queried through this one function, so both sides always agree.
 */
export function searchKey(text: string): string {
  return text.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().replace(/\s+/g, ' ').trim().slice(0, KEY_LENGTH);
}

/**
 * A phone's digits, last first: "the number ends in 4321" becomes a prefix, which an index can
 * serve, and a national number (987654321) finds its E.164 form (+51987654321).
 */
export function phoneKey(phone: string | undefined | null): string | null {
  if (!phone) return null;
  const digits = phone.replace(/\D/g, '');
  return digits === '' ? null : [...digits].reverse().join('').slice(0, 20);
}
