import type { Scope } from '../../shared/auth.js';
import type { AppContext } from '../../shared/context.js';
import type { Tx } from '../../shared/db/index.js';
import { ApiError } from '../../shared/errors.js';
import { localDay } from '../../shared/local-time.js';
import { prepareRoute, writeRoute } from '../lifecycle/assign-route.js';
import { tellCourier } from '../lifecycle/phones.js';
import { applyMove, assignEffect, checkFrom } from '../lifecycle/service.js';
import { isPaired } from '../orders/pickup.js';
import type { OrderRow } from '../orders/repo.js';
import { resolveOrder } from '../orders/service.js';
import { signalQueued } from '../webhooks/outbox.js';
import { bestInsertion, bestPairInsertion, compareInsertions } from './insertion.js';
import { type Day, dayOf, type LaneStop, laneProblem, pointOf, situations, type Unplaced } from './lanes.js';
import * as repo from './repo.js';
import type { DispatchBody, DispatchResult, SuggestionList } from './schemas.js';
import { placeStops, present, type Ranked } from './suggestion.js';

/** The local day an order is due: its requested date, else the day it was created, in its own zone. */
export function dueDay(order: OrderRow): string {
  const requested = order.requested_date === null ? Number.NaN : Date.parse(order.requested_date);
  return localDay(Number.isFinite(requested) ? requested : order.created_at, order.timezone);
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
