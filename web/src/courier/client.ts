import { type Action, ON_BOARD_STATUSES, TERMINAL_STATUSES } from '../../../src/features/lifecycle/transitions.js';
import { allOrders, type Credentials, labelNumbers, makeClient, type Order, type Schemas, unwrap } from '../shared/api';
import type { Fix, LocationTransport } from './points';
import type { Answer, FileEntry, MoveEntry, Transport } from './queue';

/** Who is signed in on this phone: what POST /v1/courier_session answered (kept in localStorage). */
export type CourierMe = Pick<Schemas['CourierSession'], 'courier'> & { csrf_token?: string };

/** The generated API client (web/src/api/schema.d.ts), as the console's, with the courier session's credentials. */
export function courierClient(me: () => CourierMe | null) {
  return makeClient(() => credentialsOf(me()));
}
export type CourierClient = ReturnType<typeof courierClient>;

function credentialsOf(me: CourierMe | null): Credentials {
  // A courier session acts in its own environment; Ruta-Mode only says which one, for the logs.
  return { csrf: me?.csrf_token ?? null, key: null, mode: me?.courier.livemode ? 'live' : 'test' };
}

/** An openapi-fetch answer as the outbox reads it: the status, and the data or the Error body. */
async function answer(p: Promise<{ data?: unknown; error?: unknown; response: Response }>): Promise<Answer> {
  const { data, error, response } = await p;
  return { status: response.status, json: data ?? error ?? null };
}

/** The moves a phone sends, and `load`, the scan that marks a parcel loaded (not a status change). */
type CourierMove = Extract<Action, 'ready' | 'pickup' | 'depart' | 'approach' | 'arrive' | 'deliver' | 'fail'>;

/** The outbox's sender: uploads and moves, each with the Idempotency-Key it was queued with. */
export function outboxTransport(client: CourierClient): Transport {
  return {
    upload: (e: FileEntry) =>
      answer(
        client.POST('/v1/files', {
          params: { query: { purpose: e.purpose } },
          body: e.blob as never,
          bodySerializer: () => e.blob,
          headers: { 'Idempotency-Key': e.idempotencyKey, 'Content-Type': e.blob.type },
        }),
      ),
    move: (e: MoveEntry, body: Record<string, unknown>) =>
      answer(
        client.POST(`/v1/orders/{id}/${e.action as CourierMove | 'load'}`, {
          params: { path: { id: e.orderId } },
          body: body as never,
          headers: { 'Idempotency-Key': e.idempotencyKey },
        }),
      ),
  };
}

/** The location sender's two routes: the batch, and the single point for a server without it. */
export function locationTransport(client: CourierClient): LocationTransport {
  return {
    batch: (id: string, points: Fix[]) =>
      answer(client.POST('/v1/couriers/{id}/locations', { params: { path: { id } }, body: { points } })),
    single: (id: string, p: Fix) =>
      answer(
        client.POST('/v1/couriers/{id}/location', {
          params: { path: { id } },
          body: { lat: p.lat, lng: p.lng, recorded_at: p.recorded_at },
        }),
      ),
  };
}

/** The package is with the courier: the customer's phone and full address are shown, the fail move applies. */
export const isActive = (status: string) => (ON_BOARD_STATUSES as readonly string[]).includes(status);

/**
 * An order of the courier's route with its places as last read: `stop_at` its delivery's,
 * `pickup_at` its pickup's when it is a pickup-and-delivery order (collected at its pickup_address),
 * both for sorting; `stop_no` the number its route label prints (`STOP 5`): its place among the
 * route's deliveries, which stays the same as stops are done.
 */
export type RouteOrder = Order & { stop_at?: number; pickup_at?: number; stop_no?: number };

/**
 * Today's stops in route order: the orders the courier session can read (its unfinished assigned
 * orders), each route's stop order from GET /v1/routes/{id}, orders without a route last.
 */
export async function loadStops(client: CourierClient, me: CourierMe): Promise<RouteOrder[]> {
  // Every page: a parcel route often has more than the 100 stops a page holds (a route takes 200).
  const all = await allOrders(client, {}, 20);
  const mine = all.filter(
    (o) => (!o.courier || o.courier.id === me.courier.id) && !TERMINAL_STATUSES.includes(o.status),
  );
  const position = new Map<string, number>();
  const pickup = new Map<string, number>();
  const label = new Map<string, number>();
  const routeIds = [...new Set(mine.map((o) => o.route).filter((r): r is string => !!r))];
  const routes = (
    await Promise.all(
      routeIds.map((id) => unwrap(client.GET('/v1/routes/{id}', { params: { path: { id } } })).catch(() => null)),
    )
  ).filter((r) => r !== null);
  // A courier with two routes (a morning and an afternoon wave) runs them in order: by day, then as
  // they were made. The order list is newest first, which put the later wave first.
  routes.sort((a, b) => a.date.localeCompare(b.date) || a.created_at.localeCompare(b.created_at));
  let base = 0;
  for (const r of routes) {
    for (const s of r.stops) (s.kind === 'pickup' ? pickup : position).set(s.order, base + s.position);
    for (const [order, n] of labelNumbers(r.stops)) label.set(order, n);
    base += r.stops.length + 1;
  }
  return mine
    .map(
      (o): RouteOrder => ({ ...o, stop_at: position.get(o.id), pickup_at: pickup.get(o.id), stop_no: label.get(o.id) }),
    )
    .sort((a, b) => (a.stop_at ?? 1e9) - (b.stop_at ?? 1e9) || (a.created_at < b.created_at ? -1 : 1));
}

/**
 * What the courier finished today as the server knows it, from every phone and from dispatch:
 * the order list shows a courier its unfinished orders only (DESIGN §9).
 */
export async function loadDone(client: CourierClient, me: CourierMe): Promise<Schemas['DoneStop'][]> {
  const list = await unwrap(client.GET('/v1/couriers/{id}/done_today', { params: { path: { id: me.courier.id } } }));
  return list.data;
}
