import { type Kysely, sql } from 'kysely';
import type { MigrationContext } from '../migration-context.js';

/**
 * Leased background jobs (src/shared/jobs/): one row per piece of background work a worker claims,
 * runs under a lease it renews, and deletes when done. Route plan solves are the first kind.
 */
export async function up(db: Kysely<unknown>, { ms }: MigrationContext): Promise<void> {
  await db.schema
    .createTable('jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    // The object the job works on (a plan's id): at most one job per (kind, ref).
    .addColumn('ref', 'text')
    .addColumn('payload', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    // Not before this instant: a retry waits out its back-off here.
    .addColumn('run_at', ms, (c) => c.notNull())
    // Claims so far: counted by the claim itself, so a worker that dies mid-job leaves it behind.
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('max_attempts', 'integer', (c) => c.notNull())
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_at', ms)
    .addColumn('last_error', 'text')
    .addColumn('created_at', ms, (c) => c.notNull())
    .addColumn('updated_at', ms, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('jobs_ref').unique().on('jobs').columns(['kind', 'ref']).execute();
  // The claim's pick: due rows of a kind, oldest first, in index order. Failed rows (kept for
  // inspection) stay out of it.
  await db.schema
    .createIndex('jobs_due')
    .on('jobs')
    .columns(['kind', 'run_at', 'id'])
    .where(sql.ref('status'), '<>', 'failed')
    .execute();

  // Plans left queued or running by the in-process runner this replaces (a restart stranded them
  // for good) get their job: the first claim takes them over like any interrupted plan, a running
  // one having already spent one attempt.
  await sql`
    insert into jobs (id, kind, ref, payload, status, run_at, attempts, max_attempts, created_at, updated_at)
    select 'job_' || substr(id, 7), 'route_plan.solve', id, null, 'queued', created_at,
           case when status = 'running' then 1 else 0 end, 2, created_at, updated_at
    from route_plans where status in ('queued', 'running')`.execute(db);
}
