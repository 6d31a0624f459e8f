/** Created by 012_sign_in_attempts: a browser a user signed in from (cookie `ruta_device`). */
export interface KnownDevicesTable {
  /** sha256 of the cookie's 256-bit token. */
  token_hash: string;
  user_id: string;
  created_at: number;
  last_used_at: number;
  /** 180 days after the last successful sign-in from it. */
  expires_at: number;
}
