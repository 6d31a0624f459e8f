/** Kysely table types of the webhooks feature (see migrations/003_webhooks.ts); same conventions as schema.ts. */
import type { Generated } from 'kysely';
import type { Mode } from '../../shared/db/schema.js';

export type EndpointStatus = 'enabled' | 'disabled';
export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';
export type DeliveryKind = 'event' | 'redeliver' | 'test';

export interface WebhookEndpointsTable {
  id: string;
  account_id: string;
  mode: Mode;
  url: string;
  description: string | null;
  /** JSON array of event names, possibly ["*"]. */
  events: string;
  secret: string;
  /** The secret before the last rotation; still signs until previous_secret_expires_at. */
  previous_secret: string | null;
  previous_secret_expires_at: number | null;
  status: EndpointStatus;
  disabled_reason: string | null;
  disabled_at: number | null;
  /** Start of the current run of failures (null after a success): the 72 h rule counts from here. */
  first_failure_at: number | null;
  last_success_at: number | null;
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
}

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

export interface WebhookAttemptsTable {
  id: Generated<number>;
  delivery_id: string;
  endpoint_id: string;
  event_id: string;
  attempt: number;
  succeeded: number;
  started_at: number;
  finished_at: number;
  duration_ms: number;
  response_status: number | null;
  error_class: string | null;
  error_message: string | null;
  /** The first KiB of the response body. */
  response_body: string | null;
}

export interface WebhookTables {
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
}
