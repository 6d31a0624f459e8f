import { useCallback, useState } from 'react';
import { isFinished, ORDER_STATUSES, TERMINAL_STATUSES } from '../../../../src/features/lifecycle/transitions.js';
import { localDay } from '../../../../src/shared/local-time.js';
import type { paths } from '../../api/schema';
import { allCouriers, allPages, type Courier, type Order, type Schemas, unwrap } from '../../shared/api';
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

type OrderQuery = NonNullable<paths['/v1/orders']['get']['parameters']['query']>;

/** The statuses an order is still open in: the map shows it. */
const ACTIVE = ORDER_STATUSES.filter((s) => !TERMINAL_STATUSES.includes(s));

/**
 * What the live map shows: every open order (up to 1 000 per status), the couriers, and the routes
 * of those orders as lines in stop order, with today's routes (in `tz`) whose every stop is
 * finished, so that a courier done for the day reads "18 of 18 done".
 */
export function useMapData(client: Client, tz: string) {
  const [orders, setOrders] = useState<Order[]>([]);
  const [couriers, setCouriers] = useState<Courier[]>([]);
  const [routes, setRoutes] = useState<RouteLine[]>([]);
  const [depots, setDepots] = useState<Depot[]>([]);
  const [error, setError] = useState<unknown>(null);

  const read = useCallback(async () => {
    try {
      const day = localDay(Date.now(), tz);
      const page = (query: OrderQuery) => (after: string | undefined) =>
        unwrap(
          client.GET('/v1/orders', {
            params: { query: { ...query, limit: 100, ...(after ? { starting_after: after } : {}) } },
          }),
        );
      const [byStatus, today] = await Promise.all([
        // Every open order, whatever its day (a late one from yesterday above all): one list per
        // status, so that a day's finished orders do not crowd them out of a page.
        Promise.all(ACTIVE.map((status) => allPages(page({ status }), 10))),
        // Today's orders, finished ones too: the routes finished today, and their done stops.
        allPages(page({ due_on: day }), 10),
      ]);
      const active = byStatus.flat().sort((a, b) => (a.id < b.id ? 1 : -1));
      const seen = new Map(today.map((o) => [o.id, o]));
      const finishedRoutes = new Set(
        today.filter((o) => o.route && TERMINAL_STATUSES.includes(o.status)).map((o) => o.route as string),
      );
      const cs = await allCouriers(client);
      const byId = new Map(active.map((o) => [o.id, o]));
      // The active orders' routes first; then routes with finished orders, kept if they are today's.
      const routeIds = [
        ...new Set([...active.map((o) => o.route).filter((r): r is string => !!r), ...finishedRoutes]),
      ].slice(0, 200);
      const got = (
        await Promise.all(
          routeIds.map((id) => client.GET('/v1/routes/{id}', { params: { path: { id } } }).then((r) => r.data)),
        )
      ).filter((r) => r && (r.date === day || r.stops.some((s) => s.on_route && byId.has(s.order))));
      // A route's finished stops are no longer active orders: take them from today's orders, else
      // read them (a stop due another day), to draw them dimmed and to count the courier's progress.
      const missing = new Set<string>();
      for (const s of got.flatMap((r) => r?.stops ?? [])) {
        if (!s.on_route || byId.has(s.order)) continue;
        const o = seen.get(s.order);
        if (o) byId.set(o.id, o);
        else missing.add(s.order);
      }
      const extra = await Promise.all(
        [...missing]
          .slice(0, 300)
          .map((id) => client.GET('/v1/orders/{id}', { params: { path: { id } } }).then((r) => r.data)),
      );
      for (const o of extra) if (o) byId.set(o.id, o);
      const lines: RouteLine[] = [];
      for (const data of got) {
        if (!data) continue;
        const stops = data.stops
          .filter((s) => s.on_route)
          .map((s) => byId.get(s.order))
          .filter((o): o is Order => !!o)
          .map((o) => ({ order: o, pos: positionOf(o), done: isFinished(o.status) }));
        const points = stops.map((s) => s.pos).filter((p): p is [number, number] => p !== null);
        lines.push({ id: data.id, courierId: data.courier.id, courier: data.courier.name, points, stops });
      }
      const ds = await client.GET('/v1/depots', { params: { query: { limit: 100 } } });
      // All four in one render (React batches these): each render redraws every marker, and the
      // first drawing fits the view to orders and couriers together.
      setOrders(active);
      setCouriers(cs);
      setRoutes(lines);
      setDepots(ds.data?.data ?? []);
      setError(null);
    } catch (e) {
      setError(e);
    }
  }, [client, tz]);
  // One read at a time (the stream's first open, then order events): shared/serial.ts.
  const load = useSerial(read);

  const refreshCouriers = useCallback(async () => {
    try {
      setCouriers(await allCouriers(client));
    } catch {
      // A failed read keeps the couriers shown: the next ping or poll reads again.
    }
  }, [client]);

  return { orders, couriers, routes, depots, error, load, refreshCouriers };
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
  // The time itself in the user's zone (the carrier's, else the browser's), named.
  const at = new Date(recordedAt).toLocaleTimeString([], {
    hour: '2-digit',
    minute: '2-digit',
    timeZoneName: 'short',
    ...(tz ? { timeZone: tz } : {}),
  });
  return { text: `last seen ${text}`, stale: ms > STALE_MS, at };
}
