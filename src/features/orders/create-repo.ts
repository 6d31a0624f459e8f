import type { Insertable, QueryCreator } from 'kysely';
import { compiledInsertStored } from '../../shared/db/compiled.js';
import type { Engine, Executor } from '../../shared/db/index.js';
import type { DB, OrdersTable } from '../../shared/db/schema.js';
import { insertJobs } from '../../shared/jobs/repo.js';
import { groupSendJobs, type Prepared } from '../messages/queue.js';
import { insertNewMessages } from '../messages/repo.js';
import { insertEvent } from '../webhooks/events-repo.js';
import type { PreparedEvent } from '../webhooks/outbox.js';
import { insertDeliveries } from '../webhooks/repo.js';
import { insertTimeline, type OrderRow, storedColumns, type TimelineEntry } from './repo.js';

// The write path of new orders, apart from repo.ts (an order's columns, its reads and later
// writes): it is the one place that inserts whole orders, with their events, deliveries and messages.

function allColumns(o: OrderRow): OrdersTable {
  return { ...o, ...storedColumns(o) };
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
