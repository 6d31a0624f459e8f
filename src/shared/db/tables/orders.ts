import type { Mode } from './columns.js';

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
  /** JSON array of items. */
  items: string;
  requested_date: string | null;
  /** JSON {start, end} or null. */
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
