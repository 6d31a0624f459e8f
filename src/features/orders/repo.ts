import type { Insertable, QueryCreator, Selectable, UpdateObject } from 'kysely';
import type { Scope } from '../../shared/auth.js';
import { compiledInsert, compiledInsertStored } from '../../shared/db/compiled.js';
import type { Engine, Executor } from '../../shared/db/index.js';
import type { DB, OrderStatus, OrdersTable, OrderTimelineTable } from '../../shared/db/schema.js';
import { COURIER_ACTIVE_STATUSES, phoneKey, searchKey } from '../../shared/db/tables/orders.js';
import type { ProofLevels } from '../../shared/db/tables/proof_settings.js';
import { insertJobs } from '../../shared/jobs/repo.js';
import { localDay } from '../../shared/local-time.js';
import { parseInstant } from '../../shared/time.js';
import { groupSendJobs, type Prepared } from '../messages/queue.js';
import { insertNewMessages } from '../messages/repo.js';
import { insertEvent } from '../webhooks/events-repo.js';
import type { PreparedEvent } from '../webhooks/outbox.js';
import { insertDeliveries } from '../webhooks/repo.js';
import type { Order } from './schemas.js';

/** The columns stored as JSON text. */
type JsonColumns =
  | 'customer'
  | 'delivery_address'
  | 'pickup_address'
  | 'items'
  | 'time_window'
  | 'metadata'
  | 'geocode'
  | 'proof'
  | 'requirements';
/** The columns derived from others on every write, for the board's filters and search (009_order_board, 014_local_days). */
type DerivedColumns = 'due_at' | 'due_day' | 'customer_key' | 'phone_key';

/**
 * An order as every caller sees it: the JSON columns parsed, the derived ones left out. Only this
 * file knows they are text, and keeps the derived ones in step.
 */
export interface OrderRow extends Omit<Selectable<OrdersTable>, JsonColumns | DerivedColumns> {
  customer: Order['customer'];
  delivery_address: Order['delivery_address'];
  pickup_address: Order['pickup_address'];
  items: Order['items'];
  time_window: Order['time_window'];
  requirements: Order['requirements'];
  metadata: Order['metadata'];
  geocode: Order['geocode'];
  /** What a delivery asks for, fixed at creation; null on orders created before 020 (see proofLevelsOf). */
  proof: ProofLevels | null;
}
export type TimelineRow = Selectable<OrderTimelineTable>;

export function fromColumns(r: Selectable<OrdersTable>): OrderRow {
  const { due_at: _due, due_day: _day, customer_key: _key, phone_key: _phone, ...rest } = r;
  return {
    ...rest,
    customer: JSON.parse(r.customer),
    delivery_address: JSON.parse(r.delivery_address),
    pickup_address: r.pickup_address === null ? null : JSON.parse(r.pickup_address),
    items: JSON.parse(r.items),
    time_window: r.time_window === null ? null : JSON.parse(r.time_window),
    requirements: r.requirements === null ? [] : JSON.parse(r.requirements),
    metadata: JSON.parse(r.metadata),
    geocode: r.geocode === null ? null : JSON.parse(r.geocode),
    proof: r.proof === null ? null : JSON.parse(r.proof),
  };
}

/** The requested date as epoch ms; undefined without one (or one Date cannot read: the schema lets none in). */
function requestedAt(requested: string | null): number | undefined {
  const at = requested === null ? Number.NaN : Date.parse(requested);
  return Number.isFinite(at) ? at : undefined;
}

/**
 * When the order is due (see OrdersTable.due_at) and that instant's local day in the order's zone.
 * A stored plain day is its first instant (orders/local-days.ts), so its local day is that day.
 */
export function dueOf(
  requested: string | null,
  createdAt: number,
  tz: string,
): Pick<OrdersTable, 'due_at' | 'due_day'> {
  const due = requestedAt(requested) ?? createdAt;
  return { due_at: due, due_day: localDay(due, tz) };
}

function customerKeys(c: Order['customer']): Pick<OrdersTable, 'customer_key' | 'phone_key'> {
  return { customer_key: searchKey(c.name), phone_key: phoneKey(c.phone ?? c.whatsapp) };
}

/**
 * The columns of a partial update: each JSON field present is serialised, the rest pass through,
 * and the derived columns follow the fields they come from.
 */
export function toColumns(o: Partial<OrderRow>): UpdateObject<DB, 'orders'> {
  const {
    customer,
    delivery_address,
    pickup_address,
    items,
    time_window,
    metadata,
    geocode,
    proof,
    requirements,
    ...plain
  } = o;
  const out: UpdateObject<DB, 'orders'> = plain;
  // Due when requested (see OrdersTable.due_at); the day is read in the order's zone, so a move
  // that sets a requested date passes the order's (unchanged) timezone with it.
  if (o.requested_date !== undefined) {
    if (o.requested_date === null || o.timezone === undefined) {
      throw new Error('a requested date is written with the order\u2019s timezone, and never cleared');
    }
    const due = parseInstant(o.requested_date);
    Object.assign(out, { due_at: due, due_day: localDay(due, o.timezone) });
  }
  if (customer !== undefined) Object.assign(out, customerKeys(customer));
  if (customer !== undefined) out.customer = JSON.stringify(customer);
  if (delivery_address !== undefined) out.delivery_address = JSON.stringify(delivery_address);
  if (pickup_address !== undefined) out.pickup_address = pickupColumn(pickup_address);
  if (items !== undefined) out.items = JSON.stringify(items);
  if (time_window !== undefined) out.time_window = time_window === null ? null : JSON.stringify(time_window);
  if (metadata !== undefined) out.metadata = JSON.stringify(metadata);
  if (requirements !== undefined) out.requirements = requirementsColumn(requirements);
  if (geocode !== undefined) out.geocode = geocode === null ? null : JSON.stringify(geocode);
  if (proof !== undefined) out.proof = proof === null ? null : JSON.stringify(proof);
  return out;
}

const pickupColumn = (a: OrderRow['pickup_address']) => (a === null ? null : JSON.stringify(a));

/** None is null (most orders), so a column read back is never an empty array's text. */
const requirementsColumn = (r: string[]) => (r.length > 0 ? JSON.stringify(r) : null);

function allColumns(o: OrderRow): OrdersTable {
  return { ...o, ...storedColumns(o) };
}

/** What an order stores otherwise than OrderRow holds it: the JSON columns as text, and the derived columns. */
function storedColumns(o: OrderRow): Pick<OrdersTable, JsonColumns | DerivedColumns> {
  return {
    ...dueOf(o.requested_date, o.created_at, o.timezone),
    ...customerKeys(o.customer),
    customer: JSON.stringify(o.customer),
    delivery_address: JSON.stringify(o.delivery_address),
    pickup_address: pickupColumn(o.pickup_address),
    items: JSON.stringify(o.items),
    time_window: o.time_window === null ? null : JSON.stringify(o.time_window),
    requirements: requirementsColumn(o.requirements),
    metadata: JSON.stringify(o.metadata),
    geocode: o.geocode === null ? null : JSON.stringify(o.geocode),
    proof: o.proof === null ? null : JSON.stringify(o.proof),
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
  pickup_address: 1,
  items: 1,
  requested_date: 1,
  time_window: 1,
  requirements: 1,
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
  timezone: 1,
  due_day: 1,
  on_time: 1,
  delivery_instructions: 1,
  safe_place: 1,
  feedback_rating: 1,
  feedback_comment: 1,
  feedback_at: 1,
  geocode: 1,
  proof: 1,
  delivery_pin: 1,
  pin_attempts: 1,
  pin_state: 1,
  loaded_at: 1,
  attempt_lat: 1,
  attempt_lng: 1,
  attempt_accuracy_m: 1,
  attempt_recorded_at: 1,
  attempt_distance_m: 1,
  attempt_far: 1,
} satisfies Record<keyof OrdersTable, 1>) as (keyof OrdersTable)[];

const insertOrderColumns = compiledInsertStored('orders', ORDER_COLUMNS);

export function insertOrder(db: Executor, row: OrderRow): Promise<void> {
  return insertOrderColumns(db, row, storedColumns(row));
}

export interface TimelineEntry {
  order_id: string;
  status: OrderStatus;
  occurred_at: number;
  lat: number | null;
  lng: number | null;
  accuracy_m?: number | null;
  recorded_at?: number | null;
}

export const insertTimeline: (db: Executor, entry: TimelineEntry) => Promise<void> = compiledInsert('order_timeline', [
  'order_id',
  'status',
  'occurred_at',
  'lat',
  'lng',
  'accuracy_m',
  'recorded_at',
]);

/** An order ready to be written: its row, its first timeline entry and its order.created event. */
export interface Created {
  row: OrderRow;
  timeline: TimelineEntry;
  event: PreparedEvent;
  /** The customer's order_confirmed messages and the job that sends them (features/messages). */
  messages: Prepared;
}

/**
 * Orders per PostgreSQL statement. Each order brings 55 parameters (its row, timeline entry and
 * event), 19 per delivery, 24 per customer message (order_confirmed writes at most three) and 13
 * for their send job; at the most endpoints an account may have (16) that is 444, and a
 * statement may carry 65 535: 100 orders stay well inside it whatever the endpoints.
 */
export const ORDERS_PER_STATEMENT = 100;

const DELIVERIES_PER_STATEMENT = 1000;

/**
 * The one way new orders are written, each with its first timeline entry, its order.created event
 * and the event's deliveries, all or none: the API's creates (a group per event-loop turn,
 * create-writer.ts, with `db` the database) and an import's batch (inside the transaction that also
 * moves the import's resume point, with `db` that transaction).
 *
 * PostgreSQL: one statement per ORDERS_PER_STATEMENT orders, each table's rows as one multi-row
 * INSERT in a data-modifying CTE: one round trip, atomic by itself (a larger call outside a
 * transaction opens one around its statements). SQLite: the precompiled single-row INSERTs in a
 * loop, in the caller's transaction or one opened here (cheap on an in-process engine; the commit
 * is what costs, and building one multi-row INSERT per table costs more than the loop).
 */
export async function insertCreated(db: Executor, engine: Engine, orders: Created[]): Promise<void> {
  if (orders.length === 0) return;
  const write = engine === 'sqlite' ? writeEach : writeStatements;
  const single = engine === 'postgres' && orders.length <= ORDERS_PER_STATEMENT;
  if (db.isTransaction || single) await write(db, orders);
  else await db.transaction().execute((trx) => write(trx, orders));
}

async function writeEach(db: Executor, orders: Created[]): Promise<void> {
  for (const o of orders) {
    await insertOrder(db, o.row);
    await insertTimeline(db, o.timeline);
    await insertEvent(db, o.event.event);
  }
  // The deliveries of all of them in multi-row INSERTs: building one per order cost more than the
  // three precompiled INSERTs above (19 columns a row; SQLite takes 32 766 values a statement).
  const deliveries = orders.flatMap((o) => o.event.deliveries);
  for (let i = 0; i < deliveries.length; i += DELIVERIES_PER_STATEMENT) {
    await insertDeliveries(db, deliveries.slice(i, i + DELIVERIES_PER_STATEMENT));
  }
  // Messages and their send jobs, all of the group's in one precompiled statement each.
  const { messages, jobs } = messagesOf(orders);
  if (messages.length > 0) await insertNewMessages(db, messages);
  if (jobs.length > 0) await insertJobs(db, jobs);
}

/**
 * The messages and send jobs of new orders (new order ids, so none can collide with an existing
 * one): orders written together share a send job per due time (`groupSendJobs`).
 */
function messagesOf(orders: Created[]) {
  return {
    messages: orders.flatMap((o) => o.messages.rows),
    jobs: groupSendJobs(orders.map((o) => o.messages)),
  };
}

async function writeStatements(db: Executor, orders: Created[]): Promise<void> {
  for (let i = 0; i < orders.length; i += ORDERS_PER_STATEMENT) {
    const part = orders.slice(i, i + ORDERS_PER_STATEMENT);
    const deliveries = part.flatMap((o) => o.event.deliveries);
    // Customer messages and their jobs join the same statement: with them as statements of their
    // own, a create needed a transaction (BEGIN, three statements, COMMIT: five round trips).
    const { messages, jobs } = messagesOf(part);
    let q: QueryCreator<DB> = db;
    // Each CTE is a write nothing reads, so its name need not reach the query's type.
    const write = <T extends keyof DB & string>(name: string, table: T, rows: Insertable<DB[T]>[]) => {
      if (rows.length > 0)
        q = q.with(name, (w) => w.insertInto(table).values(rows as never)) as unknown as QueryCreator<DB>;
    };
    write(
      'o',
      'orders',
      part.map((o) => allColumns(o.row)),
    );
    write(
      't',
      'order_timeline',
      part.map((o) => o.timeline),
    );
    write('d', 'webhook_deliveries', deliveries);
    write('m', 'messages', messages);
    write('j', 'jobs', jobs);
    await q
      .insertInto('events')
      .values(part.map((o) => o.event.event))
      .execute();
  }
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
