import type { Scope } from '../../shared/auth.js';
import type { Pricing } from '../../shared/config.js';
import type { AppContext } from '../../shared/context.js';
import type { Tx } from '../../shared/db/index.js';
import type { Mode } from '../../shared/db/schema.js';
import { phoneKey, searchKey } from '../../shared/db/tables/orders.js';
import { ApiError, notFound } from '../../shared/errors.js';
import { roadKm } from '../../shared/geo.js';
import { newId, newTrackingCode, normalizeTrackingCode } from '../../shared/ids.js';
import { signalJobs } from '../../shared/jobs/job.js';
import { iso, parseInstant } from '../../shared/time.js';
import { bodyErrors, bodyValidator } from '../../shared/validation.js';
import type { AccountRow } from '../accounts/repo.js';
import { accountById } from '../accounts/service.js';
import { zoneOfAccount } from '../accounts/zone.js';
import { type Located, locateAddress } from '../geocoding/locate.js';
import { prepareMessages, settingsFor } from '../messages/queue.js';
import { announce, enabledEndpointsOf, prepareOrderEvent } from '../webhooks/outbox.js';
import { ORDER_WRITES } from './create-writer.js';
import type { OrderFilter, Search } from './list-repo.js';
import * as list from './list-repo.js';
import { requestedDate } from './local-days.js';
import { type PickupAddress, pickupOf, pointOfAddress, requireWholePoint } from './pickup.js';
import { presentListed, presentOrder } from './present.js';
import { type PriceBreakdown, price, toMajor, toMinor } from './pricing.js';
import { newDeliveryPin, orderProof, type ProofLevels, proofSettingsFor } from './proof-settings.js';
import * as repo from './repo.js';
import {
  type CountsQuery,
  type ListQuery,
  ORDER_STATUSES,
  type Order,
  OrderCreate,
  type OrderStatus,
  TERMINAL_STATUSES,
  TIME_OF_DAY,
} from './schemas.js';

interface Computed {
  weightKg: number;
  packages: number;
  codMinor: number;
  km: number;
  breakdown: PriceBreakdown;
  account: AccountRow;
  /** The zone the order's days are read in. */
  timezone: string;
}

const TIME_OF_DAY_RE = new RegExp(TIME_OF_DAY);
const isTimeOfDay = (v: unknown): v is string => typeof v === 'string' && TIME_OF_DAY_RE.test(v);

/**
 * The rules a JSON schema cannot express, every one the body breaks, in the order `compute` checks
 * them: required text that is only spaces, amounts with more than two decimals, a window that ends
 * before it starts. It reads the body defensively: a bulk import asks it of rows the schema refused
 * too, so that a row reports all of its problems at once.
 */
export function orderRuleErrors(body: unknown): ApiError[] {
  const out: ApiError[] = [];
  const at = (v: unknown, key: string): unknown =>
    typeof v === 'object' && v !== null ? (v as Record<string, unknown>)[key] : undefined;
  const blank = (v: unknown, param: string) => {
    if (typeof v === 'string' && v.trim() === '') {
      out.push(new ApiError('parameter_invalid', `Invalid ${param}: must not be blank.`, param));
    }
  };
  const cents = (v: unknown, param: string) => {
    if (typeof v === 'number' && toMinor(v) === undefined) {
      out.push(new ApiError('parameter_invalid', `Invalid ${param}: at most 2 decimal places.`, param));
    }
  };
  blank(at(at(body, 'customer'), 'name'), 'customer.name');
  blank(at(at(body, 'delivery_address'), 'address'), 'delivery_address.address');
  const items = at(body, 'items');
  if (Array.isArray(items)) {
    items.forEach((item, i) => {
      blank(at(item, 'description'), `items[${i}].description`);
      cents(at(item, 'declared_value'), `items[${i}].declared_value`);
    });
  }
  const [start, end] = [at(at(body, 'time_window'), 'start'), at(at(body, 'time_window'), 'end')];
  // Two times of day (the schema's HH:mm): "9am" is no start an end can come before.
  if (isTimeOfDay(start) && isTimeOfDay(end) && start >= end) {
    out.push(
      new ApiError(
        'parameter_invalid',
        `Invalid time_window.end: must be after time_window.start (${start}).`,
        'time_window.end',
      ),
    );
  }
  cents(at(body, 'cash_on_delivery'), 'cash_on_delivery');
  return out;
}

/** Checks the rules a JSON schema cannot express, and derives weight, packages and price. */
async function compute(
  ctx: AppContext,
  accountId: string,
  body: OrderCreate,
  pickup: PickupAddress | null = null,
): Promise<Computed> {
  const items = body.items ?? [];
  const [broken] = orderRuleErrors(body);
  if (broken) throw broken;
  // Two decimals at most: orderRuleErrors has just checked it.
  const codMinor = toMinor(body.cash_on_delivery ?? 0) ?? 0;
  const account = await accountById(ctx, accountId);
  if (!account) throw new ApiError('api_key_invalid', 'Invalid API key provided.');
  const weightKg = Math.round(items.reduce((s, it) => s + (it.weight_kg ?? 0) * (it.quantity ?? 1), 0) * 1000) / 1000;
  const packages = items.length === 0 ? 1 : items.reduce((s, it) => s + (it.quantity ?? 1), 0);
  // A pair is priced from where it is collected; every other order from the account's pickup origin.
  const origin =
    pickup !== null && pickup.depot === null
      ? pointOfAddress(pickup)
      : account.origin_lat !== null && account.origin_lng !== null
        ? { lat: account.origin_lat, lng: account.origin_lng }
        : null;
  const a = body.delivery_address;
  const dest = a.lat !== undefined && a.lng !== undefined ? { lat: a.lat, lng: a.lng } : null;
  const km = roadKm(origin, dest);
  const pricing: Pricing = { ...ctx.config.defaultPricing, ...account.pricing };
  const breakdown = price(pricing, { km, weightKg, isUrgent: body.is_urgent ?? false, cashOnDelivery: codMinor });
  return { weightKg, packages, codMinor, km, breakdown, account, timezone: zoneOfAccount(account, ctx.config) };
}

/**
 * An address without coordinates, located by the geocoder when one is configured (RUTA_GEOCODER_URL):
 * the body with the point filled in, and how it was found (null: it came with coordinates, or there
 * is no geocoder).
 */
async function located(ctx: AppContext, body: OrderCreate): Promise<{ body: OrderCreate; geocode: Located | null }> {
  const a = body.delivery_address;
  requireWholePoint(a, 'delivery_address');
  // A blank address is refused by compute's rules, not sent to the geocoder.
  if ((a.lat !== undefined && a.lng !== undefined) || a.address.trim() === '') return { body, geocode: null };
  const found = await locateAddress(ctx, a);
  if (!found) return { body, geocode: null };
  const address = found.point ? { ...a, lat: found.point.lat, lng: found.point.lng } : a;
  return { body: { ...body, delivery_address: address }, geocode: found.located };
}

export async function quote(ctx: AppContext, accountId: string, mode: Mode, sent: OrderCreate) {
  const { body } = await located(ctx, sent);
  const pickup = body.pickup_address == null ? null : await pickupOf(ctx, mode, body.pickup_address);
  const c = await compute(ctx, accountId, body, pickup);
  const b = c.breakdown;
  return {
    object: 'quote' as const,
    livemode: mode === 'live',
    currency: c.account.currency,
    shipping_cost: toMajor(b.total),
    distance_km: Math.round(c.km * 100) / 100,
    weight_kg: c.weightKg,
    packages: c.packages,
    breakdown: {
      base_fee: toMajor(b.base_fee),
      distance: toMajor(b.distance),
      weight: toMajor(b.weight),
      urgent: toMajor(b.urgent),
      cod_fee: toMajor(b.cod_fee),
      minimum_adjustment: toMajor(b.minimum_adjustment),
    },
  };
}

/** An order ready to be written: its row, its first timeline entry and its order.created event. */
export type PreparedOrder = repo.Created;

/** What every order of one batch shares (the account's webhook endpoints), read once: see `batchOf`. */
export interface OrderBatch {
  endpoints: Awaited<ReturnType<typeof enabledEndpointsOf>>;
  /** The account's message settings (order_confirmed is written with each order). */
  messages: Awaited<ReturnType<typeof settingsFor>>;
  /** The account's proof settings (each order's levels and PIN come from them). */
  proof: ProofLevels;
}

/** Reads once what prepareOrder would read for each order of a batch of one account and environment. */
export async function batchOf(ctx: AppContext, accountId: string, mode: Mode): Promise<OrderBatch> {
  return {
    endpoints: await enabledEndpointsOf(ctx.db, { accountId, mode }),
    messages: await settingsFor(ctx.db, accountId),
    proof: (await proofSettingsFor(ctx.db, accountId)).levels,
  };
}

/** The same AJV check POST /v1/orders runs on its body, for bodies that arrive another way (imports). */
export const checkOrderCreate = bodyValidator(OrderCreate);
/** Every field of a refused order body, one error each (a bulk import's row shows them all). */
export const orderCreateErrors = bodyErrors(OrderCreate);

/**
 * Everything POST /v1/orders does before writing: the service-level rules (they throw ApiError
 * with `param`), the price, the ids and tracking code, and the event with its deliveries. The body
 * must already have passed the schema (`checkOrderCreate` or the route's validator).
 */
export async function prepareOrder(
  ctx: AppContext,
  accountId: string,
  mode: Mode,
  sent: OrderCreate,
  now = ctx.clock(),
  batch?: OrderBatch,
): Promise<PreparedOrder> {
  const { body, geocode } = await located(ctx, sent);
  // Only an order sent with a pickup address pays for locating it and reading the depots.
  const pickup = body.pickup_address == null ? null : await pickupOf(ctx, mode, body.pickup_address);
  const c = await compute(ctx, accountId, body, pickup);
  const proof = orderProof(batch?.proof ?? (await proofSettingsFor(ctx.db, accountId)).levels, body);
  const pin = newDeliveryPin(proof);
  const row: repo.OrderRow = {
    id: newId('ord', now),
    account_id: accountId,
    mode,
    tracking_code: newTrackingCode(),
    external_order_id: body.external_order_id ?? null,
    source: body.source ?? null,
    status: 'pending',
    customer: body.customer,
    delivery_address: body.delivery_address,
    pickup_address: pickup,
    items: body.items ?? [],
    requested_date: body.requested_date === undefined ? null : requestedDate(body.requested_date, c.timezone),
    time_window: body.time_window ?? null,
    requirements: body.requirements ?? [],
    priority: body.priority ?? 1,
    is_urgent: body.is_urgent ? 1 : 0,
    requires_signature: proof.signature === 'required' ? 1 : 0,
    requires_photo: proof.photo === 'required' ? 1 : 0,
    proof,
    delivery_pin: pin,
    pin_attempts: 0,
    pin_state: pin === null ? null : 'set',
    cash_on_delivery: c.codMinor,
    shipping_cost: c.breakdown.total,
    currency: c.account.currency,
    weight_kg: c.weightKg,
    packages: c.packages,
    customer_notes: body.customer_notes ?? null,
    metadata: body.metadata ?? {},
    courier_id: null,
    courier_name: null,
    route_id: null,
    cancellation_reason: null,
    failure_reason: null,
    on_time: null,
    attempts: 0,
    // order.created is event 1 of this order.
    event_seq: 1,
    created_at: now,
    updated_at: now,
    picked_up_at: null,
    delivered_at: null,
    returned_at: null,
    failure_notes: null,
    timezone: c.timezone,
    delivery_instructions: null,
    safe_place: null,
    feedback_rating: null,
    feedback_comment: null,
    feedback_at: null,
    geocode,
    loaded_at: null,
    attempt_lat: null,
    attempt_lng: null,
    attempt_accuracy_m: null,
    attempt_recorded_at: null,
    attempt_distance_m: null,
    attempt_far: null,
  };
  const timeline = { order_id: row.id, status: 'pending' as const, occurred_at: now, lat: null, lng: null };
  // The endpoints are read first, so the writes that follow need no read between them.
  const event = await prepareOrderEvent(ctx.db, 'order.created', row, { created_at: iso(now) }, now, batch?.endpoints);
  // The customer's order_confirmed messages commit with the order (DESIGN §14).
  const messages = await prepareMessages(ctx, row, 'order_confirmed', {}, now, batch?.messages);
  return { row, timeline, event, messages };
}

export async function createOrder(ctx: AppContext, accountId: string, mode: Mode, body: OrderCreate): Promise<Order> {
  const p = await prepareOrder(ctx, accountId, mode, body);
  await ctx.instance.get(ORDER_WRITES).write(p);
  announce(ctx, p.event);
  if (p.messages.job) signalJobs(ctx);
  // The merchant who created it is the one caller that sees the PIN.
  return presentOrder(p.row, true);
}

/**
 * Writes prepared orders (and their events) inside the caller's transaction, the same way a
 * POST /v1/orders is written (repo.insertCreated).
 */
export async function insertPreparedOrders(ctx: AppContext, trx: Tx, orders: PreparedOrder[]): Promise<void> {
  await repo.insertCreated(trx, ctx.engine, orders);
}

/** After the commit of insertPreparedOrders: wakes this process's webhook dispatcher. */
export function announceCreated(ctx: AppContext, orders: PreparedOrder[]): void {
  for (const o of orders) announce(ctx, o.event);
}

/** `id` may be an order id or a tracking code; anything outside the scope is indistinguishable from missing. */
export async function resolveOrder(ctx: AppContext, scope: Scope, id: string): Promise<repo.OrderRow> {
  let row: repo.OrderRow | undefined;
  if (id.startsWith('ord_')) row = await repo.findOrder(ctx.db, scope, { id });
  else {
    const code = normalizeTrackingCode(id);
    if (code) row = await repo.findOrder(ctx.db, scope, { trackingCode: code });
  }
  if (!row) throw notFound('order', id);
  return row;
}

function parseDate(value: string | undefined): number | undefined {
  return value === undefined ? undefined : parseInstant(value);
}

/** What the search box's text may be (see `Search`); the phone only from 4 digits on, or it matches half the city. */
function searchOf(text: string): Search {
  const term = text.trim();
  if (term === '') throw new ApiError('parameter_invalid', 'Invalid search: must not be blank.', 'search');
  const digits = term.replace(/\D/g, '');
  const nameKey = searchKey(term);
  return {
    id: term.startsWith('ord_') ? term : undefined,
    trackingCode: normalizeTrackingCode(term),
    externalOrderId: term,
    nameKey: nameKey === '' ? undefined : nameKey,
    phoneKey: /^[+\d\s().-]+$/.test(term) && digits.length >= 4 ? (phoneKey(digits) ?? undefined) : undefined,
  };
}

/**
 * The filters GET /v1/orders and GET /v1/orders/counts share, checked and parsed the same way. A
 * merchant's `account` was answered by the route (shared/access.ts, accountNamed: its own is left
 * out); one that still arrives with a scope of one account is a sandbox courier's.
 */
function filterOf(ctx: AppContext, scope: Scope, q: CountsQuery): OrderFilter {
  if (q.account !== undefined && scope.accountId !== null) {
    throw new ApiError(
      'parameter_invalid',
      'Only the carrier (operator keys, admins, dispatchers) can filter by account.',
      'account',
    );
  }
  return {
    scope,
    account: q.account,
    source: q.source,
    externalOrderId: q.external_order_id,
    createdGte: parseDate(q.created_gte),
    createdLt: parseDate(q.created_lt),
    dueGte: parseDate(q.due_gte),
    dueLt: parseDate(q.due_lt),
    dueDay: q.due_on,
    dueFrom: q.due_from,
    dueTo: q.due_to,
    courier: q.courier,
    district: q.district === undefined ? undefined : { engine: ctx.engine, name: q.district },
    outcome: q.outcome,
    onTime: q.on_time,
    firstAttempt: q.first_attempt,
    rated: q.rated,
    rating: q.rating,
    search: q.search === undefined ? undefined : searchOf(q.search),
    codStatus: q.cod_status,
    farFromAddress: q.far_from_address,
  };
}

/** `withPin`: the caller is the merchant (see presentOrder). */
export async function listOrders(ctx: AppContext, scope: Scope, q: ListQuery, withPin = false) {
  const filter = filterOf(ctx, scope, q);
  if (q.starting_after !== undefined && q.ending_before !== undefined) {
    throw new ApiError('parameter_invalid', 'Pass either starting_after or ending_before, not both.', 'ending_before');
  }
  const cursorScope: Scope = { ...scope, accountId: scope.accountId ?? q.account ?? null };
  const limit = q.limit ?? 20;
  const rows = await list.listOrders(ctx.db, {
    ...filter,
    status: q.status,
    after: q.starting_after,
    before: q.ending_before,
    cursorScope,
    limit,
  });
  // An empty page is also what an unknown cursor gives: only then is the cursor looked up on its own.
  const cursor = q.starting_after ?? q.ending_before;
  if (rows.length === 0 && cursor !== undefined) {
    const param = q.starting_after !== undefined ? 'starting_after' : 'ending_before';
    const found = cursor.startsWith('ord_') && (await repo.findOrder(ctx.db, cursorScope, { id: cursor }));
    if (!found) throw new ApiError('parameter_invalid', `Invalid ${param}: no such order '${cursor}'.`, param);
  }
  const has_more = rows.length > limit;
  const page = rows.slice(0, limit);
  if (q.ending_before !== undefined) page.reverse();
  return { object: 'list' as const, data: page.map((l) => presentListed(l, withPin)), has_more };
}

/** How many orders of each status the list would show for the same filters (every status present, 0 included). */
export async function countOrders(ctx: AppContext, scope: Scope, q: CountsQuery) {
  const found = await list.countOrders(ctx.db, filterOf(ctx, scope, q));
  const counts = Object.fromEntries(ORDER_STATUSES.map((s) => [s, found.get(s) ?? 0])) as Record<OrderStatus, number>;
  const total = ORDER_STATUSES.reduce((sum, s) => sum + counts[s], 0);
  return { object: 'order_counts' as const, livemode: scope.mode === 'live', total, counts };
}

export function isTerminal(status: OrderStatus): boolean {
  return TERMINAL_STATUSES.includes(status);
}
