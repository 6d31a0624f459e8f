import { useCallback, useRef, useState } from 'react';
import { isFinished, ORDER_STATUSES, TERMINAL_STATUSES } from '../../../../src/features/lifecycle/transitions.js';
import { localDay } from '../../../../src/shared/local-time.js';
import { allCouriers, allDepots, allOrders, allRoutes, type Courier, type Order, type Schemas } from '../../shared/api';
import { useSerial } from '../../shared/serial';
import type { useSession } from '../session';

type Client = ReturnType<typeof useSession>['client'];

export type Depot = Schemas['Depot'];

/** A stop of a route on the map: finished ones stay (dimmed), open ones may be late. */
export interface RouteStopView {
  order: Order;
  pos: [number, number] | null;
  done: boolean;
}

export interface RouteLine {
  id: string;
  courierId: string;
  courier: string;
  points: [number, number][];
  stops: RouteStopView[];
}

export function positionOf(o: Order): [number, number] | null {
  const { lat, lng } = o.delivery_address;
  return typeof lat === 'number' && typeof lng === 'number' ? [lat, lng] : null;
}

/**
 * A route's line from its stops (those still on it, in stop order) and the orders known by id; a
 * line drawn before (`stops` of orders) is drawn again with the known orders' new states.
 */
function lineOf(r: Schemas['Route'] | RouteLine, byId: Map<string, Order>): RouteLine {
  const ids = 'courierId' in r ? r.stops.map((s) => s.order.id) : r.stops.filter((s) => s.on_route).map((s) => s.order);
  const stops = ids
    .map((id) => byId.get(id))
    .filter((o): o is Order => !!o)
    .map((o) => ({ order: o, pos: positionOf(o), done: isFinished(o.status) }));
  const points = stops.map((s) => s.pos).filter((p): p is [number, number] => p !== null);
  const [courierId, courier] = 'courierId' in r ? [r.courierId, r.courier] : [r.courier.id, r.courier.name];
  return { id: r.id, courierId, courier, points, stops };
}

/** The orders of these ids, each read once; one that cannot be read is left out. */
async function ordersById(client: Client, ids: Iterable<string>): Promise<Order[]> {
  const got = await Promise.all(
    [...new Set(ids)].map((id) => client.GET('/v1/orders/{id}', { params: { path: { id } } }).then((r) => r.data)),
  );
  return got.filter((o): o is Order => !!o);
}

/** The routes of these ids, in their order; a route that cannot be read is undefined. */
function routesById(client: Client, ids: string[]): Promise<(Schemas['Route'] | undefined)[]> {
  return Promise.all(ids.map((id) => client.GET('/v1/routes/{id}', { params: { path: { id } } }).then((r) => r.data)));
}

/** A route the map draws: today's (in the user's zone), or one with a stop still open. */
const drawn = (r: Schemas['Route'], day: string, open: (order: string) => boolean) =>
  r.date === day || r.stops.some((s) => s.on_route && open(s.order));

/** The statuses an order is still open in: the map shows it. */
const ACTIVE = ORDER_STATUSES.filter((s) => !TERMINAL_STATUSES.includes(s));

/**
 * What the live map shows: every open order (up to 1 000 per status, and those due today up to
 * 1 000 more), the couriers, and the routes of those orders as lines in stop order, with today's
 * routes (in `tz`) whose every stop is finished, so that a courier done for the day reads "18 of 18
 * done".
 */
export function useMapData(client: Client, tz: string) {
  const [orders, setOrders] = useState<Order[]>([]);
  const [couriers, setCouriers] = useState<Courier[]>([]);
  const [routes, setRoutes] = useState<RouteLine[]>([]);
  const [depots, setDepots] = useState<Depot[]>([]);
  const [error, setError] = useState<unknown>(null);
  // What is on the map now, for an event's update to start from (the state of the last render may
  // be older than the last read).
  const shown = useRef<{ orders: Order[]; routes: RouteLine[] }>({ orders: [], routes: [] });

  const read = useCallback(async () => {
    try {
      const day = localDay(Date.now(), tz);
      const [byStatus, today] = await Promise.all([
        // Every open order, whatever its day (a late one from yesterday above all): one list per
        // status, so that a day's finished orders do not crowd them out of a page.
        Promise.all(ACTIVE.map((status) => allOrders(client, { status }, 10))),
        // Today's orders, finished ones too: the routes finished today, and their done stops.
        allOrders(client, { due_on: day }, 10),
      ]);
      // Today's open orders too, whatever the lists above held: they stop at the newest 1 000 of a
      // status, which a merchant's import of a later day fills, and today's unassigned orders were
      // then nowhere on the map to assign.
      const listedIds = new Set(byStatus.flat().map((o) => o.id));
      const openToday = today.filter((o) => ACTIVE.includes(o.status) && !listedIds.has(o.id));
      const active = [...byStatus.flat(), ...openToday].sort((a, b) => (a.id < b.id ? 1 : -1));
      const seen = new Map(today.map((o) => [o.id, o]));
      const finishedRoutes = new Set(
        today.filter((o) => o.route && TERMINAL_STATUSES.includes(o.status)).map((o) => o.route as string),
      );
      // Today's routes in one list (up to 1 000) that still hold a stop; then, one by one, the routes
      // of open orders that are not today's (an earlier day's, or made without a date), up to 200.
      const [cs, todays] = await Promise.all([allCouriers(client), allRoutes(client, { date: day }, 10)]);
      const listed = todays.filter((r) => r.stops.some((s) => s.on_route));
      const known = new Set(todays.map((r) => r.id));
      const byId = new Map(active.map((o) => [o.id, o]));
      const others = [
        ...new Set([...active.map((o) => o.route).filter((r): r is string => !!r), ...finishedRoutes]),
      ].filter((id) => !known.has(id));
      const got = [...listed, ...(await routesById(client, others.slice(0, 200)))].filter(
        (r): r is Schemas['Route'] => !!r && drawn(r, day, (id) => byId.has(id)),
      );
      // A route's finished stops are no longer active orders: take them from today's orders, else
      // read them (a stop due another day), to draw them dimmed and to count the courier's progress.
      const missing = new Set<string>();
      for (const s of got.flatMap((r) => r.stops)) {
        if (!s.on_route || byId.has(s.order)) continue;
        const o = seen.get(s.order);
        if (o) byId.set(o.id, o);
        else missing.add(s.order);
      }
      for (const o of await ordersById(client, [...missing].slice(0, 300))) byId.set(o.id, o);
      const lines = got.map((r) => lineOf(r, byId));
      const ds = await allDepots(client);
      // All four in one render (React batches these): each render redraws every marker, and the
      // first drawing fits the view to orders and couriers together.
      shown.current = { orders: active, routes: lines };
      setOrders(active);
      setCouriers(cs);
      setRoutes(lines);
      setDepots(ds);
      setError(null);
    } catch (e) {
      setError(e);
    }
  }, [client, tz]);

  /**
   * The orders an event named, and only them: each is read again, and the routes it left or joined
   * (the rest keep their lines, with its new status). Reading the whole map again on each event
   * moved megabytes a minute on a busy day.
   */
  const apply = useCallback(
    async (ids: string[]) => {
      try {
        const fresh = await ordersById(client, ids);
        const now = shown.current;
        const known = new Map<string, Order>();
        for (const r of now.routes) for (const st of r.stops) known.set(st.order.id, st.order);
        for (const o of now.orders) known.set(o.id, o);
        const touched = new Set<string>();
        for (const o of fresh) {
          const before = known.get(o.id)?.route;
          if (before) touched.add(before);
          if (o.route) touched.add(o.route);
          known.set(o.id, o);
        }
        const byId = new Map(fresh.map((o) => [o.id, o]));
        const open = (o: Order) => !TERMINAL_STATUSES.includes(o.status);
        const orders = [
          ...fresh.filter((o) => open(o) && !now.orders.some((x) => x.id === o.id)),
          ...now.orders.map((o) => byId.get(o.id) ?? o).filter(open),
        ];
        const day = localDay(Date.now(), tz);
        const read = await routesById(client, [...touched]);
        const missing = read.flatMap((r) => r?.stops.filter((s) => s.on_route && !known.has(s.order)) ?? []);
        for (const o of await ordersById(
          client,
          missing.map((s) => s.order),
        ))
          known.set(o.id, o);
        const openIds = new Set(orders.map((o) => o.id));
        const got = new Map([...touched].map((id, i) => [id, read[i]]));
        // A route read that failed keeps its line; one read that is no longer today's or open leaves.
        const keep = (r: Schemas['Route']) => drawn(r, day, (id) => openIds.has(id));
        const routes: RouteLine[] = [];
        for (const l of now.routes) {
          const r = got.get(l.id);
          if (!r) routes.push(lineOf(l, known));
          else if (keep(r)) routes.push(lineOf(r, known));
        }
        for (const r of read) if (r && keep(r) && !now.routes.some((l) => l.id === r.id)) routes.push(lineOf(r, known));
        shown.current = { orders, routes };
        setOrders(orders);
        setRoutes(routes);
      } catch (e) {
        setError(e);
      }
    },
    [client, tz],
  );

  // One read at a time (the stream's first open, then order events): shared/serial.ts. A burst
  // (an import, a plan committed) reads the whole map once instead of each order.
  const pending = useRef<{ full: boolean; ids: Set<string> }>({ full: true, ids: new Set() });
  const serial = useSerial(
    useCallback(async () => {
      const p = pending.current;
      pending.current = { full: false, ids: new Set() };
      if (p.full || p.ids.size > 20) await read();
      else if (p.ids.size > 0) await apply([...p.ids]);
    }, [read, apply]),
  );
  const load = useCallback(() => {
    pending.current.full = true;
    return serial();
  }, [serial]);
  const changed = useCallback(
    (id: string) => {
      pending.current.ids.add(id);
      return serial();
    },
    [serial],
  );

  const refreshCouriers = useCallback(async () => {
    try {
      setCouriers(await allCouriers(client));
    } catch {
      // A failed read keeps the couriers shown: the next ping or poll reads again.
    }
  }, [client]);

  return { orders, couriers, routes, depots, error, load, changed, refreshCouriers };
}

/**
 * An open stop whose window has closed: its day (requested, else today) and window end are read in
 * the order's own zone, against now.
 */
export function isLate(o: Order, now: number): boolean {
  if (isFinished(o.status)) return false;
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', {
      timeZone: o.timezone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    })
      .formatToParts(now)
      .map((p) => [p.type, p.value]),
  );
  const today = `${parts.year}-${parts.month}-${parts.day}`;
  const day = o.requested_day ?? today;
  if (day < today) return true;
  return day === today && !!o.time_window && `${parts.hour}:${parts.minute}` > o.time_window.end;
}

/** "last seen 12 min ago": how long since a courier's last position, and whether it is stale. */
export const STALE_MS = 10 * 60_000;
export function lastSeen(recordedAt: string, now: number, tz?: string): { text: string; stale: boolean; at: string } {
  const ms = Math.max(0, now - Date.parse(recordedAt));
  const min = Math.floor(ms / 60_000);
  const text =
    min < 1 ? 'just now' : min < 60 ? `${min} min ago` : min < 48 * 60 ? `${Math.floor(min / 60)} h ago` : 'days ago';
  // The time itself in the user's zone (the carrier's), named as every other time of the console
  // names it ("08:44 PM America/Lima"); without one, the browser's, by its short name.
  const at = tz
    ? `${new Date(recordedAt).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', timeZone: tz })} ${tz}`
    : new Date(recordedAt).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', timeZoneName: 'short' });
  return { text: `last seen ${text}`, stale: ms > STALE_MS, at };
}
