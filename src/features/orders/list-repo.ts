import { type SelectQueryBuilder, sql } from 'kysely';
import type { Scope } from '../../shared/auth.js';
import type { Engine, Executor } from '../../shared/db/index.js';
import type { DB, OrderStatus, ProofsTable } from '../../shared/db/schema.js';
import { COURIER_ACTIVE_STATUSES } from '../../shared/db/tables/orders.js';
import { fromColumns, type OrderRow } from './repo.js';

/**
 * What the board's search box matches (built by the service from what was typed), any one of:
 * the order id or tracking code exactly, the external order id exactly, the start of the
 * customer's name (`searchKey`), the end of the customer's phone (`phoneKey`, digits reversed).
 */
export interface Search {
  id?: string;
  trackingCode?: string;
  externalOrderId: string;
  nameKey?: string;
  phoneKey?: string;
}

/** The filters the list and the counts share: the counts answer "how many of each status" for them. */
export interface OrderFilter {
  scope: Scope;
  account?: string;
  source?: OrderRow['source'];
  externalOrderId?: string;
  createdGte?: number;
  createdLt?: number;
  /** Due (requested date, else creation) in [dueGte, dueLt): `orders_due`. */
  dueGte?: number;
  dueLt?: number;
  /** Due on this local day, each order in its own zone (`due_day`): `orders_due_day`. */
  dueDay?: string;
  search?: Search;
  /** Due on local days [dueFrom, dueTo] (`due_day`), the reports' periods. */
  dueFrom?: string;
  dueTo?: string;
  courier?: string;
  /** Exactly this delivery_address.district; the engine says how to read the JSON. */
  district?: { engine: Engine; name: string };
  /** The reports' outcomes: delivered (or partially), failed (or returned), cancelled. */
  outcome?: 'delivered' | 'failed' | 'cancelled';
  onTime?: boolean;
  firstAttempt?: boolean;
  /** Orders the customer rated (true) or did not (false); `rating`: exactly this many stars. */
  rated?: boolean;
  rating?: number;
  /** Orders whose last attempt was measured far from (true) or near (false) the address. */
  farFromAddress?: boolean;
  /** Orders whose proof of delivery recorded this cash-on-delivery outcome. */
  codStatus?: NonNullable<ProofsTable['cod_status']>;
}

export interface ListFilter extends OrderFilter {
  status?: OrderStatus;
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

/** The statuses behind each outcome the reports count (DESIGN §17). */
export const OUTCOME_STATUSES = {
  delivered: ['delivered', 'partially_delivered'],
  failed: ['failed', 'returned'],
  cancelled: ['cancelled'],
} as const satisfies Record<string, readonly OrderStatus[]>;

/**
 * A text field of a JSON text column (`field` is a fixed identifier, never input): SQLite's `->>`
 * (3.38+) reads the text as JSON; PostgreSQL's needs a json value first.
 */
export function jsonText(engine: Engine, column: string, field: string) {
  const path = sql.lit(field);
  return engine === 'postgres'
    ? sql<string>`(${sql.ref(column)}::json ->> ${path})`
    : sql<string>`(${sql.ref(column)} ->> ${path})`;
}

/** The smallest string greater than every string that starts with `prefix` (keys are text without U+FFFF). */
const past = (prefix: string) => `${prefix}\uffff`;

function filtered<O>(q: SelectQueryBuilder<DB, 'orders', O>, f: OrderFilter) {
  // With a search, the scope is checked on the rows the search indexes found, never used to find
  // rows: `|| ''` hides the columns from both planners, which would otherwise walk a whole account
  // (orders_list) newest first to skip a sort, unaware that the search matches a handful of rows.
  const plain = f.search === undefined;
  const mode = plain ? sql.ref<string>('mode') : sql<string>`mode || ''`;
  const accountCol = plain ? sql.ref<string>('account_id') : sql<string>`account_id || ''`;
  q = q.where(mode, '=', f.scope.mode);
  const account = f.scope.accountId ?? f.account;
  if (account !== undefined) q = q.where(accountCol, '=', account);
  // A courier session lists only its own unfinished orders.
  if (f.scope.courierId !== undefined) {
    q = q.where('courier_id', '=', f.scope.courierId).where('status', 'in', [...COURIER_ACTIVE_STATUSES]);
  }
  if (f.source !== undefined) q = q.where('source', '=', f.source);
  if (f.externalOrderId !== undefined) q = q.where('external_order_id', '=', f.externalOrderId);
  if (f.createdGte !== undefined) q = q.where('created_at', '>=', f.createdGte);
  if (f.createdLt !== undefined) q = q.where('created_at', '<', f.createdLt);
  if (f.dueGte !== undefined) q = q.where('due_at', '>=', f.dueGte);
  if (f.dueLt !== undefined) q = q.where('due_at', '<', f.dueLt);
  if (f.dueDay !== undefined) q = q.where('due_day', '=', f.dueDay);
  if (f.dueFrom !== undefined) q = q.where('due_day', '>=', f.dueFrom);
  if (f.dueTo !== undefined) q = q.where('due_day', '<=', f.dueTo);
  if (f.courier !== undefined) q = q.where('courier_id', '=', f.courier);
  if (f.outcome !== undefined) q = q.where('status', 'in', [...OUTCOME_STATUSES[f.outcome]]);
  // `= 1` is exactly the predicate of the partial index orders_attempt_far (migration 024).
  if (f.farFromAddress !== undefined) q = q.where('attempt_far', '=', f.farFromAddress ? 1 : 0);
  if (f.onTime !== undefined) q = q.where('on_time', '=', f.onTime ? 1 : 0);
  if (f.firstAttempt !== undefined) {
    q = q.where('status', 'in', [...OUTCOME_STATUSES.delivered]).where('attempts', f.firstAttempt ? '=' : '>', 1);
  }
  if (f.rated !== undefined) q = q.where('feedback_rating', f.rated ? 'is not' : 'is', null);
  if (f.rating !== undefined) q = q.where('feedback_rating', '=', f.rating);
  // The district lives in the address's JSON; both engines read it with the same path.
  if (f.district !== undefined)
    q = q.where(jsonText(f.district.engine, 'delivery_address', 'district'), '=', f.district.name);
  const s = f.search;
  if (s !== undefined) {
    // Each branch repeats `mode`, so each one alone is a range of its own index (orders_external,
    // orders_customer, orders_phone, the primary key, the tracking code's unique index), which both
    // engines OR together (SQLite's multi-index OR, PostgreSQL's BitmapOr) instead of scanning.
    const mode = f.scope.mode;
    q = q.where((eb) => {
      const any = [eb.and([eb('mode', '=', mode), eb('external_order_id', '=', s.externalOrderId)])];
      if (s.id !== undefined) any.push(eb('id', '=', s.id));
      if (s.trackingCode !== undefined) any.push(eb('tracking_code', '=', s.trackingCode));
      if (s.nameKey !== undefined) {
        const name = s.nameKey;
        any.push(eb.and([eb('mode', '=', mode), eb('customer_key', '>=', name), eb('customer_key', '<', past(name))]));
      }
      if (s.phoneKey !== undefined) {
        const phone = s.phoneKey;
        any.push(eb.and([eb('mode', '=', mode), eb('phone_key', '>=', phone), eb('phone_key', '<', past(phone))]));
      }
      return eb.or(any);
    });
  }
  if (f.codStatus !== undefined) {
    // One proof per delivered order, keyed by order_id: each order of the page costs one index probe.
    const codStatus = f.codStatus;
    q = q.where((eb) =>
      eb.exists(
        eb
          .selectFrom('proofs')
          .select('proofs.order_id')
          .whereRef('proofs.order_id', '=', 'orders.id')
          .where('proofs.cod_status', '=', codStatus),
      ),
    );
  }
  return q;
}

/**
 * A listed order. `collected` (minor units) only in a list filtered by cod_status: what its
 * proof recorded collecting, so a short or over order shows both amounts without a read per order.
 */
export interface ListedOrder {
  row: OrderRow;
  collected?: number | null;
}

/**
 * Newest first. Fetches limit + 1 rows to learn has_more without a COUNT. With `before`, the
 * scan runs oldest-first from the cursor and the caller reverses the page.
 */
export async function listOrders(db: Executor, f: ListFilter): Promise<ListedOrder[]> {
  return (await listOrdersQuery(db, f).execute()).map(({ cod_collected, ...r }) =>
    f.codStatus === undefined ? { row: fromColumns(r) } : { row: fromColumns(r), collected: cod_collected ?? null },
  );
}

/** The list query itself, unexecuted, so tests can ask the planner how it runs. */
export function listOrdersQuery(db: Executor, f: ListFilter) {
  // The same proof the cod_status filter probed (keyed by order_id): one more probe per listed order.
  let q = filtered(
    db
      .selectFrom('orders')
      .selectAll()
      .$if(f.codStatus !== undefined, (qb) =>
        qb.select((eb) =>
          eb
            .selectFrom('proofs')
            .select('proofs.collected_amount')
            .whereRef('proofs.order_id', '=', 'orders.id')
            .as('cod_collected'),
        ),
      ),
    f,
  );
  if (f.status !== undefined) q = q.where('status', '=', f.status);
  // Row-value comparisons, not an OR of two conditions: both engines turn them into an index range.
  const cursor = (id: string) => {
    const cs = f.cursorScope ?? f.scope;
    const account = cs.accountId === null ? sql`` : sql` and c.account_id = ${cs.accountId}`;
    const courier = cs.courierId === undefined ? sql`` : sql` and c.courier_id = ${cs.courierId}`;
    return sql`(select c.created_at, c.id from orders c where c.id = ${id} and c.mode = ${cs.mode}${account}${courier})`;
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

/**
 * How many orders of each status match the filters (statuses with none are absent). With a due
 * range, `orders_due` holds every column this reads (mode, due_at, account_id, status): the count
 * never visits the table.
 */
export async function countOrders(db: Executor, f: OrderFilter): Promise<Map<OrderStatus, number>> {
  const rows = await countOrdersQuery(db, f).execute();
  return new Map(rows.map((r) => [r.status, Number(r.n)]));
}

export function countOrdersQuery(db: Executor, f: OrderFilter) {
  return filtered(
    db.selectFrom('orders').select((eb) => ['status', eb.fn.countAll<number | string>().as('n')]),
    f,
  ).groupBy('status');
}
