import createClient, { type Middleware } from 'openapi-fetch';
import type { Action } from '../../../src/features/lifecycle/transitions.js';
import { startOfDay } from '../../../src/shared/local-time.js';
import type { components, paths } from '../api/schema';
import { shownDecimals } from './currency';
import { newUuid } from './uuid';

export type Schemas = components['schemas'];
export type Order = Schemas['Order'];
export type OrderStatus = Schemas['OrderStatus'];
export type Courier = Schemas['Courier'];
export type ApiErrorBody = Schemas['Error']['error'];

export type Mode = 'test' | 'live';

/**
 * How this tab talks to /v1. With a session (cookie), state changes carry the CSRF token; with an
 * operator or secret key (for carriers' integrators, and before sessions exist) the key is sent
 * as a bearer and kept only for this tab (sessionStorage).
 */
export interface Credentials {
  csrf: string | null;
  key: string | null;
  mode: Mode;
}

export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly body: ApiErrorBody | null,
    readonly retryAfter: string | null,
  ) {
    super(body?.message ?? `Request failed (${status})`);
  }
  get param(): string | undefined {
    return this.body?.param ?? undefined;
  }
  get code(): string | undefined {
    return this.body?.code;
  }
}

/** A new Idempotency-Key: a random UUID, also where the page is not a secure context (uuid.ts). */
export function newIdempotencyKey(): string {
  return newUuid();
}

/** One typed client per app; `creds` is read on every request, so a mode switch applies at once. */
export function makeClient(creds: () => Credentials, onUnauthorized: () => void = () => {}) {
  const client = createClient<paths>({ baseUrl: '/', credentials: 'include' });
  const auth: Middleware = {
    onRequest({ request }) {
      const c = creds();
      request.headers.set('Ruta-Mode', c.mode);
      if (c.key) request.headers.set('Authorization', `Bearer ${c.key}`);
      if (c.csrf && request.method !== 'GET' && request.method !== 'HEAD') request.headers.set('X-CSRF-Token', c.csrf);
      return request;
    },
    onResponse({ response }) {
      // The session ended (idle timeout, sign-out elsewhere, user disabled): back to sign-in.
      if (response.status === 401) onUnauthorized();
      return response;
    },
  };
  client.use(auth);
  return client;
}

/** Every page of a keyset-paged list, up to `pages` pages of 100. */
async function allPages<T extends { id: string }>(
  fetchPage: (after: string | undefined) => Promise<{ data: T[]; has_more: boolean }>,
  pages: number,
): Promise<T[]> {
  const out: T[] = [];
  let after: string | undefined;
  for (let i = 0; i < pages; i++) {
    const page = await fetchPage(after);
    out.push(...page.data);
    if (!page.has_more || page.data.length === 0) break;
    after = page.data[page.data.length - 1]?.id;
  }
  return out;
}

/**
 * Every courier of the carrier (up to 1 000, ten pages): the lists that name or pick a courier
 * (the board, an order's assign form, the couriers page, the live map) must not stop at a page.
 */
export function allCouriers(client: ReturnType<typeof makeClient>): Promise<Courier[]> {
  return allPages(
    (after) =>
      unwrap(
        client.GET('/v1/couriers', { params: { query: { limit: 100, ...(after ? { starting_after: after } : {}) } } }),
      ),
    10,
  );
}

/**
 * Every depot of the environment (up to 1 000, ten pages): the forms that pick a depot (planning,
 * a courier's start and end, an account's) and the live map must not stop at the newest 100.
 */
export function allDepots(client: ReturnType<typeof makeClient>): Promise<Schemas['Depot'][]> {
  return allPages(
    (after) =>
      unwrap(
        client.GET('/v1/depots', { params: { query: { limit: 100, ...(after ? { starting_after: after } : {}) } } }),
      ),
    10,
  );
}

/** Every route of a list query (`GET /v1/routes`: `date`, `courier`), up to `pages` pages of 100. */
export function allRoutes(
  client: ReturnType<typeof makeClient>,
  query: NonNullable<paths['/v1/routes']['get']['parameters']['query']>,
  pages: number,
): Promise<Schemas['Route'][]> {
  return allPages(
    (after) =>
      unwrap(
        client.GET('/v1/routes', {
          params: { query: { ...query, limit: 100, ...(after ? { starting_after: after } : {}) } },
        }),
      ),
    pages,
  );
}

/** Every order of a list query (`GET /v1/orders`, its filters in `query`), up to `pages` pages of 100. */
export function allOrders(
  client: ReturnType<typeof makeClient>,
  query: NonNullable<paths['/v1/orders']['get']['parameters']['query']>,
  pages: number,
): Promise<Order[]> {
  return allPages(
    (after) =>
      unwrap(
        client.GET('/v1/orders', {
          params: { query: { ...query, limit: 100, ...(after ? { starting_after: after } : {}) } },
        }),
      ),
    pages,
  );
}

/** The data of an openapi-fetch answer, or an ApiFailure carrying the Error body (and its param). */
export async function unwrap<T>(
  p: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<NonNullable<T>> {
  const { data, error, response } = await p;
  if (response.ok && data !== undefined) return data as NonNullable<T>;
  const body = (error as { error?: ApiErrorBody } | undefined)?.error ?? null;
  throw new ApiFailure(response.status, body, response.headers.get('Retry-After'));
}

export const STATUS_LABEL: Record<OrderStatus, string> = {
  pending: 'Pending',
  validated: 'Validated',
  assigned: 'Assigned',
  ready_for_pickup: 'Ready for pickup',
  picked_up: 'Picked up',
  in_transit: 'In transit',
  arriving: 'Arriving',
  at_location: 'At location',
  delivered: 'Delivered',
  partially_delivered: 'Partially delivered',
  failed: 'Failed',
  rescheduled: 'Rescheduled',
  returned: 'Returned',
  cancelled: 'Cancelled',
};

/** The buttons of the moves in the transition table (src/features/lifecycle/transitions.ts). */
export const ACTION_LABEL: Record<Action, string> = {
  validate: 'Validate',
  assign: 'Assign',
  ready: 'Ready for pickup',
  pickup: 'Picked up',
  depart: 'Depart',
  approach: 'Approaching',
  arrive: 'Arrived',
  deliver: 'Deliver',
  fail: 'Failed attempt',
  reschedule: 'Reschedule',
  return: 'Return to sender',
  cancel: 'Cancel',
};

/** Colours for statuses on the board and the map (readable on light and dark). */
export const STATUS_COLOR: Record<OrderStatus, string> = {
  pending: '#8a8f98',
  validated: '#6b7280',
  assigned: '#7c3aed',
  ready_for_pickup: '#9333ea',
  picked_up: '#2563eb',
  in_transit: '#0b5fff',
  arriving: '#0891b2',
  at_location: '#0d9488',
  delivered: '#16a34a',
  partially_delivered: '#65a30d',
  failed: '#dc2626',
  rescheduled: '#d97706',
  returned: '#b45309',
  cancelled: '#4b5563',
};

export function money(n: number | null | undefined, currency: string): string {
  if (n === null || n === undefined) return '—';
  try {
    // Ruta keeps hundredths of every currency (DESIGN §2): a peso or yen amount with cents shows
    // them, where Intl writes none and would round ("$1.501" for 1500.50 pesos: the wrong sum to
    // collect). Amounts without cents, and currencies written with cents, are left as Intl writes them.
    const digits = shownDecimals(currency);
    const cents =
      digits < 2 && Number(n.toFixed(digits)) !== n ? { minimumFractionDigits: 2, maximumFractionDigits: 2 } : {};
    return new Intl.NumberFormat(undefined, { style: 'currency', currency, ...cents }).format(n);
  } catch {
    return `${n.toFixed(2)} ${currency}`;
  }
}

/**
 * The number a route's labels print for each order (`STOP 5`, labels/service.ts): its delivery's
 * place among the route's deliveries still on it. The courier app and the console's route page show
 * the same number, so the phone, the page and the parcel in the van agree.
 */
export function labelNumbers(
  stops: readonly { order: string; kind: string; on_route: boolean }[],
): Map<string, number> {
  const out = new Map<string, number>();
  for (const s of stops) if (s.kind === 'delivery' && s.on_route) out.set(s.order, out.size + 1);
  return out;
}

/** This browser's own zone: the days of a tab signed in with a key (a key says no zone). */
export const browserZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone;

/**
 * Times of day (`HH:mm`: a time window, a shift) as a person reads them, the zone they are in named:
 * "10:00–13:00 (America/Lima)". They are wall-clock times of that zone, not instants: nothing to convert.
 */
export function hoursIn(start: string, end: string, tz: string): string {
  return `${start}–${end} (${tz})`;
}

/**
 * An instant as a person in `tz` reads it, the zone named (DESIGN §15, docs/console.md): "Nov 25,
 * 2026, 10:00 AM (America/Lima)". With `dayOnly`, the date alone.
 */
export function whenIn(iso: string | null | undefined, tz: string, dayOnly = false): string {
  if (!iso) return '—';
  const opts: Intl.DateTimeFormatOptions = dayOnly
    ? { dateStyle: 'medium' }
    : { dateStyle: 'medium', timeStyle: 'short' };
  try {
    return `${new Date(iso).toLocaleString(undefined, { ...opts, timeZone: tz })} (${tz})`;
  } catch {
    // A zone this browser does not know: its own clock, named as such, rather than an unnamed time.
    return `${new Date(iso).toLocaleString(undefined, opts)} (${browserZone()})`;
  }
}

/** A time of day in `tz` ("9:14 AM"), where the zone is named once nearby (a heading, a summary). */
export function clockIn(iso: string, tz: string): string {
  try {
    return new Date(iso).toLocaleTimeString(undefined, { timeStyle: 'short', timeZone: tz });
  } catch {
    return new Date(iso).toLocaleTimeString(undefined, { timeStyle: 'short' });
  }
}

/**
 * When an order is due, in its own zone: a day requested without a time (stored as the day's first
 * instant) shows as the day alone, "Nov 25, 2026 (America/Lima)".
 */
export function dueText(o: Pick<Order, 'requested_date' | 'requested_day' | 'timezone'>): string {
  if (!o.requested_date || !o.requested_day) return '—';
  const plainDay = Date.parse(o.requested_date) === startOfDay(o.requested_day, o.timezone);
  return whenIn(o.requested_date, o.timezone, plainDay);
}
