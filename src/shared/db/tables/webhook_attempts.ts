export const ERROR_CLASSES = ['dns', 'connect', 'tls', 'timeout', 'http'] as const;
export type ErrorClass = (typeof ERROR_CLASSES)[number];

/** Created by 003_webhooks; 004_webhooks_attempts gave it prefixed ids. */
export interface WebhookAttemptsTable {
  /** `whatt_…`, time-ordered (keyset pagination goes by id alone). */
  id: string;
  delivery_id: string;
  endpoint_id: string;
  event_id: string;
  attempt: number;
  succeeded: number;
  started_at: number;
  finished_at: number;
  duration_ms: number;
  response_status: number | null;
  error_class: ErrorClass | null;
  error_message: string | null;
  /** The first KiB of the response body. */
  response_body: string | null;
}
