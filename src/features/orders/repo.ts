import type { Insertable } from 'kysely';
import { sql } from 'kysely';
import type { Scope } from '../../shared/auth.js';
import { compiledInsert } from '../../shared/db/compiled.js';
import type { Executor } from '../../shared/db/index.js';
import type { EventsTable, OrdersTable, OrderTimelineTable } from '../../shared/db/schema.js';
import type { WebhookDeliveriesTable } from '../webhooks/tables.js';

export type OrderRow = OrdersTable;
export type TimelineRow = Omit<OrderTimelineTable, 'id'> & { id: number };

/** Every column of OrderRow: the `satisfies` makes a column added to the table without being listed here a type error. */
const ORDER_COLUMNS = Object.keys({
  id: 1,
  account_id: 1,
  mode: 1,
  tracking_code: 1,
  external_order_id: 1,
  source: 1,
  status: 1,
  customer: 1,
  delivery_address: 1,
  items: 1,
  requested_date: 1,
  time_window: 1,
  priority: 1,
  is_urgent: 1,
  requires_signature: 1,
  requires_photo: 1,
  cash_on_delivery: 1,
  shipping_cost: 1,
  currency: 1,
  weight_kg: 1,
  packages: 1,
  customer_notes: 1,
  metadata: 1,
  courier_id: 1,
  courier_name: 1,
  route_id: 1,
  cancellation_reason: 1,
  failure_reason: 1,
  attempts: 1,
  event_seq: 1,
  created_at: 1,
  updated_at: 1,
} satisfies Record<keyof OrderRow, 1>) as (keyof OrderRow)[];

export const insertOrder: (db: Executor, row: OrderRow) => Promise<void> = compiledInsert('orders', ORDER_COLUMNS);

export const insertTimeline: (
  db: Executor,
  entry: { order_id: string; status: string; occurred_at: number; lat: number | null; lng: number | null },
) => Promise<void> = compiledInsert('order_timeline', ['order_id', 'status', 'occurred_at', 'lat', 'lng']);

/**
 * PostgreSQL only: a new order, its first timeline entry, its event and the event's deliveries in
 * one statement. Data-modifying CTEs run as one atomic statement (foreign keys are checked at its
 * end), so this commits all or nothing like a transaction, in one round trip instead of six.
 */
export async function insertCreatedOrderPg(
  db: Executor,
  row: OrderRow,
  timeline: Insertable<OrderTimelineTable>,
  event: Insertable<EventsTable>,
  deliveries: Insertable<WebhookDeliveriesTable>[],
): Promise<void> {
  const q = db
    .with('o', (w) => w.insertInto('orders').values(row))
    .with('t', (w) => w.insertInto('order_timeline').values(timeline));
  if (deliveries.length === 0) await q.insertInto('events').values(event).execute();
  else
    await q
      .with('d', (w) => w.insertInto('webhook_deliveries').values(deliveries))
      .insertInto('events')
      .values(event)
      .execute();
}

export async function timelineOf(db: Executor, orderId: string): Promise<TimelineRow[]> {
  return db
    .selectFrom('order_timeline')
    .selectAll()
    .where('order_id', '=', orderId)
    .orderBy('id', 'asc')
    .execute() as Promise<TimelineRow[]>;
}

/** Finds an order by id or tracking code, visible only within the caller's scope. */
export async function findOrder(
  db: Executor,
  scope: Scope,
  by: { id: string } | { trackingCode: string },
): Promise<OrderRow | undefined> {
  let q = db.selectFrom('orders').selectAll().where('mode', '=', scope.mode);
  if (scope.accountId !== null) q = q.where('account_id', '=', scope.accountId);
  q = 'id' in by ? q.where('id', '=', by.id) : q.where('tracking_code', '=', by.trackingCode);
  return q.executeTakeFirst();
}

export interface ListFilter {
  scope: Scope;
  account?: string;
  status?: string;
  source?: string;
  externalOrderId?: string;
  createdGte?: number;
  createdLt?: number;
  /**
   * Keyset cursor: the id of the order to start after (older) or end before (newer), resolved
   * inside the page query so a deep page costs one statement, like the first. A cursor outside
   * `cursorScope` matches nothing, and the page comes back empty.
   */
  after?: string;
  before?: string;
  cursorScope?: Scope;
  limit: number;
}

/**
 * Newest first. Fetches limit + 1 rows to learn has_more without a COUNT. With `before`, the
 * scan runs oldest-first from the cursor and the caller reverses the page.
 */
export async function listOrders(db: Executor, f: ListFilter): Promise<OrderRow[]> {
  return listOrdersQuery(db, f).execute();
}

/** The list query itself, unexecuted, so tests can ask the planner how it runs. */
export function listOrdersQuery(db: Executor, f: ListFilter) {
  let q = db.selectFrom('orders').selectAll().where('mode', '=', f.scope.mode);
  const account = f.scope.accountId ?? f.account;
  if (account !== undefined) q = q.where('account_id', '=', account);
  if (f.status !== undefined) q = q.where('status', '=', f.status);
  if (f.source !== undefined) q = q.where('source', '=', f.source);
  if (f.externalOrderId !== undefined) q = q.where('external_order_id', '=', f.externalOrderId);
  if (f.createdGte !== undefined) q = q.where('created_at', '>=', f.createdGte);
  if (f.createdLt !== undefined) q = q.where('created_at', '<', f.createdLt);
  // Row-value comparisons, not an OR of two conditions: both engines turn them into an index range.
  const cursor = (id: string) => {
    const cs = f.cursorScope ?? f.scope;
    const account = cs.accountId === null ? sql`` : sql` and c.account_id = ${cs.accountId}`;
    return sql`(select c.created_at, c.id from orders c where c.id = ${id} and c.mode = ${cs.mode}${account})`;
  };
  if (f.after !== undefined) {
    q = q.where(sql<boolean>`(created_at, id) < ${cursor(f.after)}`);
  }
  if (f.before !== undefined) {
    q = q.where(sql<boolean>`(created_at, id) > ${cursor(f.before)}`);
    return q
      .orderBy('created_at', 'asc')
      .orderBy('id', 'asc')
      .limit(f.limit + 1);
  }
  return q
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(f.limit + 1);
}

/** Moves an order only if it is still in one of `from`; returns undefined when another request got there first. */
export async function transitionOrder(
  db: Executor,
  id: string,
  from: readonly string[],
  set: Partial<OrderRow>,
): Promise<OrderRow | undefined> {
  return db
    .updateTable('orders')
    .set(set)
    .where('id', '=', id)
    .where('status', 'in', [...from])
    .returningAll()
    .executeTakeFirst();
}
