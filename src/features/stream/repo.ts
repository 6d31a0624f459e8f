import { sql } from 'kysely';
import type { Scope } from '../../shared/auth.js';
import type { Executor } from '../../shared/db/index.js';
import type { Mode } from '../../shared/db/schema.js';

/** An order event as the stream sends it: the webhook envelope's exact bytes and who may see it. */
export interface StreamEvent {
  id: string;
  account_id: string;
  mode: Mode;
  payload: string;
}

const COLUMNS = ['id', 'account_id', 'mode', 'payload'] as const;

/** Last-Event-ID resume: the scope's events after `afterId` (ids are time-ordered), no older than `since`. */
export async function eventsAfter(
  db: Executor,
  scope: Scope,
  f: { afterId: string; since: number; limit: number },
): Promise<StreamEvent[]> {
  let q = db
    .selectFrom('events')
    .select(COLUMNS)
    .where('mode', '=', scope.mode)
    .where('id', '>', f.afterId)
    .where('created_at', '>=', f.since);
  if (scope.accountId !== null) q = q.where('account_id', '=', scope.accountId);
  return q.orderBy('id').limit(f.limit).execute();
}

/** The events a NOTIFY named (PostgreSQL). */
export async function eventsByIds(db: Executor, ids: string[]): Promise<StreamEvent[]> {
  if (ids.length === 0) return [];
  return db.selectFrom('events').select(COLUMNS).where('id', 'in', ids).orderBy('id').execute();
}

/**
 * SQLite: the position of the newest event. Rowids grow with each insert and SQLite has one
 * writer, so "rowid greater than the last one seen" is exactly "committed since".
 */
export async function lastRowid(db: Executor): Promise<number> {
  const r = await db.selectFrom('events').select(sql<number | null>`max(rowid)`.as('n')).executeTakeFirst();
  return Number(r?.n ?? 0);
}

export async function eventsAfterRowid(
  db: Executor,
  rowid: number,
  limit: number,
): Promise<(StreamEvent & { rowid: number })[]> {
  return db
    .selectFrom('events')
    .select([...COLUMNS, sql<number>`rowid`.as('rowid')])
    .where(sql<boolean>`rowid > ${rowid}`)
    .orderBy(sql`rowid`)
    .limit(limit)
    .execute();
}
