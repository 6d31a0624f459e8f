import type { Selectable, UpdateObject } from 'kysely';
import { sql } from 'kysely';
import type { Scope } from '../../shared/auth.js';
import { compiledInsert } from '../../shared/db/compiled.js';
import type { Db, Engine, Executor, Tx } from '../../shared/db/index.js';
import type { DB, OrderStatus, OrdersTable, OrderTimelineTable } from '../../shared/db/schema.js';
import { COURIER_ACTIVE_STATUSES, phoneKey, searchKey } from '../../shared/db/tables/orders.js';
import { insertEvent } from '../webhooks/events-repo.js';
import type { PreparedEvent } from '../webhooks/outbox.js';
import { insertDeliveries } from '../webhooks/repo.js';
import type { Order } from './schemas.js';

/** The columns stored as JSON text. */
type JsonColumns = 'customer' | 'delivery_address' | 'items' | 'time_window' | 'metadata';
/** The columns derived from others on every write, for the board's filters and search (009_order_board). */
type DerivedColumns = 'due_at' | 'customer_key' | 'phone_key';

/**
 * An order as every caller sees it: the JSON columns parsed, the derived ones left out. Only this
 * file knows they are text, and keeps the derived ones in step.
 */
export interface OrderRow extends Omit<Selectable<OrdersTable>, JsonColumns | DerivedColumns> {
  customer: Order['customer'];
  delivery_address: Order['delivery_address'];
  items: Order['items'];
  time_window: Order['time_window'];
  metadata: Order['metadata'];
}
export type TimelineRow = Selectable<OrderTimelineTable>;

export function fromColumns(r: Selectable<OrdersTable>): OrderRow {
  const { due_at: _due, customer_key: _key, phone_key: _phone, ...rest } = r;
  return {
    ...rest,
    customer: JSON.parse(r.customer),
    delivery_address: JSON.parse(r.delivery_address),
    items: JSON.parse(r.items),
    time_window: r.time_window === null ? null : JSON.parse(r.time_window),
    metadata: JSON.parse(r.metadata),
  };
}

/** The requested date as epoch ms; undefined without one (or one Date cannot read: the schema lets none in). */
function requestedAt(requested: string | null): number | undefined {
  const at = requested === null ? Number.NaN : Date.parse(requested);
  return Number.isFinite(at) ? at : undefined;
}

function customerKeys(c: Order['customer']): Pick<OrdersTable, 'customer_key' | 'phone_key'> {
  return { customer_key: searchKey(c.name), phone_key: phoneKey(c.phone ?? c.whatsapp) };
}

/**
 * The columns of a partial update: each JSON field present is serialised, the rest pass through,
 * and the derived columns follow the fields they come from.
 */
export function toColumns(o: Partial<OrderRow>): UpdateObject<DB, 'orders'> {
  const { customer, delivery_address, items, time_window, metadata, ...plain } = o;
  const out: UpdateObject<DB, 'orders'> = plain;
  // Due when requested, else when created (see OrdersTable.due_at).
  if (o.requested_date !== undefined) out.due_at = requestedAt(o.requested_date) ?? sql<number>`created_at`;
  if (customer !== undefined) Object.assign(out, customerKeys(customer));
  if (customer !== undefined) out.customer = JSON.stringify(customer);
  if (delivery_address !== undefined) out.delivery_address = JSON.stringify(delivery_address);
  if (items !== undefined) out.items = JSON.stringify(items);
  if (time_window !== undefined) out.time_window = time_window === null ? null : JSON.stringify(time_window);
  if (metadata !== undefined) out.metadata = JSON.stringify(metadata);
  return out;
}

function allColumns(o: OrderRow): OrdersTable {
  return {
    ...o,
    due_at: requestedAt(o.requested_date) ?? o.created_at,
    ...customerKeys(o.customer),
    customer: JSON.stringify(o.customer),
    delivery_address: JSON.stringify(o.delivery_address),
    items: JSON.stringify(o.items),
    time_window: o.time_window === null ? null : JSON.stringify(o.time_window),
    metadata: JSON.stringify(o.metadata),
  };
}

/** Every column of an order: the `satisfies` makes a column added to the table without being listed here a type error. */
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
  picked_up_at: 1,
  delivered_at: 1,
  returned_at: 1,
  failure_notes: 1,
  due_at: 1,
  customer_key: 1,
  phone_key: 1,
} satisfies Record<keyof OrdersTable, 1>) as (keyof OrdersTable)[];

const insertOrderColumns = compiledInsert('orders', ORDER_COLUMNS);

export function insertOrder(db: Executor, row: OrderRow): Promise<void> {
  return insertOrderColumns(db, allColumns(row));
}

export interface TimelineEntry {
  order_id: string;
  status: OrderStatus;
  occurred_at: number;
  lat: number | null;
  lng: number | null;
}

export const insertTimeline: (db: Executor, entry: TimelineEntry) => Promise<void> = compiledInsert('order_timeline', [
  'order_id',
  'status',
  'occurred_at',
  'lat',
  'lng',
]);

/**
 * New orders with their first timeline entry, event and deliveries, committed together (one
 * create, or a group of them: create-writer.ts). SQLite: one transaction of precompiled single-row
 * INSERTs (cheap on an in-process engine; the commit is what costs). PostgreSQL: one statement,
 * each table's rows as one multi-row INSERT in a CTE, so a group is one round trip and one commit.
 */
export async function insertCreated(db: Db, engine: Engine, orders: Created[]): Promise<void> {
  if (orders.length === 0) return;
  if (engine === 'sqlite') {
    await db.transaction().execute(async (trx) => {
      for (const o of orders) {
        await insertOrder(trx, o.row);
        await insertTimeline(trx, o.timeline);
        await insertEvent(trx, o.event.event);
        await insertDeliveries(trx, o.event.deliveries);
      }
    });
    return;
  }
  const deliveries = orders.flatMap((o) => o.event.deliveries);
  const q = db
    .with('o', (w) => w.insertInto('orders').values(orders.map((o) => allColumns(o.row))))
    .with('t', (w) => w.insertInto('order_timeline').values(orders.map((o) => o.timeline)));
  const events = orders.map((o) => o.event.event);
  if (deliveries.length === 0) await q.insertInto('events').values(events).execute();
  else
    await q
      .with('d', (w) => w.insertInto('webhook_deliveries').values(deliveries))
      .insertInto('events')
      .values(events)
      .execute();
}

/** An order ready to be written: its row, its first timeline entry and its order.created event. */
export interface Created {
  row: OrderRow;
  timeline: TimelineEntry;
  event: PreparedEvent;
}

/**
 * Many new orders at once (a bulk import's batch), inside the caller's transaction: one multi-row
 * INSERT per table instead of four statements per order, which is what makes 10 000 rows cheap on
 * PostgreSQL, where each statement is a round trip.
 */
export async function insertCreatedOrders(trx: Tx, orders: Created[]): Promise<void> {
  if (orders.length === 0) return;
  await trx
    .insertInto('orders')
    .values(orders.map((o) => allColumns(o.row)))
    .execute();
  await trx
    .insertInto('order_timeline')
    .values(orders.map((o) => o.timeline))
    .execute();
  await trx
    .insertInto('events')
    .values(orders.map((o) => o.event.event))
    .execute();
  const deliveries = orders.flatMap((o) => o.event.deliveries);
  if (deliveries.length > 0) await insertDeliveries(trx, deliveries);
}

export async function timelineOf(db: Executor, orderId: string): Promise<TimelineRow[]> {
  return db.selectFrom('order_timeline').selectAll().where('order_id', '=', orderId).orderBy('id', 'asc').execute();
}

/** Finds an order by id or tracking code, visible only within the caller's scope. */
export async function findOrder(
  db: Executor,
  scope: Scope,
  by: { id: string } | { trackingCode: string },
): Promise<OrderRow | undefined> {
  let q = db.selectFrom('orders').selectAll().where('mode', '=', scope.mode);
  if (scope.accountId !== null) q = q.where('account_id', '=', scope.accountId);
  if (scope.courierId !== undefined) {
    q = q.where('courier_id', '=', scope.courierId).where('status', 'in', [...COURIER_ACTIVE_STATUSES]);
  }
  q = 'id' in by ? q.where('id', '=', by.id) : q.where('tracking_code', '=', by.trackingCode);
  const row = await q.executeTakeFirst();
  return row && fromColumns(row);
}
