import { CompiledQuery } from 'kysely';
import type { Db, Engine } from '../../shared/db/index.js';
import type { WebhookAttemptsTable, WebhookDeliveriesTable } from '../../shared/db/schema.js';

// The settle: every outcome the dispatcher has gathered (settle.ts batches those of one event-loop
// turn) written at once. Its SQL is written out once per engine, like the claim's (claim-repo.ts).

/** A delivery's columns after an attempt; written only while the settling worker holds its lease. */
export type DeliveryChange = Pick<
  WebhookDeliveriesTable,
  | 'id'
  | 'status'
  | 'attempts'
  | 'first_attempt_at'
  | 'last_attempt_at'
  | 'last_status_code'
  | 'last_error'
  | 'next_attempt_at'
  | 'completed_at'
>;

/**
 * The net effect of a batch's attempts on one endpoint (settle.ts folds them, in order, into this).
 * `success_at`: the last success, which ends any failure run; `fail_at`: the first failure after it
 * (or in the batch, if none succeeded), which starts a run or continues the open one; `disable`: a
 * reason to disable at once (410 Gone). A run that began at or before `disable_cutoff` disables
 * the endpoint (the 72 h rule); `last_success_at` older than `stale_before` is worth rewriting.
 */
export interface EndpointChange {
  id: string;
  at: number;
  success_at: number | null;
  fail_at: number | null;
  disable: string | null;
  disable_cutoff: number;
  stale_before: number;
}

export interface Batch {
  deliveries: DeliveryChange[];
  /** Log rows of the attempts; written whatever became of the lease (the attempt did happen). */
  attempts: WebhookAttemptsTable[];
  /** Applied whatever became of the leases, like the attempt log. */
  endpoints: EndpointChange[];
}

/** Endpoints the batch wrote (those it left alone are not listed), as they are now. */
export type EndpointAfter = { id: string; status: string; disabled_reason: string | null; disabled_at: number | null };

const ATTEMPT = [
  ['id', 'text'],
  ['delivery_id', 'text'],
  ['endpoint_id', 'text'],
  ['event_id', 'text'],
  ['attempt', 'int'],
  ['succeeded', 'int'],
  ['started_at', 'int8'],
  ['finished_at', 'int8'],
  ['duration_ms', 'int'],
  ['response_status', 'int'],
  ['error_class', 'text'],
  ['error_message', 'text'],
  ['response_body', 'text'],
] as const;
const DELIVERY = [
  ['id', 'text'],
  ['status', 'text'],
  ['attempts', 'int'],
  ['first_attempt_at', 'int8'],
  ['last_attempt_at', 'int8'],
  ['last_status_code', 'int'],
  ['last_error', 'text'],
  ['next_attempt_at', 'int8'],
  ['completed_at', 'int8'],
] as const;
const ENDPOINT = [
  ['id', 'text'],
  ['at', 'int8'],
  ['success_at', 'int8'],
  ['fail_at', 'int8'],
  ['disable', 'text'],
  ['disable_cutoff', 'int8'],
  ['stale_before', 'int8'],
] as const;
type Columns = readonly (readonly [string, string])[];

/** Rows in as arrays, one per column: PostgreSQL's `unnest($1::text[], $2::int8[], …)`. */
const pgRows = (cols: Columns, from: number) =>
  `unnest(${cols.map(([, t], i) => `$${from + i}::${t}[]`).join(', ')}) as x(${cols.map(([c]) => c).join(', ')})`;
/** Rows in as one JSON array of arrays: SQLite's `json_each(?)`. */
const sqliteRows = (cols: Columns) =>
  `(select ${cols.map(([c], i) => `value ->> ${i} as ${c}`).join(', ')} from json_each(?)) as x`;

const attemptColumns = ATTEMPT.map(([c]) => c).join(', ');

const deliveryUpdate = (rows: string, owner: string) => `
  update webhook_deliveries as w set
    ${DELIVERY.slice(1)
      .map(([c]) => `${c} = x.${c}`)
      .join(', ')},
    lease_owner = null, lease_expires_at = null
  from ${rows}
  where w.id = x.id and w.lease_owner = ${owner}`;

// Disabling: at once on a 410, or when the open failure run is older than the cutoff.
const OFF = `(p.status = 'enabled' and (x.disable is not null
  or (x.fail_at is not null and x.success_at is null and p.first_failure_at <= x.disable_cutoff)))`;

/**
 * One UPDATE for every endpoint of the batch. Rows it would not change are skipped by the WHERE,
 * so concurrent successes to one endpoint do not queue on its row lock (`last_success_at` is then
 * at most LAST_SUCCESS_GRANULARITY_MS old, see settle.ts), nor do failures within an open run.
 */
const endpointUpdate = (rows: string, returning: string) => `
  update webhook_endpoints as p set
    last_success_at = coalesce(x.success_at, p.last_success_at),
    first_failure_at = case when x.success_at is not null then x.fail_at
                            else coalesce(p.first_failure_at, x.fail_at) end,
    status = case when ${OFF} then 'disabled' else p.status end,
    disabled_reason = case when ${OFF} then coalesce(x.disable, 'failing_72h') else p.disabled_reason end,
    disabled_at = case when ${OFF} then x.at else p.disabled_at end,
    updated_at = case when ${OFF} then x.at else p.updated_at end
  from ${rows}
  where p.id = x.id and (${OFF}
    or (x.success_at is not null and (p.first_failure_at is not null or p.last_success_at is null
                                      or p.last_success_at < x.stale_before))
    or (x.fail_at is not null and (x.success_at is not null or p.first_failure_at is null)))
  returning ${returning}`;

/**
 * PostgreSQL: the whole batch in one statement, so one round trip and no transaction (a statement
 * is atomic). The three writes touch different tables, so their data-modifying CTEs never update
 * one row twice.
 */
const PG_SETTLE = `
  with a as (
    insert into webhook_attempts (${attemptColumns}) select * from ${pgRows(ATTEMPT, 1)}
  ), d as (${deliveryUpdate(pgRows(DELIVERY, 1 + ATTEMPT.length), `$${1 + ATTEMPT.length + DELIVERY.length}`)}
  ), e as (${endpointUpdate(pgRows(ENDPOINT, 2 + ATTEMPT.length + DELIVERY.length), 'p.id, p.status, p.disabled_reason, p.disabled_at')}
  )
  select * from e`;

const SQLITE_ATTEMPTS = `insert into webhook_attempts (${attemptColumns})
  select ${ATTEMPT.map(([c]) => c).join(', ')} from ${sqliteRows(ATTEMPT)}`;
const SQLITE_DELIVERIES = deliveryUpdate(sqliteRows(DELIVERY), '?');
// SQLite's RETURNING names the updated table's columns only, unqualified.
const SQLITE_ENDPOINTS = endpointUpdate(sqliteRows(ENDPOINT), 'id, status, disabled_reason, disabled_at');

const columnsOf = (cols: Columns, rows: object[]) =>
  cols.map(([c]) => rows.map((r) => (r as Record<string, unknown>)[c] ?? null));
const json = (cols: Columns, rows: object[]) =>
  JSON.stringify(rows.map((r) => cols.map(([c]) => (r as Record<string, unknown>)[c] ?? null)));

/** PostgreSQL's code for a deadlock: the whole statement was rolled back, so it is simply run again. */
const DEADLOCK = '40P01';

/**
 * Writes a batch: the attempt log rows, each delivery's new state (only while `owner` still holds
 * its lease; otherwise another worker took it over and its own outcome counts) and each endpoint's
 * failure bookkeeping. One statement on PostgreSQL, one transaction of three on SQLite.
 */
export async function settleBatch(db: Db, engine: Engine, owner: string, b: Batch): Promise<EndpointAfter[]> {
  if (engine === 'postgres') {
    const params = [
      ...columnsOf(ATTEMPT, b.attempts),
      ...columnsOf(DELIVERY, b.deliveries),
      owner,
      ...columnsOf(ENDPOINT, b.endpoints),
    ];
    for (let tries = 1; ; tries++) {
      try {
        return (await db.executeQuery<EndpointAfter>(CompiledQuery.raw(PG_SETTLE, params))).rows;
      } catch (err) {
        // Two workers settling failures of the same endpoints can lock them in opposite orders.
        if ((err as { code?: string }).code !== DEADLOCK || tries >= 3) throw err;
      }
    }
  }
  return db.transaction().execute(async (trx) => {
    const run = <R>(text: string, params: unknown[]) => trx.executeQuery<R>(CompiledQuery.raw(text, params));
    if (b.attempts.length > 0) await run(SQLITE_ATTEMPTS, [json(ATTEMPT, b.attempts)]);
    if (b.deliveries.length > 0) await run(SQLITE_DELIVERIES, [json(DELIVERY, b.deliveries), owner]);
    if (b.endpoints.length === 0) return [];
    return (await run<EndpointAfter>(SQLITE_ENDPOINTS, [json(ENDPOINT, b.endpoints)])).rows;
  });
}
