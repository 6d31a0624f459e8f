import type { Mode, Role } from './columns.js';

/** Created by 001_core. */
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
  /** Added by 006_people: set when the key is rolled (it keeps working until then). */
  expires_at: number | null;
}
