import { type Kysely, sql } from 'kysely';
import type { MigrationContext } from '../migration-context.js';

/**
 * PostgreSQL: the dispatcher's pick of due deliveries as a function whose plan does not depend on
 * the table's statistics (claim-repo.ts calls it).
 *
 * The pick wants the oldest few pending rows, which the index (status, next_attempt_at) hands over
 * in order, stopping after `lim`. But when the statistics say few rows are pending (a fresh table,
 * or a large one of mostly delivered rows just before a receiver's outage leaves a backlog), the
 * planner prefers a bitmap scan that reads every pending row, checks each one's predecessors and
 * sorts them all: measured, 21 ms per claim of 8 from a backlog of 10 000 instead of 0.4 ms, which
 * cut the drain to half (BENCHMARKS.md). `enable_sort` and `enable_bitmapscan` off, for this
 * function only, leave the ordered index scan as the plan whatever the statistics say. VOLATILE
 * (the default): it locks the rows it returns (FOR UPDATE SKIP LOCKED).
 */
export async function up(db: Kysely<unknown>, { engine }: MigrationContext): Promise<void> {
  if (engine !== 'postgres') return;
  await sql`
    create function ruta_due_deliveries(now bigint, excluded text[], lim integer)
    returns setof text
    language sql
    rows 10
    set enable_sort = off
    set enable_bitmapscan = off
    as $$
      select d.id from webhook_deliveries d
      where d.status = 'pending' and d.next_attempt_at <= now
        and (d.lease_expires_at is null or d.lease_expires_at <= now)
        and not exists (
          select 1 from webhook_deliveries p
          where p.endpoint_id = d.endpoint_id and p.order_id = d.order_id
            and p.status = 'pending' and p.sequence < d.sequence)
        and d.endpoint_id <> all(excluded)
      order by d.next_attempt_at
      limit lim
      for update skip locked
    $$`.execute(db);
}
