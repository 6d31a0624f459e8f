import type { Mode } from './columns.js';

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';
export type DeliveryKind = 'event' | 'redeliver' | 'test';

/** Created by 003_webhooks. */
export interface WebhookDeliveriesTable {
  id: string;
  event_id: string;
  endpoint_id: string;
  account_id: string;
  mode: Mode;
  order_id: string | null;
  /** The event's per-order sequence: a delivery waits while a lower one for the same (endpoint, order) is pending. */
  sequence: number;
  kind: DeliveryKind;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: number;
  first_attempt_at: number | null;
  last_attempt_at: number | null;
  lease_owner: string | null;
  lease_expires_at: number | null;
  last_error: string | null;
  last_status_code: number | null;
  created_at: number;
  completed_at: number | null;
}
