import { type QueryCreator, type Selectable, sql, type Updateable } from 'kysely';
import type { Owner } from '../../shared/auth.js';
import { compiledInsert } from '../../shared/db/compiled.js';
import type { Db, Engine, Executor, KeysetCursor } from '../../shared/db/index.js';
import type {
  DB,
  WebhookAttemptsTable,
  WebhookDeliveriesTable,
  WebhookEndpointsTable,
} from '../../shared/db/schema.js';

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

export async function listEndpoints(
  db: Executor,
  owner: Owner,
  after: Cursor | undefined,
  limit: number,
): Promise<EndpointRow[]> {
  let q = db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('account_id', '=', owner.accountId)
    .where('mode', '=', owner.mode)
    .where('deleted_at', 'is', null);
  if (after) {
    q = q.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(after.created_at, after.id)));
  }
  const rows = await q
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit + 1)
    .execute();
  return rows.map(endpointOf);
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

/** Enabled endpoints of one account and environment; the caller filters by subscription. */
export async function enabledEndpoints(db: Executor, owner: Owner): Promise<EndpointRow[]> {
  const rows = await db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('account_id', '=', owner.accountId)
    .where('mode', '=', owner.mode)
    .where('status', '=', 'enabled')
    .where('deleted_at', 'is', null)
    .execute();
  return rows.map(endpointOf);
}

/** How stale `last_success_at` may get: every delivery writing it would make one endpoint row the hot spot. */
export const LAST_SUCCESS_GRANULARITY_MS = 60_000;

/**
 * Ends any failure run (which the 72 h rule counts) and notes the success time. The WHERE skips the
 * write when there is nothing to change, so concurrent successes to one endpoint do not queue on its
 * row lock; `last_success_at` is then at most LAST_SUCCESS_GRANULARITY_MS old.
 */
export async function recordSuccess(db: Executor, id: string, now: number): Promise<void> {
  await successUpdate(db, id, now).execute();
}

function successUpdate(db: Executor | QueryCreator<DB>, id: string, now: number) {
  return db
    .updateTable('webhook_endpoints')
    .set({ last_success_at: now, first_failure_at: null })
    .where('id', '=', id)
    .where((eb) =>
      eb.or([
        eb('first_failure_at', 'is not', null),
        eb('last_success_at', 'is', null),
        eb('last_success_at', '<', now - LAST_SUCCESS_GRANULARITY_MS),
      ]),
    );
}

/** Starts the failure run if none is open; disables the endpoint once the run reaches `disableAfterMs`. */
export async function recordFailure(db: Executor, id: string, now: number, disableAfterMs: number): Promise<boolean> {
  await db
    .updateTable('webhook_endpoints')
    .set((eb) => ({ first_failure_at: eb.fn.coalesce('first_failure_at', eb.val(now)) }))
    .where('id', '=', id)
    .execute();
  const r = await db
    .updateTable('webhook_endpoints')
    .set({
      status: 'disabled',
      disabled_reason: 'failing_72h',
      disabled_at: now,
      updated_at: now,
    })
    .where('id', '=', id)
    .where('status', '=', 'enabled')
    .where('first_failure_at', '<=', now - disableAfterMs)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export async function disableEndpoint(db: Executor, id: string, reason: string, now: number): Promise<void> {
  await db
    .updateTable('webhook_endpoints')
    .set({ status: 'disabled', disabled_reason: reason, disabled_at: now, updated_at: now })
    .where('id', '=', id)
    .where('status', '=', 'enabled')
    .execute();
}

// ---- deliveries ----

export async function insertDeliveries(db: Executor, rows: DeliveryRow[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('webhook_deliveries').values(rows).execute();
}

/**
 * Claims up to `limit` due deliveries and leases them to `owner`, in one statement (an UPDATE of the
 * rows its subquery picks, so no transaction and one round trip). The claim also counts the attempt
 * it is for (`attempts + 1`, returned): if this worker dies mid-send, whoever takes the expired lease
 * over sends the next number, not the same one again. A delivery is due when its time
 * has come, nobody holds a live lease on it, and no lower-sequence delivery of the same (endpoint,
 * order) is still pending. On PostgreSQL, SKIP LOCKED lets any number of workers claim side by side
 * without taking the same row; SQLite has a single writer anyway.
 */
export async function claimDue(
  db: Executor,
  engine: Engine,
  opts: { owner: string; now: number; leaseUntil: number; limit: number; excludeEndpoints: string[] },
): Promise<DeliveryRow[]> {
  const { now } = opts;
  let q = db
    .selectFrom('webhook_deliveries as d')
    .select('d.id')
    .where('d.status', '=', 'pending')
    .where('d.next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('d.lease_expires_at', 'is', null), eb('d.lease_expires_at', '<=', now)]))
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('webhook_deliveries as p')
            .select(sql`1`.as('one'))
            .whereRef('p.endpoint_id', '=', 'd.endpoint_id')
            .whereRef('p.order_id', '=', 'd.order_id')
            .where('p.status', '=', 'pending')
            .whereRef('p.sequence', '<', 'd.sequence'),
        ),
      ),
    );
  if (opts.excludeEndpoints.length > 0) q = q.where('d.endpoint_id', 'not in', opts.excludeEndpoints);
  q = q.orderBy('d.next_attempt_at').limit(opts.limit);
  if (engine === 'postgres') q = q.forUpdate().skipLocked();
  return db
    .updateTable('webhook_deliveries')
    .set((eb) => ({
      lease_owner: opts.owner,
      lease_expires_at: opts.leaseUntil,
      attempts: eb('attempts', '+', 1),
    }))
    .where('id', 'in', q)
    .returningAll()
    .execute();
}

export type DeliveryEvent = { id: string; type: string; order_id: string | null; payload: string };

/** What claimed deliveries need to be sent: their events' bytes and their endpoints, two queries per batch. */
export async function deliveryContexts(
  db: Executor,
  deliveries: DeliveryRow[],
): Promise<{ events: Map<string, DeliveryEvent>; endpoints: Map<string, EndpointRow> }> {
  const eventIds = [...new Set(deliveries.map((d) => d.event_id))];
  const endpointIds = [...new Set(deliveries.map((d) => d.endpoint_id))];
  const [events, endpoints] = await Promise.all([
    db.selectFrom('events').select(['id', 'type', 'order_id', 'payload']).where('id', 'in', eventIds).execute(),
    db.selectFrom('webhook_endpoints').selectAll().where('id', 'in', endpointIds).execute(),
  ]);
  return {
    events: new Map(events.map((e) => [e.id, e])),
    endpoints: new Map(endpoints.map((e) => [e.id, endpointOf(e)])),
  };
}

/**
 * Records a successful attempt: its log row, the delivery's settlement (only while `owner` still
 * holds the lease) and the endpoint's success mark (see recordSuccess). On PostgreSQL that is one
 * data-modifying statement, one round trip instead of BEGIN, three writes and COMMIT. On SQLite
 * the three small writes join `inCommit` (the dispatcher's group commit), sharing one transaction
 * with the other outcomes of the same turn.
 */
export async function recordSucceeded(
  engine: Engine,
  db: Db,
  inCommit: (work: (trx: Executor) => Promise<void>) => Promise<void>,
  attempt: NewAttempt,
  owner: string,
  set: Partial<DeliveryRow>,
  now: number,
): Promise<void> {
  if (engine === 'postgres') {
    await db
      .with('attempt', (w) => w.insertInto('webhook_attempts').values(attempt))
      .with('endpoint', (w) => successUpdate(w as unknown as QueryCreator<DB>, attempt.endpoint_id, now))
      .updateTable('webhook_deliveries')
      .set({ ...set, lease_owner: null, lease_expires_at: null })
      .where('id', '=', attempt.delivery_id)
      .where('lease_owner', '=', owner)
      .execute();
    return;
  }
  await inCommit(async (trx) => {
    await insertAttempt(trx, attempt);
    await settleDelivery(trx, attempt.delivery_id, owner, set);
    await recordSuccess(trx, attempt.endpoint_id, now);
  });
}

/** Applies an attempt's outcome, only if `owner` still holds the lease (otherwise another worker took over). */
export async function settleDelivery(
  db: Executor,
  id: string,
  owner: string,
  set: Partial<DeliveryRow>,
): Promise<boolean> {
  const r = await db
    .updateTable('webhook_deliveries')
    .set({ ...set, lease_owner: null, lease_expires_at: null })
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export async function releaseLeases(db: Executor, owner: string, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('webhook_deliveries')
    .set({ lease_owner: null, lease_expires_at: null })
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

export const insertAttempt: (db: Executor, row: NewAttempt) => Promise<void> = compiledInsert('webhook_attempts', [
  'id',
  'delivery_id',
  'endpoint_id',
  'event_id',
  'attempt',
  'succeeded',
  'started_at',
  'finished_at',
  'duration_ms',
  'response_status',
  'error_class',
  'error_message',
  'response_body',
]);

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

/** Newest first by keyset on the time-ordered id (index webhook_attempts_endpoint). */
export async function listAttempts(
  db: Executor,
  endpointId: string,
  opts: { after?: string; event?: string; limit: number },
): Promise<AttemptRow[]> {
  let q = db.selectFrom('webhook_attempts').selectAll().where('endpoint_id', '=', endpointId);
  if (opts.after !== undefined) q = q.where('id', '<', opts.after);
  if (opts.event !== undefined) q = q.where('event_id', '=', opts.event);
  return q
    .orderBy('id', 'desc')
    .limit(opts.limit + 1)
    .execute();
}
