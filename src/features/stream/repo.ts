import { sql } from 'kysely';
import type { Executor } from '../../shared/db/index.js';
import type { Mode } from '../../shared/db/schema.js';
import type { OrderEventFilter } from './scope.js';

/** An order event as the stream sends it: the webhook envelope's exact bytes and who may see it. */
export interface StreamEvent {
  id: string;
  account_id: string;
  mode: Mode;
  payload: string;
}

const COLUMNS = ['id', 'account_id', 'mode', 'payload'] as const;

/** Last-Event-ID resume: where to start, how far back, how many. */
export interface ResumeRange {
  /** Events after this id (ids are time-ordered). */
  afterId: string;
  /** And created at or after this time (the resume window). */
  since: number;
  limit: number;
}

/** The events `filter` (the stream's visibility rule as a WHERE, `scope.ts`) lets through, in `r`. */
function visibleIn(db: Executor, filter: OrderEventFilter, r: ResumeRange) {
  // (mode, id) is the events_stream index: an operator's resume is one range of it.
  const q = db.selectFrom('events').where('mode', '=', filter.mode).where('id', '>', r.afterId);
  return (filter.accountId === null ? q : q.where('account_id', '=', filter.accountId)).where(
    'created_at',
    '>=',
    r.since,
  );
}

/** A page of the replay: the visible events after `afterId`, oldest first. */
export async function eventsAfter(db: Executor, filter: OrderEventFilter, r: ResumeRange): Promise<StreamEvent[]> {
  return visibleIn(db, filter, r).select(COLUMNS).orderBy('id').limit(r.limit).execute();
}

/** How many events the replay would send, counting no further than `limit` (the bound is all it needs to know). */
export async function countAfter(db: Executor, filter: OrderEventFilter, r: ResumeRange): Promise<number> {
  const first = visibleIn(db, filter, r).select('id').orderBy('id').limit(r.limit).as('first');
  const row = await db
    .selectFrom(first)
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/**
 * PostgreSQL: a marker on the `ruta_events` channel. Notifications arrive in commit order, so when
 * this instance's LISTEN connection receives it, it has received those of every event committed
 * before this call (the replay's hand-over to the live path waits for it).
 */
export async function notifyMarker(db: Executor, token: string): Promise<void> {
  await sql`select pg_notify('ruta_events', ${token})`.execute(db);
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
