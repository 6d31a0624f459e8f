import { type Selectable, sql } from 'kysely';
import { compiledInsert, compiledInsertRows } from '../db/compiled.js';
import type { Db, Engine, Executor } from '../db/index.js';
import type { JobsTable } from '../db/schema.js';

// The jobs table's statements, one function each with the reason for its shape. Every write after
// the claim is guarded by `lease_owner`: a worker whose lease lapsed and was taken over changes
// nothing (graphile-worker guards its completeJob/failJob the same way, with `locked_by`).

export type JobRow = Selectable<JobsTable>;

const JOB_COLUMNS = Object.keys({
  id: 1,
  kind: 1,
  ref: 1,
  payload: 1,
  status: 1,
  run_at: 1,
  attempts: 1,
  max_attempts: 1,
  lease_owner: 1,
  lease_expires_at: 1,
  last_error: 1,
  created_at: 1,
  updated_at: 1,
} satisfies Record<keyof JobsTable, 1>) as (keyof JobsTable)[];

/** Precompiled: a job is written with every create that queues a customer message (the hot path). */
export const insertJob: (db: Executor, row: JobsTable) => Promise<void> = compiledInsert('jobs', JOB_COLUMNS);

/** Many new jobs, many a statement (the send jobs of a group of creates: SQLite prepares each statement). */
export const insertJobs: (db: Executor, rows: readonly JobsTable[]) => Promise<void> = compiledInsertRows(
  'jobs',
  JOB_COLUMNS,
  100,
);

export interface ClaimOptions {
  kind: string;
  owner: string;
  now: number;
  leaseUntil: number;
  limit: number;
}

/**
 * Leases up to `limit` due jobs of one kind to `owner`, oldest first, in one statement: queued
 * ones whose time has come, and running ones whose lease lapsed (their worker died: a takeover).
 * `attempts + 1` is counted here, before the job runs, so a death mid-job still counts.
 * PostgreSQL: SKIP LOCKED lets any number of workers claim side by side without waiting on or
 * taking the same row, and `= any(array(…))` evaluates the pick once (a LIMIT subquery under `IN`
 * may be rescanned by a join and lock more rows than it returns). SQLite has one writer, so the
 * UPDATE is atomic against every other process on the file. The pick reads the partial index
 * `jobs_due` (kind, run_at) of unfailed rows.
 */
export async function claimJobs(db: Db, engine: Engine, o: ClaimOptions): Promise<JobRow[]> {
  let pick = db
    .selectFrom('jobs')
    .select('id')
    .where('kind', '=', o.kind)
    .where('status', '<>', 'failed')
    .where('run_at', '<=', o.now)
    .where((eb) => eb.or([eb('lease_expires_at', 'is', null), eb('lease_expires_at', '<=', o.now)]))
    .orderBy('run_at')
    .orderBy('id')
    .limit(o.limit);
  if (engine === 'postgres') pick = pick.forUpdate().skipLocked();
  const rows = await db
    .updateTable('jobs')
    .set({
      status: 'running',
      lease_owner: o.owner,
      lease_expires_at: o.leaseUntil,
      attempts: sql<number>`attempts + 1`,
      updated_at: o.now,
    })
    .where(engine === 'postgres' ? sql<boolean>`id = any(array(${pick}))` : (eb) => eb('id', 'in', pick))
    .returningAll()
    .execute();
  // RETURNING promises no order.
  return rows.sort((a, b) => a.run_at - b.run_at || (a.id < b.id ? -1 : 1));
}

/** Extends a lease still held by `owner`; false when another worker took the job over. */
export async function renewLease(db: Executor, id: string, owner: string, leaseUntil: number): Promise<boolean> {
  const r = await db
    .updateTable('jobs')
    .set({ lease_expires_at: leaseUntil })
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** A finished job is deleted (the feature's object holds the outcome): the table holds only live work. */
export async function completeJob(db: Executor, id: string, owner: string): Promise<boolean> {
  const r = await db.deleteFrom('jobs').where('id', '=', id).where('lease_owner', '=', owner).executeTakeFirst();
  return Number(r.numDeletedRows) === 1;
}

/** Failed for good: kept with its last error (for operators; never shown to users) and out of every claim. */
export async function failJob(db: Executor, id: string, owner: string, now: number, error: string): Promise<boolean> {
  const r = await db
    .updateTable('jobs')
    .set({ status: 'failed', lease_owner: null, lease_expires_at: null, last_error: error, updated_at: now })
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** A failed attempt with attempts left: back to the queue, due again at `runAt` (the back-off). */
export async function retryJob(db: Db, id: string, owner: string, now: number, runAt: number, error: string) {
  await db
    .updateTable('jobs')
    .set({
      status: 'queued',
      run_at: runAt,
      lease_owner: null,
      lease_expires_at: null,
      last_error: error,
      updated_at: now,
    })
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .execute();
}

/**
 * Hands a job back unfinished (a clean stop): queued again at once for any worker, and the attempt
 * its claim counted is given back, so deploys and restarts never spend a job's attempts.
 */
export async function returnJob(db: Executor, id: string, owner: string, now: number): Promise<boolean> {
  const r = await db
    .updateTable('jobs')
    .set({
      status: 'queued',
      attempts: sql<number>`case when attempts > 0 then attempts - 1 else 0 end`,
      lease_owner: null,
      lease_expires_at: null,
      updated_at: now,
    })
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export interface QueueRow {
  kind: string;
  /** queued, running (lease live), stalled (running, lease lapsed: awaiting a takeover), failed. */
  state: 'queued' | 'running' | 'stalled' | 'failed';
  n: number;
  oldest_created_at: number;
}

/** Jobs per kind and state, and the oldest of each, for /metrics: one grouped read of a small table. */
export async function queueStats(db: Db, now: number): Promise<QueueRow[]> {
  const state = sql<
    QueueRow['state']
  >`case when status = 'running' and lease_expires_at <= ${now} then 'stalled' else status end`;
  const rows = await db
    .selectFrom('jobs')
    .select((eb) => [
      'kind',
      state.as('state'),
      eb.fn.countAll<number>().as('n'),
      eb.fn.min('created_at').as('oldest_created_at'),
    ])
    // By position: PostgreSQL cannot tell that the CASE above and a repeated one (a second
    // parameter) are the same expression.
    .groupBy([sql`1`, sql`2`])
    .execute();
  return rows.map((r) => ({ ...r, n: Number(r.n), oldest_created_at: Number(r.oldest_created_at) }));
}
