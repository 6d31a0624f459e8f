/** `queued`: waiting (or back to the queue after an error or a clean stop); `running`: leased to a
 * worker (taken over once the lease lapses); `failed`: its attempts spent, kept for inspection.
 * A job that succeeds is deleted. */
export const JOB_STATUSES = ['queued', 'running', 'failed'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** Created by 013_jobs. */
export interface JobsTable {
  id: string;
  /** What runs it: a handler registered under this name (e.g. `route_plan.solve`). */
  kind: string;
  /** The object it works on; unique per kind. */
  ref: string | null;
  /** JSON input beyond `ref`, if any. */
  payload: string | null;
  status: JobStatus;
  run_at: number;
  attempts: number;
  max_attempts: number;
  lease_owner: string | null;
  lease_expires_at: number | null;
  last_error: string | null;
  created_at: number;
  updated_at: number;
}
