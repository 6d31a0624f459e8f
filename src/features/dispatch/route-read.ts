import type { Scope } from '../../shared/auth.js';
import type { AppContext } from '../../shared/context.js';
import { ApiError, notFound } from '../../shared/errors.js';
import { iso } from '../../shared/time.js';
import * as repo from './repo.js';
import type { Route, RouteListQuery } from './schemas.js';

/**
 * Routes as the API shows them. A page of routes is read in three queries (the routes, their
 * couriers, all their stops), not two per route: the console's day of 100 couriers is one page.
 */
export async function presentRoutes(ctx: AppContext, rows: repo.RouteRow[]): Promise<Route[]> {
  const couriers = new Map(
    (await repo.couriersByIds(ctx.db, [...new Set(rows.map((r) => r.courier_id))])).map((c) => [c.id, c]),
  );
  const stops = await repo.stopsOfRoutes(
    ctx.db,
    rows.map((r) => r.id),
  );
  return rows.map((r) => ({
    id: r.id,
    object: 'route' as const,
    livemode: r.mode === 'live',
    courier: { id: r.courier_id, name: couriers.get(r.courier_id)?.name ?? '' },
    date: r.date,
    stops: (stops.get(r.id) ?? []).map((s) => ({
      position: s.position,
      order: s.order_id,
      kind: s.kind,
      tracking_code: s.tracking_code,
      status: s.status,
      address: s.kind === 'pickup' && s.pickup_address ? s.pickup_address : s.delivery_address,
      // False once the order was re-assigned to another route.
      on_route: s.route_id === r.id,
      loaded_at: s.loaded_at === null ? null : iso(s.loaded_at),
    })),
    created_at: iso(r.created_at),
  }));
}

export async function presentRoute(ctx: AppContext, r: repo.RouteRow): Promise<Route> {
  return (await presentRoutes(ctx, [r]))[0] as Route;
}

export async function getRoute(ctx: AppContext, scope: Scope, id: string): Promise<Route> {
  const r = await repo.findRoute(ctx.db, scope, id);
  if (!r) throw notFound('route', id);
  return presentRoute(ctx, r);
}

export async function listRoutes(ctx: AppContext, scope: Scope, q: RouteListQuery) {
  const limit = q.limit ?? 20;
  if (q.starting_after !== undefined && !(await repo.findRoute(ctx.db, scope, q.starting_after))) {
    throw new ApiError(
      'parameter_invalid',
      `Invalid starting_after: no such route '${q.starting_after}'.`,
      'starting_after',
    );
  }
  const rows = await repo.listRoutes(ctx.db, scope, {
    date: q.date,
    courier: q.courier,
    limit,
    after: q.starting_after,
  });
  return {
    object: 'list' as const,
    data: await presentRoutes(ctx, rows.slice(0, limit)),
    has_more: rows.length > limit,
  };
}
