import type { Scope } from '../../shared/auth.js';
import type { AppContext } from '../../shared/context.js';
import type { Tx } from '../../shared/db/index.js';
import { ApiError } from '../../shared/errors.js';
import { localClock, localDay } from '../../shared/local-time.js';
import type { StopRef } from '../dispatch/repo.js';
import { prepareRoute, writeRoute } from '../lifecycle/assign-route.js';
import { tellCourier } from '../lifecycle/phones.js';
import { applyMove, assignEffect, checkFrom } from '../lifecycle/service.js';
import { isPaired } from '../orders/pickup.js';
import type { OrderRow } from '../orders/repo.js';
import { resolveOrder } from '../orders/service.js';
import type { Violation } from '../planning/solver/index.js';
import { signalQueued } from '../webhooks/outbox.js';
import { bestInsertion, bestPairInsertion, compareInsertions, type Insertion } from './insertion.js';
import {
  type Day,
  dayOf,
  instantOf,
  type LaneStop,
  laneProblem,
  pointOf,
  refOf,
  type Situation,
  situations,
  type Unplaced,
} from './lanes.js';
import * as repo from './repo.js';
import type { DispatchBody, DispatchResult, Suggestion, SuggestionList } from './schemas.js';

const round = (n: number, digits = 3) => Math.round(n * 10 ** digits) / 10 ** digits;

/** The local day an order is due: its requested date, else the day it was created, in its own zone. */
export function dueDay(order: OrderRow): string {
  const requested = order.requested_date === null ? Number.NaN : Date.parse(order.requested_date);
  return localDay(Number.isFinite(requested) ? requested : order.created_at, order.timezone);
}

/** A broken constraint in the dispatcher's words, times of day in the order's zone. */
export function describe(
  d: Day,
  orderOf: (job: number) => repo.StopOrder,
  v: Violation,
): Suggestion['violations'][number] {
  const hhmm = (min: number) => localClock(d.dayStart + Math.round(min * 60_000), d.tz);
  const order = orderOf(v.job);
  if (v.kind === 'capacity') {
    const unit = v.dimension === 0 ? 'packages' : 'kg';
    return {
      constraint: 'capacity',
      order_id: order.id,
      message: `Does not fit: the load reaches ${round(v.at)} ${unit}, the vehicle takes ${round(v.limit)}`,
    };
  }
  if (v.kind === 'shift') {
    return {
      constraint: 'shift',
      order_id: order.id,
      message: `Back at ${hhmm(v.at)}, after the shift ends (${hhmm(v.limit)})`,
    };
  }
  if (v.kind === 'skills') {
    return { constraint: 'skills', order_id: order.id, message: `Needs ${order.requirements.join(', ')}` };
  }
  if (v.kind === 'route_limit' || v.kind === 'break' || v.kind === 'pair') {
    return {
      constraint: v.kind === 'break' ? 'break' : 'route_limit',
      order_id: order.id,
      message:
        v.kind === 'break'
          ? `No room for the courier\u2019s break (latest start ${hhmm(v.limit)})`
          : `Over the courier\u2019s route limit: ${round(v.at)} where ${round(v.limit)} is the most (stops, minutes or km)`,
    };
  }
  const w = order.time_window;
  return {
    constraint: 'time_window',
    order_id: order.id,
    message: `Served at ${hhmm(v.at)}, after its window${w ? ` ${w.start}\u2013${w.end}` : ' (the day ends)'}`,
  };
}

export interface Ranked {
  situation: Situation;
  insertion: Insertion;
  suggestion: Suggestion;
  /** The stop the order's delivery goes before on the route (null: after the last one). */
  before: StopRef | null;
  /** A pair: the stop its pickup goes before (null: after the last one; the delivery's own `before` when equal). */
  pickupBefore?: StopRef | null;
}

const keyOf = (x: StopRef) => `${x.order_id}:${x.kind}`;

/**
 * Puts the order's stops into a route's stop list, as the insertion placed them: the delivery
 * before `before`, a pair's pickup before `pickupBefore` (or just before its delivery when both go
 * before the same stop). A stop that is gone from the list puts the order last.
 */
export function placeStops(
  list: StopRef[],
  orderId: string,
  r: Pick<Ranked, 'before' | 'pickupBefore'>,
  paired: boolean,
) {
  const at = (ref: StopRef | null) => {
    const i = ref === null ? -1 : list.findIndex((x) => keyOf(x) === keyOf(ref));
    return i < 0 ? list.length : i;
  };
  const delivery: StopRef = { order_id: orderId, kind: 'delivery' };
  list.splice(at(r.before), 0, delivery);
  if (!paired) return;
  const same =
    r.pickupBefore === undefined ||
    (r.pickupBefore === null ? r.before === null : r.before !== null && keyOf(r.pickupBefore) === keyOf(r.before));
  list.splice(same ? list.indexOf(delivery) : Math.min(at(r.pickupBefore ?? null), list.indexOf(delivery)), 0, {
    order_id: orderId,
    kind: 'pickup',
  });
}

/** One courier's best insertion of the order, in the API's terms. */
function present(d: Day, order: OrderRow, s: Situation, ins: Insertion, paired: boolean): Ranked {
  const k = s.ahead.length;
  const orderOf = (job: number): repo.StopOrder => (job < k ? (s.ahead[job] as repo.StopOrder) : order);
  const aheadRef = (i: number) => (i < k ? refOf(s.ahead[i] as LaneStop) : null);
  const before = aheadRef(ins.at);
  const pickupBefore = ins.pickupAt === undefined ? undefined : aheadRef(ins.pickupAt);
  // Stop numbers after the insertion. A route of plain stops (the usual case) is numbered by order
  // id alone, as before pairs; one with a pair's two stops needs the kind too.
  let position: (ref: StopRef) => number;
  if (!paired && !s.stops.some((x) => x.kind === 'pickup')) {
    const ids = s.stops.map((x) => x.order.id);
    ids.splice(before === null ? ids.length : ids.indexOf(before.order_id), 0, order.id);
    position = (ref) => ids.indexOf(ref.order_id) + 1;
  } else {
    const full: StopRef[] = s.stops.map((x) => ({ order_id: x.order.id, kind: x.kind }));
    placeStops(full, order.id, { before, pickupBefore }, paired);
    const keys = full.map(keyOf);
    position = (ref) => keys.indexOf(keyOf(ref)) + 1;
  }
  // The lane's jobs: the stops ahead, then the order (a pair: its pickup, then its delivery).
  const kindOf = (job: number) =>
    job < k ? (s.ahead[job] as LaneStop).kind : paired && job === k ? 'pickup' : 'delivery';
  const suggestion: Suggestion = {
    courier: { id: s.courier.id, name: s.courier.name },
    route: s.route?.id ?? null,
    position: position({ order_id: order.id, kind: 'delivery' }),
    ...(paired ? { pickup_position: position({ order_id: order.id, kind: 'pickup' }) } : {}),
    added_km: round(ins.addedDistance),
    added_minutes: round(ins.addedTime, 1),
    feasible: ins.broken.length === 0,
    violations: ins.broken.map((v) => describe(d, orderOf, v)),
    starts_from: s.startsFrom,
    stops: ins.stops.map((st) => {
      const id = orderOf(st.job).id;
      const kind = kindOf(st.job);
      const prev = ins.before.get(st.job);
      return {
        order_id: id,
        ...(kind === 'pickup' ? { kind } : {}),
        position: position({ order_id: id, kind }),
        arrival_at: instantOf(d, st.arrival),
        service_start_at: instantOf(d, st.serviceStart),
        previous_arrival_at: st.job < k && prev ? instantOf(d, prev.arrival) : null,
      };
    }),
  };
  return { situation: s, insertion: ins, suggestion, before, ...(paired ? { pickupBefore } : {}) };
}

/**
 * Every courier on duty, best first, with the cheapest position of the order on its current route.
 * `courierId` narrows it to that courier, counted even when not on duty.
 */
export async function rank(
  ctx: AppContext,
  order: OrderRow,
  courierId?: string,
): Promise<{ day: Day; ranked: Ranked[]; unavailable: SuggestionList['unavailable'] }> {
  checkFrom('assign', order);
  if (!pointOf(order.delivery_address)) {
    throw new ApiError(
      'order_not_dispatchable',
      `Order ${order.id} cannot be dispatched: its delivery address has no lat/lng to drive to.`,
    );
  }
  const d = dayOf(dueDay(order), order.timezone, ctx.clock());
  let couriers = await repo.couriersFor(ctx.db, order.mode, order.account_id);
  if (courierId !== undefined) couriers = couriers.filter((c) => c.id === courierId);
  const fallbackDepot = await repo.accountDepot(ctx.db, order.account_id);
  const unplaced: Unplaced[] = [];
  const sits = await situations(ctx.db, ctx.config, d, couriers, {
    fallbackDepot,
    exclude: order.id,
    include: courierId,
    unplaced,
  });
  const ranked: Ranked[] = [];
  // A pickup-and-delivery order goes in as two stops, its pickup first (DESIGN §16).
  const paired = isPaired(order);
  const added: LaneStop[] = paired
    ? [
        { ...order, kind: 'pickup' },
        { ...order, kind: 'delivery' },
      ]
    : [{ ...order, kind: 'delivery' }];
  for (const s of sits) {
    const problem = await laneProblem(ctx.config, d, s, [...s.ahead, ...added]);
    const ins = paired ? bestPairInsertion({ problem }) : bestInsertion({ problem });
    ranked.push(present(d, order, s, ins, paired));
  }
  ranked.sort(
    (a, b) =>
      compareInsertions(a.insertion, b.insertion) || a.situation.courier.id.localeCompare(b.situation.courier.id),
  );
  return { day: d, ranked, unavailable: unplaced.map((u) => unavailable(d, u)) };
}

/** A courier left out of the ranking, in the dispatcher's words: why, and what would put it back. */
function unavailable(d: Day, u: Unplaced): SuggestionList['unavailable'][number] {
  const has = u.route ? `has route ${u.route.id} on ${d.day} but` : 'has';
  return {
    courier: { id: u.courier.id, name: u.courier.name },
    route: u.route?.id ?? null,
    reason: u.reason,
    message: `${u.courier.name} ${has} nowhere to start from: no start depot (its own, its route plan\u2019s or the account\u2019s) and no position recorded. Give the courier a start depot, or let its app send a position.`,
  };
}

export async function suggestions(ctx: AppContext, scope: Scope, id: string, limit = 20): Promise<SuggestionList> {
  const order = await resolveOrder(ctx, scope, id);
  const { ranked, unavailable } = await rank(ctx, order);
  return {
    object: 'list',
    order: order.id,
    auto_dispatch: await repo.autoDispatchOf(ctx.db, order.mode, order.account_id),
    data: ranked.slice(0, limit).map((r) => r.suggestion),
    has_more: ranked.length > limit,
    unavailable,
  };
}

/**
 * Inserts the order into a courier's route: the assign move (order.assigned) and the new stop
 * order commit together. The named courier takes it at its cheapest position whatever it breaks
 * (listed in the answer); without one, the best courier that breaks nothing, else 409.
 */
export async function dispatchOrder(
  ctx: AppContext,
  scope: Scope,
  id: string,
  body: DispatchBody,
  also?: (trx: Tx, chosen: Ranked) => Promise<void>,
): Promise<DispatchResult> {
  const order = await resolveOrder(ctx, scope, id);
  const { day, ranked, unavailable } = await rank(ctx, order, body.courier_id);
  let chosen: Ranked | undefined;
  if (body.courier_id !== undefined) {
    chosen = ranked[0];
    if (!chosen) {
      throw new ApiError(
        'parameter_invalid',
        unavailable[0]
          ? `Invalid courier_id: ${unavailable[0].message}`
          : `Invalid courier_id: no active courier '${body.courier_id}' with a depot or a position to start from.`,
        'courier_id',
      );
    }
  } else {
    chosen = ranked.find((r) => r.suggestion.feasible);
    if (!chosen) {
      let why = `No courier can take order ${order.id} without breaking a window, capacity or shift; name one with courier_id to insert it anyway.`;
      if (ranked.length === 0 && unavailable.length === 0) {
        why = `No courier is on duty for order ${order.id}: none has a route on ${day.day} or a recent position.`;
      } else if (ranked.length === 0) {
        // Couriers with a route of the day but nowhere to start from are on duty: named, not denied.
        const one = unavailable.length === 1;
        why = `No courier can be ranked for order ${order.id}: ${unavailable.map((u) => u.courier.name).join(', ')} ${one ? 'has a route' : 'have routes'} on ${day.day} but nowhere to start from (no start depot, no position recorded). Give ${one ? 'it' : 'them'} a start depot.`;
      }
      throw new ApiError('no_courier_fits', why);
    }
  }
  const routeId = await write(ctx, scope, order, chosen, day, also);
  return { object: 'dispatch', order: order.id, route: routeId, suggestion: { ...chosen.suggestion, route: routeId } };
}

async function write(
  ctx: AppContext,
  scope: Scope,
  order: OrderRow,
  chosen: Ranked,
  day: Day,
  also?: (trx: Tx, chosen: Ranked) => Promise<void>,
): Promise<string> {
  const courierId = chosen.situation.courier.id;
  const route = chosen.situation.route;
  const now = ctx.clock();
  let routeId: string;
  if (route) {
    routeId = route.id;
    const effect = await assignEffect(ctx, scope, order, { courier_id: courierId, route_id: route.id });
    // Placed at its position rather than appended; the stop order is rewritten under the route's lock.
    effect.within = async (trx, row) => {
      await repo.lockRoute(trx, route.id);
      const refs = (await repo.stopRefs(trx, route.id)).filter((x) => x.order_id !== row.id);
      placeStops(refs, row.id, chosen, isPaired(order));
      await repo.rewriteStops(trx, route.id, refs);
    };
    await ctx.db.transaction().execute(async (trx) => {
      await applyMove(trx, order, 'assign', effect, now);
      await also?.(trx, chosen);
    });
  } else {
    // A sandbox courier's route belongs to its account, as if the merchant's test key had made it.
    const owner = { ...scope, accountId: chosen.situation.courier.account_id ?? scope.accountId };
    const prepared = await prepareRoute(ctx, owner, { courier_id: courierId, order_ids: [order.id], date: day.day });
    routeId = prepared.route.id;
    await ctx.db.transaction().execute(async (trx) => {
      await writeRoute(trx, prepared, now);
      await also?.(trx, chosen);
    });
  }
  signalQueued(ctx);
  // The courier's phone re-reads its route: the stops after the new one moved down.
  tellCourier(ctx, chosen.situation.courier, routeId, 'dispatched');
  return routeId;
}
