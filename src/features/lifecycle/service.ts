import type { Scope } from '../../shared/auth.js';
import type { AppContext } from '../../shared/context.js';
import type { Tx } from '../../shared/db/index.js';
import type { MessageTrigger } from '../../shared/db/tables/messages.js';
import { ApiError } from '../../shared/errors.js';
import { signalJobs } from '../../shared/jobs/job.js';
import { iso } from '../../shared/time.js';
import { etaMinutes } from '../dispatch/eta.js';
import * as dispatch from '../dispatch/repo.js';
import { type MessageOrder, NOTHING, prepareMessages } from '../messages/queue.js';
import { insertMessages } from '../messages/repo.js';
import { requestedDate, requestedDay } from '../orders/local-days.js';
import { isPaired } from '../orders/pickup.js';
import { presentOrder } from '../orders/present.js';
import * as orders from '../orders/repo.js';
import type { Order, OrderStatus } from '../orders/schemas.js';
import { resolveOrder } from '../orders/service.js';
import { recordOrderEvent, signalQueued } from '../webhooks/outbox.js';
import { onTime } from './on-time.js';
import { tellCouriers } from './phones.js';
import { checkPin } from './pin.js';
import { attemptColumns, type Fix, fixOf } from './position.js';
import { buildProof, EVENT_LINK_TTL_SECONDS, presentProof } from './proof.js';
import * as repo from './repo.js';
import type { AssignBody, DeliverBody, FailBody, MoveBody, RescheduleBody, ReturnBody } from './schemas.js';
import { type Action, TRANSITIONS } from './transitions.js';

type Row = orders.OrderRow;

/** What a move writes besides the status: extra columns, and extra event data. */
export interface MoveEffect {
  set?: Partial<Row>;
  data?: Record<string, unknown>;
  /** Overrides the table's target, e.g. partially_delivered. */
  to?: OrderStatus;
  event?: string;
  /** Moves to failed, delivered and partially_delivered count as delivery attempts. */
  countsAttempt?: boolean;
  /** Where the timeline says it happened; by default the courier's last known position. */
  position?: { lat: number; lng: number; accuracy_m?: number | null; recorded_at?: number | null };
  /** Further writes that must commit with the move (a proof, a route stop). */
  within?: (trx: Tx, row: Row) => Promise<void>;
}

export function refused(action: Action, order: { id: string; status: string }): ApiError {
  if (action === 'cancel') {
    return new ApiError(
      'order_not_cancellable',
      `Order ${order.id} can no longer be cancelled: its status is ${order.status}.`,
    );
  }
  return new ApiError('invalid_transition', `Cannot ${action} order ${order.id}: its status is ${order.status}.`);
}

/** The guarded update, its timeline entry and its outbox event, inside the caller's transaction. */
export async function applyMove(trx: Tx, current: Row, action: Action, e: MoveEffect, now: number): Promise<Row> {
  const t = TRANSITIONS[action];
  const to = e.to ?? t.to;
  const row = await repo.advance(trx, current, { ...e.set, status: to, updated_at: now }, e.countsAttempt ?? false);
  if (!row) throw refused(action, { id: current.id, status: (await repo.statusOf(trx, current.id)) ?? current.status });
  let position = e.position ?? null;
  if (!position && row.courier_id) {
    const c = await dispatch.courierById(trx, row.courier_id);
    if (c && c.last_lat !== null && c.last_lng !== null) position = { lat: c.last_lat, lng: c.last_lng };
  }
  await orders.insertTimeline(trx, {
    order_id: row.id,
    status: to,
    occurred_at: now,
    lat: position?.lat ?? null,
    lng: position?.lng ?? null,
    accuracy_m: position?.accuracy_m ?? null,
    recorded_at: position?.recorded_at ?? null,
  });
  await e.within?.(trx, row);
  await recordOrderEvent(trx, e.event ?? t.event, row, e.data ?? {}, now);
  return row;
}

/** The moves customers hear about, and what they hear (DESIGN §14). */
const MESSAGE_TRIGGER: Partial<Record<Action, MessageTrigger>> = {
  depart: 'out_for_delivery',
  approach: 'next_stop',
  deliver: 'delivered',
  fail: 'failed',
  reschedule: 'rescheduled',
};

/** The order as its messages see it: what the move is about to set (the failure reason) included. */
function messageOrder(current: Row, e: MoveEffect): MessageOrder {
  return { ...current, ...e.set } as MessageOrder;
}

function etaOf(e: MoveEffect): number | null {
  const eta = e.data?.eta_minutes;
  return typeof eta === 'number' ? eta : null;
}

/** Who took the parcel, from a deliver move's proof: its message names them. */
function receiverOf(e: MoveEffect): string | null {
  const proof = e.data?.proof as { receiver_name?: unknown } | undefined;
  return typeof proof?.receiver_name === 'string' ? proof.receiver_name : null;
}

export function checkFrom(action: Action, order: { id: string; status: OrderStatus }): void {
  if (!TRANSITIONS[action].from.includes(order.status)) throw refused(action, order);
}

/**
 * Runs one lifecycle move: the guarded status update, its timeline entry and its outbox event
 * commit in one transaction. Two concurrent moves read from the same state cannot both succeed.
 */
export async function move(
  ctx: AppContext,
  scope: Scope,
  id: string,
  action: Action,
  effect: (order: Row, now: number) => MoveEffect | Promise<MoveEffect>,
): Promise<Order> {
  const current = await resolveOrder(ctx, scope, id);
  checkFrom(action, current);
  const now = ctx.clock();
  const e = await effect(current, now);
  const trigger = MESSAGE_TRIGGER[action];
  const messages = trigger
    ? await prepareMessages(
        ctx,
        messageOrder(current, e),
        trigger,
        { eta_minutes: etaOf(e), receiver_name: receiverOf(e) },
        now,
      )
    : NOTHING;
  let jobs = 0;
  const updated = await ctx.db.transaction().execute(async (trx) => {
    const row = await applyMove(trx, current, action, e, now);
    // The customer's messages commit with the move that triggers them (DESIGN §14).
    jobs = await insertMessages(trx, messages.rows, messages.job);
    return row;
  });
  // Every move writes an event; after the commit, this instance's dispatcher may have work.
  signalQueued(ctx);
  if (jobs > 0) signalJobs(ctx);
  await tellCouriers(
    ctx,
    [current, updated].map((o) => ({ courierId: o.courier_id, routeId: o.route_id })),
    'moved',
  );
  return presentOrder(updated);
}

export function cancel(ctx: AppContext, scope: Scope, id: string, reason: string | undefined): Promise<Order> {
  return move(ctx, scope, id, 'cancel', (order, now) => ({
    set: { cancellation_reason: reason ?? null },
    data: { cancellation_reason: reason ?? null, cancelled_at: iso(now), previous_status: order.status },
  }));
}

/** Checks an assignment (courier and optional route visible to the caller and fit for the order). */
export async function assignEffect(ctx: AppContext, scope: Scope, order: Row, body: AssignBody): Promise<MoveEffect> {
  const courier = await dispatch.findCourier(ctx.db, scope, body.courier_id);
  // A sandbox courier serves only its own account's orders.
  if (!courier || (courier.account_id !== null && courier.account_id !== order.account_id)) {
    throw new ApiError('parameter_invalid', `Invalid courier_id: no such courier '${body.courier_id}'.`, 'courier_id');
  }
  // A disabled courier has left (or lost its phone): new work would sit on a route nobody runs.
  // Orders it already holds keep moving, so a dispatcher can still reassign or finish them.
  if (courier.status !== 'active') {
    throw new ApiError(
      'parameter_invalid',
      `Invalid courier_id: courier '${body.courier_id}' is disabled; enable it or choose another.`,
      'courier_id',
    );
  }
  const routeId = body.route_id ?? null;
  if (routeId !== null) {
    const route = await dispatch.findRoute(ctx.db, scope, routeId);
    if (!route) throw new ApiError('parameter_invalid', `Invalid route_id: no such route '${routeId}'.`, 'route_id');
    if (route.courier_id !== courier.id) {
      throw new ApiError(
        'parameter_invalid',
        `Invalid route_id: route ${routeId} belongs to another courier.`,
        'route_id',
      );
    }
  }
  return {
    set: { courier_id: courier.id, courier_name: courier.name, route_id: routeId },
    data: { courier: { id: courier.id, name: courier.name }, route: routeId },
    within: routeId === null ? undefined : (trx, row) => dispatch.appendStop(trx, routeId, row.id, isPaired(row)),
  };
}

/** A new day (and window) for the order, back in the dispatch pool; also the customer's choice on the tracking page. */
export function rescheduleEffect(order: Row, body: RescheduleBody): MoveEffect {
  const tw = body.time_window;
  if (tw && tw.start >= tw.end) {
    throw new ApiError('parameter_invalid', 'Invalid time_window: start must be before end.', 'time_window.end');
  }
  const timeWindow = tw ?? order.time_window;
  // A plain day is a day in the order's zone, as at creation; the zone itself never changes.
  const requested = requestedDate(body.requested_date, order.timezone);
  // Back to the dispatch pool: the next attempt is planned afresh and needs a new assignment.
  return {
    set: {
      requested_date: requested,
      timezone: order.timezone,
      time_window: timeWindow,
      courier_id: null,
      courier_name: null,
      route_id: null,
    },
    data: {
      requested_date: requested,
      requested_day: requestedDay(requested, order.timezone),
      timezone: order.timezone,
      time_window: timeWindow,
    },
  };
}

/** The timeline's position from a move's fix; without one, applyMove falls back to the courier's last known. */
function at(fix: Fix | null): Pick<MoveEffect, 'position'> {
  return fix
    ? { position: { lat: fix.lat, lng: fix.lng, accuracy_m: fix.accuracy_m, recorded_at: fix.recorded_at } }
    : {};
}

export const moves = {
  validate: (ctx: AppContext, scope: Scope, id: string) => move(ctx, scope, id, 'validate', () => ({})),

  assign: (ctx: AppContext, scope: Scope, id: string, body: AssignBody) =>
    move(ctx, scope, id, 'assign', (order) => assignEffect(ctx, scope, order, body)),

  ready: (ctx: AppContext, scope: Scope, id: string, body?: MoveBody) =>
    move(ctx, scope, id, 'ready', (o, now) => at(fixOf(ctx, o, body?.position, now))),

  pickup: (ctx: AppContext, scope: Scope, id: string, body?: MoveBody) =>
    move(ctx, scope, id, 'pickup', (o, now) => ({
      set: { picked_up_at: now },
      data: { picked_up_at: iso(now) },
      ...at(fixOf(ctx, o, body?.position, now)),
    })),

  depart: (ctx: AppContext, scope: Scope, id: string, body?: MoveBody) =>
    move(ctx, scope, id, 'depart', async (o, now) => ({
      data: { eta_minutes: await etaMinutes(ctx.db, ctx.config, o) },
      ...at(fixOf(ctx, o, body?.position, now)),
    })),

  approach: (ctx: AppContext, scope: Scope, id: string, body?: MoveBody) =>
    move(ctx, scope, id, 'approach', async (o, now) => ({
      data: { eta_minutes: await etaMinutes(ctx.db, ctx.config, o) },
      ...at(fixOf(ctx, o, body?.position, now)),
    })),

  arrive: (ctx: AppContext, scope: Scope, id: string, body?: MoveBody) =>
    move(ctx, scope, id, 'arrive', (o, now) => at(fixOf(ctx, o, body?.position, now))),

  deliver: (ctx: AppContext, scope: Scope, id: string, body: DeliverBody) =>
    move(ctx, scope, id, 'deliver', async (order, now) => {
      // The older lat/lng fields still count, as a fix of unknown accuracy; `position` wins.
      const legacy = body.lat !== undefined && body.lng !== undefined ? { lat: body.lat, lng: body.lng } : undefined;
      const fix = fixOf(ctx, order, body.position ?? legacy, now);
      const proof = await buildProof(ctx, scope, order, body, now, fix);
      // Last, once the rest of the proof is complete: a wrong PIN is counted, a missing photo is not a try.
      proof.pin = await checkPin(ctx, order, body.pin, now);
      const partial = proof.delivered_packages < order.packages;
      const shown = await presentProof(ctx, proof, EVENT_LINK_TTL_SECONDS);
      return {
        to: partial ? 'partially_delivered' : 'delivered',
        event: partial ? 'order.partially_delivered' : 'order.delivered',
        // On time by the tap (the fix's time, when it sent one): a phone that delivered inside the
        // window with no signal may sync after it. delivered_at stays the server's time: money is
        // bucketed by it, and a day already settled must not gain a delivery afterwards.
        set: {
          delivered_at: now,
          on_time: onTime(order, Math.min(fix?.recorded_at ?? now, now)),
          ...attemptColumns(fix),
        },
        countsAttempt: true,
        position: at(fix).position,
        data: {
          proof: {
            receiver_name: proof.receiver_name,
            signature_url: shown.signature_url,
            lat: shown.lat,
            lng: shown.lng,
            accuracy_m: shown.accuracy_m,
            distance_from_address_m: shown.distance_from_address_m,
            far_from_address: shown.far_from_address,
          },
          delivered_at: iso(now),
          ...(partial ? { delivered_packages: proof.delivered_packages, packages: order.packages } : {}),
        },
        within: (trx) => repo.insertProof(trx, proof),
      };
    }),

  fail: (ctx: AppContext, scope: Scope, id: string, body: FailBody) =>
    move(ctx, scope, id, 'fail', (order, now) => {
      const fix = fixOf(ctx, order, body.position, now);
      return {
        set: { failure_reason: body.reason, failure_notes: body.notes ?? null, ...attemptColumns(fix) },
        countsAttempt: true,
        data: { reason: body.reason, notes: body.notes ?? null, attempts: order.attempts + 1 },
        ...at(fix),
      };
    }),

  reschedule: (ctx: AppContext, scope: Scope, id: string, body: RescheduleBody) =>
    move(ctx, scope, id, 'reschedule', (order) => rescheduleEffect(order, body)),

  return: (ctx: AppContext, scope: Scope, id: string, body: ReturnBody) =>
    move(ctx, scope, id, 'return', (_o, now) => ({
      set: { returned_at: now },
      data: { returned_at: iso(now), notes: body.notes ?? null },
    })),
};

export async function proofOf(ctx: AppContext, order: orders.OrderRow) {
  const proof =
    order.status === 'delivered' || order.status === 'partially_delivered'
      ? await repo.findProof(ctx.db, order.id)
      : undefined;
  if (!proof) {
    throw new ApiError(
      'resource_missing',
      `Order ${order.id} has no proof of delivery: its status is ${order.status}.`,
      'id',
    );
  }
  return presentProof(ctx, proof);
}
