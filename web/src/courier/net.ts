import type { Order } from '../shared/api';
import { ApiFailure } from '../shared/api';
import type { Sender } from './queue';

export interface CourierMe {
  courier: { id: string; name: string; livemode?: boolean };
  csrf_token?: string;
}

const ME = 'ruta.courier.me';
const STOPS = 'ruta.courier.stops';

/** Who is signed in on this phone, remembered so that the app opens offline. */
export function savedMe(): CourierMe | null {
  try {
    return JSON.parse(localStorage.getItem(ME) ?? 'null') as CourierMe | null;
  } catch {
    return null;
  }
}

export function saveMe(me: CourierMe | null): void {
  if (me) localStorage.setItem(ME, JSON.stringify(me));
  else {
    localStorage.removeItem(ME);
    localStorage.removeItem(STOPS);
  }
}

export function savedStops(): Order[] {
  try {
    return JSON.parse(localStorage.getItem(STOPS) ?? '[]') as Order[];
  } catch {
    return [];
  }
}

export function saveStops(stops: Order[]): void {
  localStorage.setItem(STOPS, JSON.stringify(stops));
}

function headers(me: CourierMe | null, extra: Record<string, string> = {}): Record<string, string> {
  const h: Record<string, string> = { ...extra };
  if (me?.courier.livemode !== undefined) h['Ruta-Mode'] = me.courier.livemode ? 'live' : 'test';
  if (me?.csrf_token) h['X-CSRF-Token'] = me.csrf_token;
  return h;
}

export async function api<T>(me: CourierMe | null, method: string, url: string, body?: unknown): Promise<T> {
  const res = await fetch(url, {
    method,
    credentials: 'include',
    headers: headers(me, body === undefined ? {} : { 'Content-Type': 'application/json' }),
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  const json = text ? (JSON.parse(text) as unknown) : null;
  if (!res.ok)
    throw new ApiFailure(res.status, (json as { error?: never } | null)?.error ?? null, res.headers.get('Retry-After'));
  return json as T;
}

/** The queue's sender: fetch with the session's cookie and CSRF token. */
export function sender(me: () => CourierMe | null): Sender {
  return async (method, url, body, extra) => {
    const res = await fetch(url, {
      method,
      credentials: 'include',
      headers: headers(me(), extra),
      body: body instanceof Blob ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let json: unknown = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {}
    return { status: res.status, json };
  };
}

const ACTIVE = ['picked_up', 'in_transit', 'arriving', 'at_location'];
export const isActive = (status: string) => ACTIVE.includes(status);

/**
 * Today's stops in route order: the orders the courier session can read (its unfinished assigned
 * orders), each route's stop order from GET /v1/routes/{id}, orders without a route last.
 */
export async function loadStops(me: CourierMe): Promise<Order[]> {
  const page = await api<{ data: Order[] }>(me, 'GET', '/v1/orders?limit=100');
  const mine = page.data.filter(
    (o) =>
      (!o.courier || o.courier.id === me.courier.id) &&
      !['delivered', 'partially_delivered', 'returned', 'cancelled'].includes(o.status),
  );
  const position = new Map<string, number>();
  const routeIds = [...new Set(mine.map((o) => o.route).filter((r): r is string => !!r))];
  let base = 0;
  for (const id of routeIds) {
    try {
      const r = await api<{ stops: { order: string; position: number }[] }>(me, 'GET', `/v1/routes/${id}`);
      for (const s of r.stops) position.set(s.order, base + s.position);
      base += r.stops.length + 1;
    } catch {}
  }
  return mine.sort(
    (a, b) => (position.get(a.id) ?? 1e9) - (position.get(b.id) ?? 1e9) || (a.created_at < b.created_at ? -1 : 1),
  );
}
