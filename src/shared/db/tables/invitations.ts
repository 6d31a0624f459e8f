import type { UserRole } from './users.js';

/** Created by 006_people. */
export interface InvitationsTable {
  id: string;
  email: string;
  role: UserRole;
  account_id: string | null;
  token_hash: string;
  /** The admin's user id. */
  created_by: string;
  created_at: number;
  expires_at: number;
  accepted_at: number | null;
}
