import type { Order, Schemas } from '../../shared/api';

/**
 * An order's route as a dispatcher names it: whose, which day, and which stop this order is
 * ("Cruz's route, 2026-11-25 · stop 2 of 3"), linked to the live map where routes are drawn.
 */
export function RouteName({ order, route, linked }: { order: Order; route: Schemas['Route'] | null; linked: boolean }) {
  if (!order.route) return <>—</>;
  if (!route) return <>On a route</>;
  const stops = route.stops.filter((s) => s.on_route);
  const at = stops.findIndex((s) => s.order === order.id);
  const name = `${route.courier.name}'s route, ${route.date}`;
  const stop = at >= 0 ? ` · stop ${at + 1} of ${stops.length}` : '';
  return linked ? (
    <>
      <a href="#/map">{name}</a>
      {stop}
    </>
  ) : (
    <>
      {name}
      {stop}
    </>
  );
}
