/** Created by 012_sign_in_attempts: a single-use link, made by an admin, on which a user sets a new password. */
export interface PasswordResetsTable {
  id: string;
  user_id: string;
  token_hash: string;
  /** The admin's user id. */
  created_by: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}
