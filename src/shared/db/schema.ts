/**
 * Kysely table types. Conventions shared by both engines:
 * - timestamps are epoch milliseconds (bigint in PostgreSQL, integer in SQLite);
 * - booleans are 0/1 integers;
 * - money is integer minor units (cents), never binary floats;
 * - nested objects are JSON text, so both engines store and return the same bytes.
 * Each feature adds its tables to `DB` below.
 */
import type { Generated } from 'kysely';
import type { WebhookTables } from '../../features/webhooks/tables.js';

export type Mode = 'test' | 'live';
export type Role = 'merchant' | 'operator';

export interface AccountsTable {
  id: string;
  name: string;
  currency: string;
  /** JSON Pricing overrides (minor units); null means the configured defaults. */
  pricing: string | null;
  origin_lat: number | null;
  origin_lng: number | null;
  created_at: number;
}

export interface ApiKeysTable {
  id: string;
  /** null for operator keys, which belong to the carrier rather than a merchant. */
  account_id: string | null;
  role: Role;
  mode: Mode;
  key_hash: string;
  /** First and last characters, so an operator can tell keys apart without the secret. */
  display: string;
  created_at: number;
  revoked_at: number | null;
}

export interface OrdersTable {
  id: string;
  account_id: string;
  mode: Mode;
  tracking_code: string;
  external_order_id: string | null;
  source: string | null;
  status: string;
  customer: string;
  delivery_address: string;
  items: string;
  requested_date: string | null;
  time_window: string | null;
  priority: number;
  is_urgent: number;
  requires_signature: number;
  requires_photo: number;
  cash_on_delivery: number;
  shipping_cost: number;
  currency: string;
  weight_kg: number;
  packages: number;
  customer_notes: string | null;
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
}

export interface OrderTimelineTable {
  id: Generated<number>;
  order_id: string;
  status: string;
  occurred_at: number;
  lat: number | null;
  lng: number | null;
}

export interface EventsTable {
  id: string;
  account_id: string;
  mode: Mode;
  type: string;
  order_id: string | null;
  /** The exact JSON envelope sent to receivers; kept as text so every attempt sends the same bytes. */
  payload: string;
  created_at: number;
}

export interface IdempotencyKeysTable {
  owner: string;
  mode: Mode;
  key: string;
  fingerprint: string;
  /** null while the first request is in flight. */
  response_status: number | null;
  response_body: string | null;
  locked_at: number;
  expires_at: number;
}

export interface RateLimitsTable {
  bucket: string;
  window_start: number;
  count: number;
}

export interface SettingsTable {
  key: string;
  value: string;
}

export interface CoreTables {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  orders: OrdersTable;
  order_timeline: OrderTimelineTable;
  events: EventsTable;
  idempotency_keys: IdempotencyKeysTable;
  rate_limits: RateLimitsTable;
  settings: SettingsTable;
}

/** Columns 002_lifecycle adds to `orders`. */
export interface OrderLifecycleColumns {
  picked_up_at: number | null;
  delivered_at: number | null;
  returned_at: number | null;
  failure_notes: string | null;
}

export interface CouriersTable {
  id: string;
  /** null for the carrier's couriers (operator keys); an account id for a sandbox courier of a test key. */
  account_id: string | null;
  mode: Mode;
  name: string;
  phone: string | null;
  vehicle: string | null;
  last_lat: number | null;
  last_lng: number | null;
  last_recorded_at: number | null;
  ping_count: number;
  created_at: number;
  updated_at: number;
}

export interface CourierLocationsTable {
  courier_id: string;
  slot: number;
  seq: number;
  lat: number;
  lng: number;
  recorded_at: number;
}

export interface RoutesTable {
  id: string;
  account_id: string | null;
  mode: Mode;
  courier_id: string;
  date: string | null;
  created_at: number;
}

export interface RouteStopsTable {
  route_id: string;
  position: number;
  order_id: string;
}

export interface FilesTable {
  id: string;
  account_id: string | null;
  mode: Mode;
  purpose: string;
  mime: string;
  size: number;
  sha256: string;
  created_at: number;
}

export interface ProofsTable {
  order_id: string;
  receiver_name: string;
  receiver_document: string | null;
  relationship: string | null;
  signature_file: string | null;
  /** JSON array of file ids. */
  photo_files: string;
  /** minor units */
  collected_amount: number | null;
  payment_method: string | null;
  cod_status: string | null;
  delivered_packages: number;
  lat: number | null;
  lng: number | null;
  delivered_at: number;
}

export interface LifecycleTables {
  orders: OrdersTable & OrderLifecycleColumns;
  couriers: CouriersTable;
  courier_locations: CourierLocationsTable;
  routes: RoutesTable;
  route_stops: RouteStopsTable;
  files: FilesTable;
  proofs: ProofsTable;
}

export interface DB extends Omit<CoreTables, 'orders'>, LifecycleTables, WebhookTables {}
