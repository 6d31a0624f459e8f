import type { Config } from '../config.js';
import type { AppContext } from '../context.js';
import type { Executor, Tx } from '../db/index.js';
import type { JobsTable } from '../db/schema.js';
import { newId } from '../ids.js';
import * as repo from './repo.js';

export type Job = repo.JobRow;

/** The signal (on `ctx.signals`, this instance only) that a job was queued: the local runner claims at once. */
export const JOBS_QUEUED = 'jobs:queued';

/** Why a job ended failed for good: what its handler tells the owner of the object it worked on. */
export type JobFailure =
  /** Its attempts were spent by workers that stopped (died, or lost the lease) before finishing it. */
  | { reason: 'interrupted'; attempts: number }
  /** Its handler threw on its last attempt (or threw `JobFailed`); `error` is for the log, not for users. */
  | { reason: 'error'; attempts: number; error: unknown };

/** A handler throws this to fail the job at once, without the retries left. */
export class JobFailed extends Error {}

/** What a handler's run can do with the job it holds. */
export interface JobRun {
  /** Aborted when the runner stops (the job goes back to the queue) or loses the lease (another took it over). */
  readonly signal: AbortSignal;
  /**
   * Runs `work` in one transaction with the job's completion (its row deleted), only while this
   * runner still holds the lease; otherwise nothing commits and it throws. The feature's final
   * write goes here, so a worker that lost the job can never overwrite what its successor wrote.
   */
  complete<T>(work: (trx: Tx) => Promise<T>): Promise<T>;
  /**
   * Runs `work` in one transaction that also renews the lease, only while this runner holds it;
   * otherwise nothing commits and it throws. For a job that does several things, each of which
   * must commit on its own (a send job's messages): a worker that lost the job writes none of them.
   */
  step<T>(work: (trx: Tx) => Promise<T>): Promise<T>;
}

/** The work of one kind, bound to one runner's context. Each returns what to do after the commit (a live message). */
export interface JobHandler {
  /** Does the job. Returning without `complete` completes it; throwing is a failed attempt. */
  run(job: Job, run: JobRun): Promise<void>;
  /** The job failed for good: record why on the feature's object, in the job's transaction. */
  failed(trx: Tx, job: Job, failure: JobFailure): Promise<AfterCommit>;
  /** The job goes back to the queue unfinished (the runner is stopping), in the job's transaction. */
  returned?(trx: Tx, job: Job): Promise<AfterCommit>;
}

export type AfterCommit = (() => void) | undefined;

/**
 * A kind of job, registered by a feature through the entry points' wiring (`JOBS` in app.ts): the
 * jobs facility is in shared/ and knows no feature.
 */
export interface JobKind {
  readonly kind: string;
  /**
   * Claims a job may have. A claim counts an attempt before the job runs, so a worker that dies
   * mid-job spends one; the claim after the last fails the job (`interrupted`) instead of running it.
   */
  readonly maxAttempts: number;
  /** How long a claim holds the job without renewal; the runner renews it every third of that. */
  readonly leaseMs: number;
  /** How many jobs of this kind one runner (one process) runs at once. */
  concurrency(config: Config): number;
  handler(ctx: AppContext): JobHandler;
}

/**
 * Queues a job in the caller's transaction (with the state change that asks for it). Call
 * `signalJobs(ctx)` after the commit so this instance's runner claims it at once; runners in other
 * processes find it at their next poll.
 */
export async function enqueue(
  trx: Executor,
  kind: Pick<JobKind, 'kind' | 'maxAttempts'>,
  job: { ref?: string; payload?: unknown; now: number; runAt?: number },
): Promise<string> {
  const row = jobRow(kind, job);
  await repo.insertJob(trx, row);
  return row.id;
}

/** The row `enqueue` writes, for callers that write many in one statement with their own rows. */
export function jobRow(
  kind: Pick<JobKind, 'kind' | 'maxAttempts'>,
  job: { ref?: string; payload?: unknown; now: number; runAt?: number },
): JobsTable {
  return {
    id: newId('job', job.now),
    kind: kind.kind,
    ref: job.ref ?? null,
    payload: job.payload === undefined ? null : JSON.stringify(job.payload),
    status: 'queued',
    run_at: job.runAt ?? job.now,
    attempts: 0,
    max_attempts: kind.maxAttempts,
    lease_owner: null,
    lease_expires_at: null,
    last_error: null,
    created_at: job.now,
    updated_at: job.now,
  };
}

export function signalJobs(ctx: Pick<AppContext, 'signals'>): void {
  ctx.signals.emit(JOBS_QUEUED);
}
