/** Created by 006_people: a signed-in user (cookie `ruta_session`). */
export interface SessionsTable {
  id: string;
  user_id: string;
  /** sha256 of the cookie's 256-bit token. */
  token_hash: string;
  created_at: number;
  /** Refreshed at most once a minute; idle timeout counts from here. */
  last_seen_at: number;
  /** Absolute end (created_at + 7 d). */
  expires_at: number;
}
