import type { AppContext } from '../../shared/context.js';
import type { Tx } from '../../shared/db/index.js';
import type { Mode } from '../../shared/db/schema.js';
import { newId, newTrackingCode } from '../../shared/ids.js';
import { signalJobs } from '../../shared/jobs/job.js';
import { iso } from '../../shared/time.js';
import { prepareMessages, settingsFor } from '../messages/queue.js';
import { announce, enabledEndpointsOf, prepareOrderEvent } from '../webhooks/outbox.js';
import { type Created, insertCreated } from './create-repo.js';
import { ORDER_WRITES } from './create-writer.js';
import { requestedDate } from './local-days.js';
import { pickupOf } from './pickup.js';
import { presentOrder } from './present.js';
import { newDeliveryPin, orderProof, type ProofLevels, proofSettingsFor } from './proof-settings.js';
import { compute, located } from './quote.js';
import type { OrderRow } from './repo.js';
import type { Order, OrderCreate } from './schemas.js';

// Creating orders, one (POST /v1/orders) or an import's batch: both prepare each order here and
// write it through insertCreated (create-repo.ts), so an imported order is the same rows a created one is.

/** An order ready to be written: its row, its first timeline entry and its order.created event. */
export type PreparedOrder = Created;

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
  const row: OrderRow = {
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
 * POST /v1/orders is written (insertCreated).
 */
export async function insertPreparedOrders(ctx: AppContext, trx: Tx, orders: PreparedOrder[]): Promise<void> {
  await insertCreated(trx, ctx.engine, orders);
}

/** After the commit of insertPreparedOrders: wakes this process's webhook dispatcher. */
export function announceCreated(ctx: AppContext, orders: PreparedOrder[]): void {
  for (const o of orders) announce(ctx, o.event);
}
