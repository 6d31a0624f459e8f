import type { Scope } from '../../shared/auth.js';
import type { AppContext } from '../../shared/context.js';
import { COURIER_ACTIVE_STATUSES, TERMINAL_STATUSES } from '../../shared/db/tables/orders.js';
import { ApiError, notFound } from '../../shared/errors.js';
import { formatMoney, money } from '../../shared/money.js';
import { accountById } from '../accounts/service.js';
import { findRoute } from '../dispatch/repo.js';
import { presentOrder } from '../orders/present.js';
import type { OrderRow } from '../orders/repo.js';
import type { Order } from '../orders/schemas.js';
import { resolveOrder } from '../orders/service.js';
import type { Label } from './pdf.js';
import * as repo from './repo.js';

/** A PDF to send: its stream and the file name it downloads as. */
export interface Pdf {
  doc: PDFKit.PDFDocument;
  filename: string;
}

/** The merchant's name as its customers know it: the tracking page's brand, else the account's name. */
async function merchantName(ctx: AppContext, accountId: string, names: Map<string, string>): Promise<string> {
  let name = names.get(accountId);
  if (name === undefined) {
    const account = await accountById(ctx, accountId);
    name = account?.brand_name ?? account?.name ?? '';
    names.set(accountId, name);
  }
  return name;
}

function labelOf(o: OrderRow, merchant: string, stop?: Label['stop']): Label {
  const a = o.delivery_address;
  const place = [a.district, a.city, a.department].filter((s): s is string => !!s).join(', ');
  const address = [a.address, place, a.reference ? `Ref: ${a.reference}` : ''].filter((s) => s !== '');
  return {
    trackingCode: o.tracking_code,
    merchant,
    customer: o.customer.name,
    phone: o.customer.phone ?? null,
    address,
    cod: o.cash_on_delivery > 0 ? `Collect ${formatMoney(money(o.cash_on_delivery, o.currency))}` : null,
    packages: o.packages,
    ...(stop ? { stop } : {}),
  };
}

/**
 * pdfkit and bwip-js are loaded on the first label asked for, not at start: together about 14 MB
 * of the resident set of every server, most of which never prints one (BENCHMARKS.md, "Memory").
 */
async function render(labels: Label[], title: string) {
  const { renderLabels } = await import('./pdf.js');
  return renderLabels(labels, title);
}

/** One order's label, for whoever may read the order (its merchant, the carrier, its courier). */
export async function orderLabel(ctx: AppContext, scope: Scope, id: string): Promise<Pdf> {
  const o = await resolveOrder(ctx, scope, id);
  const label = labelOf(o, await merchantName(ctx, o.account_id, new Map()));
  return { doc: await render([label], `Label ${o.tracking_code}`), filename: `label-${o.tracking_code}.pdf` };
}

/**
 * A label per parcel still to deliver on the route, in stop order, each with its stop number. The
 * numbers count every parcel on the route, finished ones too, so a reprint mid-day says "STOP 3 of
 * 5" as the first print and the phone do; a delivered parcel needs no label any more.
 */
export async function routeLabels(ctx: AppContext, scope: Scope, id: string): Promise<Pdf> {
  const route = await findRoute(ctx.db, scope, id);
  if (!route) throw notFound('route', id);
  const onRoute = await repo.ordersOnRoute(ctx.db, route.id);
  const stops = onRoute
    .map((s, i) => ({ order: s.order, stop: { position: i + 1, of: onRoute.length } }))
    .filter((s) => !TERMINAL_STATUSES.includes(s.order.status));
  if (stops.length === 0) {
    throw new ApiError(
      'invalid_transition',
      `Route '${route.id}' has no parcels left to deliver: there is nothing to label.`,
    );
  }
  const names = new Map<string, string>();
  const labels: Label[] = [];
  for (const s of stops) labels.push(labelOf(s.order, await merchantName(ctx, s.order.account_id, names), s.stop));
  return { doc: await render(labels, `Route ${route.id}`), filename: `labels-${route.id}.pdf` };
}

const LOADABLE: readonly string[] = COURIER_ACTIVE_STATUSES;

/**
 * The scan that puts a parcel in the vehicle (docs/labels.md). Only a parcel that is a courier's
 * to carry (assigned, not yet finished) can be loaded; its status stays as it was, and the answer
 * is the order (with `loaded_at`), like every move's, so the phone's queue treats it as one.
 */
export async function load(ctx: AppContext, scope: Scope, id: string): Promise<Order> {
  const o = await resolveOrder(ctx, scope, id);
  if (!LOADABLE.includes(o.status) || o.courier_id === null) {
    throw new ApiError(
      'invalid_transition',
      `Order '${o.id}' is ${o.status}: only an order assigned to a courier and not yet finished can be loaded.`,
    );
  }
  await repo.markLoaded(ctx.db, o.id, ctx.clock());
  return presentOrder(await resolveOrder(ctx, scope, o.id));
}
