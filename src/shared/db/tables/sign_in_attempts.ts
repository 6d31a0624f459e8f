/**
 * Created by 012_sign_in_attempts: one row per sign-in attempt (password or courier code) and per
 * bucket it counts in (`pair:…`, `address:…`, `account:…`, `device:…`, `code-address:…`,
 * `change:…`). Written before the check; kept only when the attempt failed.
 */
export interface SignInAttemptsTable {
  bucket: string;
  at: number;
  /** Shared by the rows of one attempt, so it can take back exactly its own. */
  attempt_id: string;
}
