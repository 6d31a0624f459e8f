import type { Mode } from './columns.js';

export type EndpointStatus = 'enabled' | 'disabled';

/** Created by 003_webhooks. */
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
