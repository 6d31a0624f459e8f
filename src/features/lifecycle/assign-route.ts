import type { Scope } from '../../shared/auth.js';
import type { AppContext } from '../../shared/context.js';
import type { Tx } from '../../shared/db/index.js';
import { ApiError } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { localDay } from '../../shared/local-time.js';
import * as dispatch from '../dispatch/repo.js';
import { presentRoute } from '../dispatch/route-read.js';
import type { Route, RouteCreate } from '../dispatch/schemas.js';
import { isPaired } from '../orders/pickup.js';
import type { OrderRow } from '../orders/repo.js';
import { resolveOrder } from '../orders/service.js';
import { signalQueued } from '../webhooks/outbox.js';
import { tellCouriers } from './phones.js';
import { applyMove, assignEffect, checkFrom, type MoveEffect } from './service.js';

/** A route checked and ready to write: its row, its stops in order and each order's assign move. */
export interface PreparedRoute {
  route: dispatch.RouteRow;
  stops: dispatch.StopRef[];
  planned: { order: OrderRow; effect: MoveEffect }[];
}

/**
 * Checks a route's orders and builds each one's assign move, writing nothing: a route plan's commit
 * prepares all its routes first and writes them in one transaction (writeRoute). `stops`: the stop
 * order when the caller has one (a plan's, with each pair's pickup where the solver put it); without
 * it a paired order's pickup goes just before its delivery. `depots`: where a plan set the courier off
 * from and back to, kept on the route for live dispatch; none for a route made by hand.
 */
export async function prepareRoute(
  ctx: AppContext,
  scope: Scope,
  body: RouteCreate,
  stops?: dispatch.StopRef[],
  depots?: { start: string; end: string },
): Promise<PreparedRoute> {
  const now = ctx.clock();
  const routeId = newId('rte', now);
  const planned: { order: OrderRow; effect: MoveEffect }[] = [];
  for (const [i, id] of body.order_ids.entries()) {
    let order: OrderRow;
    try {
      order = await resolveOrder(ctx, scope, id);
    } catch {
      throw new ApiError('parameter_invalid', `Invalid order_ids[${i}]: no such order '${id}'.`, `order_ids[${i}]`);
    }
    checkFrom('assign', order);
    // The route row does not exist yet, so the effect is built without route_id and given it below.
    const effect = await assignEffect(ctx, scope, order, { courier_id: body.courier_id });
    effect.set = { ...effect.set, route_id: routeId };
    effect.data = { ...effect.data, route: routeId };
    planned.push({ order, effect });
  }
  // Every route is on a day: made without one, the day it is made, read where the courier starts
  // (its depot), else where its first order is due (the order's zone). The Routes page, the
  // routes list's `date` and auto-dispatch all find a route by its day.
  const zone = async () =>
    (await dispatch.courierDepotZone(ctx.db, body.courier_id)) ??
    planned[0]?.order.timezone ??
    ctx.config.defaultTimezone;
  const route: dispatch.RouteRow = {
    id: routeId,
    account_id: scope.accountId,
    mode: scope.mode,
    courier_id: body.courier_id,
    date: body.date ?? localDay(now, await zone()),
    created_at: now,
    start_depot: depots?.start ?? null,
    end_depot: depots?.end ?? null,
  };
  const ids = planned.map((p) => p.order.id);
  if (new Set(ids).size !== ids.length) {
    throw new ApiError('parameter_invalid', 'Invalid order_ids: an order appears twice.', 'order_ids');
  }
  const ordered =
    stops ??
    planned.flatMap(({ order }): dispatch.StopRef[] =>
      isPaired(order)
        ? [
            { order_id: order.id, kind: 'pickup' },
            { order_id: order.id, kind: 'delivery' },
          ]
        : [{ order_id: order.id, kind: 'delivery' }],
    );
  return { route, stops: ordered, planned };
}

/** Writes a prepared route and its assign moves (one order.assigned each) inside the caller's transaction. */
export async function writeRoute(trx: Tx, p: PreparedRoute, now: number): Promise<void> {
  await dispatch.insertRoute(trx, p.route, p.stops);
  for (const x of p.planned) await applyMove(trx, x.order, 'assign', x.effect, now);
}

/**
 * Creates a route and assigns every order to its courier in stop order: one transaction, all or
 * nothing, one order.assigned per order. Any order that cannot be assigned fails the whole route.
 */
export async function createRoute(ctx: AppContext, scope: Scope, body: RouteCreate): Promise<Route> {
  const prepared = await prepareRoute(ctx, scope, body);
  const now = ctx.clock();
  await ctx.db.transaction().execute((trx) => writeRoute(trx, prepared, now));
  signalQueued(ctx);
  await tellCouriers(ctx, [{ courierId: prepared.route.courier_id, routeId: prepared.route.id }], 'dispatched');
  return presentRoute(ctx, prepared.route);
}
