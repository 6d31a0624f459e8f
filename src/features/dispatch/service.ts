import type { Scope } from '../../shared/auth.js';
import { isPostgres } from '../../shared/db/index.js';
import { ApiError, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import type { LifecycleOrderRow } from '../lifecycle/repo.js';
import { applyMove, assignEffect, checkFrom, type MoveEffect } from '../lifecycle/service.js';
import { iso } from '../orders/present.js';
import type { OrderStatus } from '../orders/schemas.js';
import { type OrdersContext, resolveOrder } from '../orders/service.js';
import * as repo from './repo.js';
import type {
  Courier,
  CourierCreate,
  CourierListQuery,
  CourierUpdate,
  LocationBody,
  Route,
  RouteCreate,
} from './schemas.js';

/** A ping may be late (offline devices upload a backlog) but not from the future beyond clock skew. */
const MAX_CLOCK_SKEW_MS = 5 * 60 * 1000;

export function presentCourier(c: repo.CourierRow): Courier {
  return {
    id: c.id,
    object: 'courier',
    livemode: c.mode === 'live',
    account: c.account_id,
    name: c.name,
    phone: c.phone,
    vehicle: c.vehicle as Courier['vehicle'],
    location:
      c.last_lat === null || c.last_lng === null || c.last_recorded_at === null
        ? null
        : { lat: c.last_lat, lng: c.last_lng, recorded_at: iso(c.last_recorded_at) },
    created_at: iso(c.created_at),
    updated_at: iso(c.updated_at),
  };
}

async function courierOrThrow(ctx: OrdersContext, scope: Scope, id: string): Promise<repo.CourierRow> {
  const c = await repo.findCourier(ctx.db, scope, id);
  if (!c) throw notFound('courier', id);
  return c;
}

export async function createCourier(ctx: OrdersContext, scope: Scope, body: CourierCreate): Promise<Courier> {
  const now = Date.now();
  const row: repo.CourierRow = {
    id: newId('cou', now),
    account_id: scope.accountId,
    mode: scope.mode,
    name: body.name,
    phone: body.phone ?? null,
    vehicle: body.vehicle ?? null,
    last_lat: null,
    last_lng: null,
    last_recorded_at: null,
    ping_count: 0,
    created_at: now,
    updated_at: now,
  };
  await repo.insertCourier(ctx.db, row);
  return presentCourier(row);
}

export async function getCourier(ctx: OrdersContext, scope: Scope, id: string): Promise<Courier> {
  return presentCourier(await courierOrThrow(ctx, scope, id));
}

export async function listCouriers(ctx: OrdersContext, scope: Scope, q: CourierListQuery) {
  const limit = q.limit ?? 20;
  if (q.starting_after !== undefined && !(await repo.findCourier(ctx.db, scope, q.starting_after))) {
    throw new ApiError(
      'parameter_invalid',
      `Invalid starting_after: no such courier '${q.starting_after}'.`,
      'starting_after',
    );
  }
  const rows = await repo.listCouriers(ctx.db, scope, { limit, after: q.starting_after });
  return { object: 'list' as const, data: rows.slice(0, limit).map(presentCourier), has_more: rows.length > limit };
}

export async function updateCourier(ctx: OrdersContext, scope: Scope, id: string, body: CourierUpdate) {
  const c = await courierOrThrow(ctx, scope, id);
  const row = await ctx.db.transaction().execute(async (trx) => {
    const updated = await repo.updateCourier(trx, c.id, { ...body, updated_at: Date.now() });
    if (body.name !== undefined && body.name !== c.name) await repo.renameOnOrders(trx, c.id, body.name);
    return updated;
  });
  return presentCourier(row);
}

export async function recordLocation(ctx: OrdersContext, scope: Scope, id: string, body: LocationBody) {
  const now = Date.now();
  const recordedAt = body.recorded_at === undefined ? now : Date.parse(body.recorded_at);
  if (recordedAt > now + MAX_CLOCK_SKEW_MS) {
    throw new ApiError('parameter_invalid', 'Invalid recorded_at: it is in the future.', 'recorded_at');
  }
  const ping = { lat: body.lat, lng: body.lng, recordedAt, now };
  // PostgreSQL writes a ping in one statement, atomic without a transaction; SQLite needs one for its two.
  const row = isPostgres(ctx.db)
    ? await repo.recordPing(ctx.db, scope, id, ping)
    : await ctx.db.transaction().execute((trx) => repo.recordPing(trx, scope, id, ping));
  // A stale ping is accepted (the device may drop it from its queue) but does not move the courier.
  return presentCourier(row ?? (await courierOrThrow(ctx, scope, id)));
}

export async function locationsOf(ctx: OrdersContext, scope: Scope, id: string) {
  const c = await courierOrThrow(ctx, scope, id);
  const rows = await repo.recentLocations(ctx.db, c.id);
  return {
    object: 'list' as const,
    data: rows.map((r) => ({ lat: r.lat, lng: r.lng, recorded_at: iso(r.recorded_at) })),
    has_more: false,
  };
}

async function presentRoute(ctx: OrdersContext, r: repo.RouteRow): Promise<Route> {
  const courier = await repo.courierById(ctx.db, r.courier_id);
  const stops = await repo.stopsOf(ctx.db, r.id);
  return {
    id: r.id,
    object: 'route',
    livemode: r.mode === 'live',
    courier: { id: r.courier_id, name: courier?.name ?? '' },
    date: r.date,
    stops: stops.map((s) => ({
      position: s.position,
      order: s.order_id,
      tracking_code: s.tracking_code,
      status: s.status as OrderStatus,
      on_route: s.route_id === r.id,
    })),
    created_at: iso(r.created_at),
  };
}

/**
 * Creates a route and assigns every order to its courier in stop order: one transaction, all or
 * nothing, one order.assigned per order. Any order that cannot be assigned fails the whole route.
 */
export async function createRoute(ctx: OrdersContext, scope: Scope, body: RouteCreate): Promise<Route> {
  const now = Date.now();
  const route: repo.RouteRow = {
    id: newId('rte', now),
    account_id: scope.accountId,
    mode: scope.mode,
    courier_id: body.courier_id,
    date: body.date ?? null,
    created_at: now,
  };
  const planned: { order: LifecycleOrderRow; effect: MoveEffect }[] = [];
  for (const [i, id] of body.order_ids.entries()) {
    let order: LifecycleOrderRow;
    try {
      order = (await resolveOrder(ctx, scope, id)) as LifecycleOrderRow;
    } catch {
      throw new ApiError('parameter_invalid', `Invalid order_ids[${i}]: no such order '${id}'.`, `order_ids[${i}]`);
    }
    checkFrom('assign', order);
    // The route row does not exist yet, so the effect is built without route_id and given it below.
    const effect = await assignEffect(ctx, scope, order, { courier_id: body.courier_id });
    effect.set = { ...effect.set, route_id: route.id };
    effect.data = { ...effect.data, route: route.id };
    planned.push({ order, effect });
  }
  const ids = planned.map((p) => p.order.id);
  if (new Set(ids).size !== ids.length) {
    throw new ApiError('parameter_invalid', 'Invalid order_ids: an order appears twice.', 'order_ids');
  }
  await ctx.db.transaction().execute(async (trx) => {
    await repo.insertRoute(trx, route, ids);
    for (const p of planned) await applyMove(trx, p.order, 'assign', p.effect, now);
  });
  return presentRoute(ctx, route);
}

export async function getRoute(ctx: OrdersContext, scope: Scope, id: string): Promise<Route> {
  const r = await repo.findRoute(ctx.db, scope, id);
  if (!r) throw notFound('route', id);
  return presentRoute(ctx, r);
}
