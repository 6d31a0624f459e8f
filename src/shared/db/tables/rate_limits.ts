/** Created by 001_core; used on PostgreSQL only (SQLite runs one process, so it counts in memory). */
export interface RateLimitsTable {
  bucket: string;
  window_start: number;
  count: number;
}
