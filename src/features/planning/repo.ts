import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Executor } from '../../shared/db/index.js';
import type { DepotsTable, Mode, RoutePlansTable } from '../../shared/db/schema.js';
import { fromColumns, type OrderRow } from '../orders/repo.js';
import type { StoredRequest, StoredResult } from './stored.js';

export type DepotRow = DepotsTable;
/** A plan with its JSON columns parsed: callers never see the stored text. */
export interface PlanRow extends Omit<RoutePlansTable, 'request' | 'versions' | 'result'> {
  request: StoredRequest;
  /** {order_id: version} of the planned orders when they were read (see versionOf). */
  versions: Record<string, string>;
  result: StoredResult | null;
}
type PlanSet = Partial<Pick<PlanRow, 'status' | 'progress' | 'result' | 'failure' | 'committed_at' | 'updated_at'>>;

/** A whole plan gives a whole row; a change gives the columns it sets. */
function toColumns(p: PlanRow): RoutePlansTable;
function toColumns(p: PlanSet): Partial<RoutePlansTable>;
function toColumns(p: Partial<PlanRow>): Partial<RoutePlansTable> {
  const { request, versions, result, ...rest } = p;
  return {
    ...rest,
    ...(request !== undefined ? { request: JSON.stringify(request) } : {}),
    ...(versions !== undefined ? { versions: JSON.stringify(versions) } : {}),
    ...(result !== undefined ? { result: result === null ? null : JSON.stringify(result) } : {}),
  };
}

function fromPlanColumns(r: RoutePlansTable): PlanRow {
  return {
    ...r,
    request: JSON.parse(r.request) as StoredRequest,
    versions: JSON.parse(r.versions) as Record<string, string>,
    result: r.result === null ? null : (JSON.parse(r.result) as StoredResult),
  };
}

/** Statuses an order can be assigned from (the transition table's `assign`). */
export const ASSIGNABLE = ['pending', 'validated', 'rescheduled'] as const;

export async function insertDepot(db: Executor, row: DepotRow): Promise<void> {
  await db.insertInto('depots').values(row).execute();
}

export async function findDepot(db: Executor, mode: Mode, id: string): Promise<DepotRow | undefined> {
  return db.selectFrom('depots').selectAll().where('id', '=', id).where('mode', '=', mode).executeTakeFirst();
}

export async function listDepots(db: Executor, mode: Mode, f: { limit: number; after?: string }) {
  let q = db.selectFrom('depots').selectAll().where('mode', '=', mode);
  if (f.after !== undefined) q = q.where('id', '<', f.after);
  return q
    .orderBy('id', 'desc')
    .limit(f.limit + 1)
    .execute();
}

export async function insertPlan(db: Executor, row: PlanRow): Promise<void> {
  await db.insertInto('route_plans').values(toColumns(row)).execute();
}

export async function findPlan(db: Executor, mode: Mode, id: string): Promise<PlanRow | undefined> {
  const r = await db
    .selectFrom('route_plans')
    .selectAll()
    .where('id', '=', id)
    .where('mode', '=', mode)
    .executeTakeFirst();
  return r && fromPlanColumns(r);
}

/** A plan by id in any environment: its solve job names it by id alone. */
export async function findPlanById(db: Executor, id: string): Promise<PlanRow | undefined> {
  const r = await db.selectFrom('route_plans').selectAll().where('id', '=', id).executeTakeFirst();
  return r && fromPlanColumns(r);
}

/**
 * Changes a plan that has not ended (queued or running): how the solve job writes, so a job that
 * runs again for a plan that ended (or is gone) changes nothing. Undefined when nothing matched.
 */
export async function updateOpenPlan(db: Executor, id: string, set: PlanSet): Promise<PlanRow | undefined> {
  const r = await db
    .updateTable('route_plans')
    .set(toColumns(set))
    .where('id', '=', id)
    .where('status', 'in', ['queued', 'running'])
    .returningAll()
    .executeTakeFirst();
  return r && fromPlanColumns(r);
}

export async function updatePlan(db: Executor, id: string, set: PlanSet): Promise<PlanRow> {
  const r = await db
    .updateTable('route_plans')
    .set(toColumns(set))
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return fromPlanColumns(r);
}

/**
 * Marks a plan committed unless another commit got there first or an edit changed it since the
 * committer read it (`seen`, its updated_at then): true when this one did.
 */
export async function claimCommit(db: Executor, id: string, now: number, seen: number): Promise<boolean> {
  const r = await db
    .updateTable('route_plans')
    .set({ committed_at: now, updated_at: now })
    .where('id', '=', id)
    .where('committed_at', 'is', null)
    .where('updated_at', '=', seen)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/**
 * Stores an edit's result if the plan is uncommitted and unchanged since the editor read it (its
 * updated_at was `seen`): one statement, so an edit never lands on a commit or on another edit it
 * did not see. Undefined when it lost; the caller reads the plan again.
 */
export async function saveEdit(
  db: Executor,
  id: string,
  seen: number,
  result: StoredResult,
  now: number,
): Promise<PlanRow | undefined> {
  const r = await db
    .updateTable('route_plans')
    .set(toColumns({ result, updated_at: now }))
    .where('id', '=', id)
    .where('committed_at', 'is', null)
    .where('updated_at', '=', seen)
    .returningAll()
    .executeTakeFirst();
  return r && fromPlanColumns(r);
}

/** Orders read per statement by ordersByIds; the event loop gets a turn between two reads. */
const ORDERS_PER_READ = 250;

/**
 * Orders of the environment by id (any account: plans are the carrier's), missing ones left out, in
 * no particular order. A
 * plan reads up to 2 000 whole orders (~100 ms of reading and JSON parsing on the API's thread in one
 * go, measured by `npm run bench:plans`), so they are read ORDERS_PER_READ at a time with a turn of
 * the event loop between reads: the requests that arrive meanwhile are answered in between.
 */
export async function ordersByIds(db: Executor, mode: Mode, ids: string[]): Promise<OrderRow[]> {
  const out: OrderRow[] = [];
  for (let i = 0; i < ids.length; i += ORDERS_PER_READ) {
    if (i > 0) await nextTurn();
    const chunk = ids.slice(i, i + ORDERS_PER_READ);
    const rows = await db.selectFrom('orders').selectAll().where('mode', '=', mode).where('id', 'in', chunk).execute();
    for (const r of rows) out.push(fromColumns(r));
  }
  return out;
}

/**
 * A plan's default order set: assignable orders of the environment due on the plan's local day
 * (`due_day`, each in its own zone) or with no requested date, oldest first. The ids first, then the
 * orders through ordersByIds (read in parts, as above).
 */
export async function assignableOrders(db: Executor, mode: Mode, day: string, limit: number): Promise<OrderRow[]> {
  const ids = await db
    .selectFrom('orders')
    .select('id')
    .where('mode', '=', mode)
    .where('status', 'in', [...ASSIGNABLE])
    .where((eb) => eb.or([eb('due_day', '=', day), eb('requested_date', 'is', null)]))
    .orderBy('created_at', 'asc')
    .orderBy('id', 'asc')
    .limit(limit)
    .execute();
  const rows = await ordersByIds(
    db,
    mode,
    ids.map((r) => r.id),
  );
  const found = new Map(rows.map((o) => [o.id, o]));
  // An order whose status changed between the two reads (cancelled, assigned) is left out, as the
  // one read did; any later change is the commit's to find (commit.ts compares each order's version).
  const assignable: readonly string[] = ASSIGNABLE;
  return ids.flatMap((r) => {
    const o = found.get(r.id);
    return o && assignable.includes(o.status) ? [o] : [];
  });
}
