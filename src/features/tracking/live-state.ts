import type { AppContext } from '../../shared/context.js';
import { type Point, roadKm } from '../../shared/geo.js';
import { catalogOf, type Lang } from './i18n/index.js';
import { etaText, stopsText } from './page.js';
import { etaWindow } from './public.js';

// What a tracking page is told, apart from the hub that keeps the streams: a pure function of
// what the hub last read, so the rule of what a customer may see reads in one place.

export const EN_ROUTE = new Set(['picked_up', 'in_transit', 'arriving', 'at_location']);
/** Where the courier's position is the customer's to see: on its way here, no stop before. */
const POSITION_STATUSES = new Set(['in_transit', 'arriving', 'at_location']);
/** Stops still to serve before this one (as dispatch/eta.ts counts them). */
const AHEAD = new Set(['assigned', 'ready_for_pickup', 'picked_up', 'in_transit', 'arriving', 'at_location']);

/** One watched order as last read: what its page's state is made from. */
export interface WatchedOrder {
  status: string;
  rev: number;
  courierId: string | null;
  dest: Point | null;
  tz: string;
  /** Unfinished stops before this one, in route order; null: not read yet or no route. */
  ahead: (Point | null)[] | null;
  courier: Point | null;
}

/** A stop of the order's route as read, in route order. */
export interface RouteStop {
  order: string;
  status: string;
  route: string | null;
  at: Point | null;
}

/** What a page is told, before it is put in words: cheap to compute, so unchanged pages cost no rendering. */
export interface State {
  status: string;
  rev: number;
  minutes: number | null;
  window: { from: string; to: string } | null;
  stopsBefore: number | null;
  courier: Point | null;
  tz: string;
}

/** The points of the unfinished stops before `order` on its route (`WatchedOrder.ahead`). */
export function stopsAhead(stops: RouteStop[], order: string, routeId: string | null): (Point | null)[] {
  const mine = stops.findIndex((s) => s.order === order);
  return stops
    .slice(0, Math.max(0, mine))
    .filter((s) => s.route === routeId && AHEAD.has(s.status))
    .map((s) => s.at);
}

/** The page's live state: what it shows, without anything it must not. */
export function stateOf(ctx: AppContext, w: WatchedOrder): State {
  const enRoute = EN_ROUTE.has(w.status) && w.courierId !== null;
  const stopsBefore = !enRoute ? null : w.status === 'at_location' ? 0 : (w.ahead?.length ?? 0);
  const visible = POSITION_STATUSES.has(w.status) && stopsBefore === 0 && w.courier !== null;
  // At the door there is no arrival left to estimate, nor stops before it to count: the page shows neither.
  const arrived = w.status === 'at_location';
  let minutes: number | null = null;
  if (!arrived && enRoute && w.courier && w.dest && !(w.ahead ?? []).includes(null)) {
    let km = 0;
    let from = w.courier;
    for (const p of [...((w.ahead ?? []) as Point[]), w.dest]) {
      km += roadKm(from, p);
      from = p;
    }
    const cfg = ctx.config;
    minutes = Math.ceil((km / cfg.courierSpeedKmh) * 60 + cfg.serviceMinutesPerStop * (w.ahead?.length ?? 0));
  }
  return {
    status: w.status,
    rev: w.rev,
    minutes,
    window: minutes === null ? null : etaWindow(ctx.clock(), minutes),
    stopsBefore: arrived ? null : stopsBefore,
    courier: visible && w.courier ? { lat: w.courier.lat, lng: w.courier.lng } : null,
    tz: w.tz,
  };
}

/** The state in the page's language, as one SSE frame. */
export function frameOf(s: State, lang: Lang): string {
  const words = catalogOf(lang);
  const data = {
    status: s.status,
    rev: s.rev,
    eta: etaText({ eta_window: s.window, eta_minutes: s.minutes, timezone: s.tz }, words),
    stops: stopsText(s.stopsBefore, words),
    courier: s.courier,
  };
  return `event: tracking\ndata: ${JSON.stringify(data)}\n\n`;
}
