import type { Mode } from './columns.js';

/** Created by 001_core. */
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
