import type { Selectable, UpdateObject } from 'kysely';
import type { Scope } from '../../shared/auth.js';
import { compiledInsert } from '../../shared/db/compiled.js';
import type { Executor } from '../../shared/db/index.js';
import type { DB, OrderStatus, OrdersTable, OrderTimelineTable } from '../../shared/db/schema.js';
import { COURIER_ACTIVE_STATUSES, phoneKey, searchKey } from '../../shared/db/tables/orders.js';
import type { ProofLevels } from '../../shared/db/tables/proof_settings.js';
import { localDay } from '../../shared/local-time.js';
import { parseInstant } from '../../shared/time.js';
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

/** What an order stores otherwise than OrderRow holds it: the JSON columns as text, and the derived columns. */
export function storedColumns(o: OrderRow): Pick<OrdersTable, JsonColumns | DerivedColumns> {
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
