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
}
