import type { Selectable, Updateable } from 'kysely';
import type { Owner } from '../../shared/auth.js';
import { precompiled } from '../../shared/db/compiled.js';
import type { Db, Engine, Executor, KeysetCursor } from '../../shared/db/index.js';
import type { WebhookAttemptsTable, WebhookDeliveriesTable, WebhookEndpointsTable } from '../../shared/db/schema.js';

/** An endpoint, its event subscriptions parsed. */
export interface EndpointRow extends Omit<WebhookEndpointsTable, 'events'> {
  /** Event names, possibly ["*"]. */
  events: string[];
}
export type DeliveryRow = WebhookDeliveriesTable;
export type AttemptRow = Selectable<WebhookAttemptsTable>;
export type NewAttempt = WebhookAttemptsTable;

const endpointOf = (r: WebhookEndpointsTable): EndpointRow => ({ ...r, events: JSON.parse(r.events) });

function endpointColumns(o: Partial<EndpointRow>): Updateable<WebhookEndpointsTable> {
  const { events, ...plain } = o;
  return events === undefined ? plain : { ...plain, events: JSON.stringify(events) };
}

export type { Owner };
export type Cursor = KeysetCursor;

// ---- endpoints ----

export async function insertEndpoint(db: Executor, row: EndpointRow): Promise<void> {
  await db
    .insertInto('webhook_endpoints')
    .values({ ...row, events: JSON.stringify(row.events) })
    .execute();
}

/**
 * Inserts the endpoint unless its account and environment already have `max` (deleted ones do not
 * count); false when at the limit. Count and insert run in one transaction; on PostgreSQL it first
 * locks the account row, so two concurrent creations cannot both see room for one (on SQLite a
 * process's transactions run one at a time on its single connection).
 */
export async function insertEndpointWithinLimit(
  db: Db,
  engine: Engine,
  row: EndpointRow,
  max: number,
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    if (engine === 'postgres') {
      await trx.selectFrom('accounts').select('id').where('id', '=', row.account_id).forUpdate().execute();
    }
    const r = await trx
      .selectFrom('webhook_endpoints')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', row.account_id)
      .where('mode', '=', row.mode)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    if (Number(r?.n ?? 0) >= max) return false;
    await insertEndpoint(trx, row);
    return true;
  });
}

/** Deleted endpoints and those of another account or environment are invisible. */
export async function findEndpoint(db: Executor, owner: Owner, id: string): Promise<EndpointRow | undefined> {
  const row = await db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('id', '=', id)
    .where('account_id', '=', owner.accountId)
    .where('mode', '=', owner.mode)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return row && endpointOf(row);
}

export async function updateEndpoint(
  db: Executor,
  id: string,
  set: Partial<EndpointRow>,
): Promise<EndpointRow | undefined> {
  const row = await db
    .updateTable('webhook_endpoints')
    .set(endpointColumns(set))
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
  return row && endpointOf(row);
}

/** Precompiled: every create reads them (its order.created event is delivered to each). */
const enabledOf = precompiled((db, accountId: string, mode: Owner['mode']) =>
  db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('mode', '=', mode)
    .where('status', '=', 'enabled')
    .where('deleted_at', 'is', null),
);

/** Enabled endpoints of one account and environment; the caller filters by subscription. */
export async function enabledEndpoints(db: Executor, owner: Owner): Promise<EndpointRow[]> {
  const rows = await enabledOf(db, owner.accountId, owner.mode);
  return rows.map(endpointOf);
}

// ---- deliveries ----

export async function insertDeliveries(db: Executor, rows: DeliveryRow[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('webhook_deliveries').values(rows).execute();
}

export async function releaseLeases(db: Executor, owner: string, ids: string[], unsent = false): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('webhook_deliveries')
    // The claim counted an attempt; one never sent is taken back.
    .set((eb) => ({
      lease_owner: null,
      lease_expires_at: null,
      ...(unsent ? { attempts: eb('attempts', '-', 1) } : {}),
    }))
    .where('lease_owner', '=', owner)
    .where('id', 'in', ids)
    .execute();
}

/** The next future retry time, to sleep until then (due-but-blocked deliveries wait for a wake or the poll). */
export async function nextDueAt(db: Executor, now: number): Promise<number | null> {
  const r = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.min('next_attempt_at').as('at'))
    .where('status', '=', 'pending')
    .where('next_attempt_at', '>', now)
    .executeTakeFirst();
  return r?.at == null ? null : Number(r.at);
}

export async function deliveriesOfEvents(db: Executor, eventIds: string[]): Promise<DeliveryRow[]> {
  if (eventIds.length === 0) return [];
  return db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('event_id', 'in', eventIds)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** An attempt of this endpoint (a pagination cursor must name one). */
export async function attemptExists(db: Executor, endpointId: string, id: string): Promise<boolean> {
  const r = await db
    .selectFrom('webhook_attempts')
    .select('id')
    .where('id', '=', id)
    .where('endpoint_id', '=', endpointId)
    .executeTakeFirst();
  return r !== undefined;
}

/**
 * An attempt as the log shows it: with its event's type and order, and where its delivery stands
 * now (its status, attempts so far and next try), which tells whether this attempt was retried,
 * will be, or was the last.
 */
export type LoggedAttempt = AttemptRow & {
  event_type: string;
  order_id: string | null;
  delivery_status: WebhookDeliveriesTable['status'];
  delivery_attempts: number;
  delivery_next_attempt_at: number;
};

/**
 * Newest first by keyset on the time-ordered id (index webhook_attempts_endpoint); each row's event
 * and delivery are read by their primary keys.
 */
export async function listAttempts(
  db: Executor,
  endpointId: string,
  opts: { after?: string; event?: string; limit: number },
): Promise<LoggedAttempt[]> {
  let q = db
    .selectFrom('webhook_attempts as a')
    .innerJoin('webhook_deliveries as d', 'd.id', 'a.delivery_id')
    .innerJoin('events as e', 'e.id', 'a.event_id')
    .selectAll('a')
    .select([
      'e.type as event_type',
      'e.order_id as order_id',
      'd.status as delivery_status',
      'd.attempts as delivery_attempts',
      'd.next_attempt_at as delivery_next_attempt_at',
    ])
    .where('a.endpoint_id', '=', endpointId);
  if (opts.after !== undefined) q = q.where('a.id', '<', opts.after);
  if (opts.event !== undefined) q = q.where('a.event_id', '=', opts.event);
  return q
    .orderBy('a.id', 'desc')
    .limit(opts.limit + 1)
    .execute();
}
