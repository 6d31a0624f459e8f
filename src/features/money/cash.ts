import type { Principal, Scope } from '../../shared/auth.js';
import { actorOf } from '../../shared/auth.js';
import type { AppContext } from '../../shared/context.js';
import { ApiError, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { addDays, dayRange, isCalendarDay, localDay, startOfDay } from '../../shared/local-time.js';
import { fromMajor, toMajor } from '../../shared/money.js';
import { iso } from '../../shared/time.js';
import { zoneOfScope } from '../accounts/zone.js';
import { findCourier } from '../dispatch/repo.js';
import * as repo from './cash-repo.js';
import type { CashDayLine, CashException, CashHandover, CourierCash } from './schemas.js';

/** The longest span of days one request reads. */
export const MAX_DAYS = 92;

/** Couriers are the carrier's people: their days are the carrier's (RUTA_DEFAULT_TIMEZONE). */
export const carrierZone = (ctx: AppContext) => zoneOfScope(ctx, null);

export function dayParam(value: string | undefined, param: string, fallback: string): string {
  if (value === undefined) return fallback;
  if (!isCalendarDay(value)) throw new ApiError('parameter_invalid', `Invalid ${param}: a day as YYYY-MM-DD.`, param);
  return value;
}

/**
 * A day to come has no cash yet: its zeros would read as a day counted and balanced, and a handover
 * recorded for it would count before it happened. The one refusal of a day after today, in the
 * carrier's zone, wherever a cash request names a day.
 */
export function notAfterToday(day: string, param: string, today: string, zone: string): string {
  if (day > today) {
    throw new ApiError(
      'parameter_invalid',
      `Invalid ${param}: must be today or earlier (today is ${today} in ${zone}).`,
      param,
    );
  }
  return day;
}

export function daySpan(q: { from?: string; to?: string }, today: string, defaultDays: number) {
  const to = dayParam(q.to, 'to', today);
  const from = dayParam(q.from, 'from', addDays(to, -(defaultDays - 1)));
  if (from > to) throw new ApiError('parameter_invalid', 'Invalid from: after to.', 'from');
  if (from < addDays(to, -(MAX_DAYS - 1))) {
    throw new ApiError('parameter_invalid', `Invalid from: at most ${MAX_DAYS} days from from to to.`, 'from');
  }
  return { from, to };
}

/** A cash request's span of days: daySpan's, ending today or earlier (reports' spans may end later: orders due then). */
function cashSpan(q: { from?: string; to?: string }, today: string, zone: string, defaultDays: number) {
  const to = notAfterToday(dayParam(q.to, 'to', today), 'to', today, zone);
  return daySpan({ ...q, to }, today, defaultDays);
}

type Key = string;
const keyOf = (courier: string, day: string, currency: string): Key => `${courier}\u0000${day}\u0000${currency}`;

/** The figures of one courier, day and currency, in minor units. */
interface Figures {
  courier_id: string;
  day: string;
  currency: string;
  deliveries: number;
  expected: number;
  collected: number;
  handed: number;
}

/** Collections and handovers grouped by courier, local day and currency, oldest day first. */
function figures(zone: string, cols: repo.CollectionRow[], hands: repo.HandoverRow[]): Figures[] {
  const by = new Map<Key, Figures>();
  const at = (courier: string, day: string, currency: string) => {
    const k = keyOf(courier, day, currency);
    let f = by.get(k);
    if (!f) {
      f = { courier_id: courier, day, currency, deliveries: 0, expected: 0, collected: 0, handed: 0 };
      by.set(k, f);
    }
    return f;
  };
  for (const c of cols) {
    const f = at(c.courier_id, localDay(c.delivered_at, zone), c.currency);
    f.deliveries += 1;
    f.expected += c.expected;
    f.collected += c.collected;
  }
  // A voided handover (a wrong amount, corrected) counts for nothing: not even a line of its own.
  for (const h of hands) if (h.voided_at === null) at(h.courier_id, h.day, h.currency).handed += h.amount;
  return [...by.values()].sort(
    (a, b) =>
      a.day.localeCompare(b.day) || a.courier_id.localeCompare(b.courier_id) || a.currency.localeCompare(b.currency),
  );
}

/** handed − expected: negative short, positive over. */
export const differenceOf = (f: Figures) => f.handed - f.expected;
const statusOf = (d: number) => (d === 0 ? 'balanced' : d < 0 ? 'short' : 'over');

/** Newest day first; within a day, the order the figures came in (courier, then currency). */
const newestFirst = <T extends { day: string }>(lines: T[]): T[] =>
  lines
    .map((l, i) => ({ l, i }))
    .sort((a, b) => b.l.day.localeCompare(a.l.day) || a.i - b.i)
    .map((x) => x.l);

export const exceptionId = (courier: string, day: string, currency: string) => `cex_${courier}_${day}_${currency}`;

/** Balances carried into `fromDay`, per courier and currency: collected before it minus handed before it. */
async function carried(
  ctx: AppContext,
  who: { mode: Scope['mode']; courierId?: string },
  fromDay: string,
  zone: string,
) {
  const out = new Map<string, number>();
  for (const r of await repo.collectedBefore(ctx.db, who, startOfDay(fromDay, zone))) {
    out.set(`${r.courier_id}\u0000${r.currency}`, r.amount);
  }
  for (const r of await repo.handedBefore(ctx.db, who, fromDay)) {
    const k = `${r.courier_id}\u0000${r.currency}`;
    out.set(k, (out.get(k) ?? 0) - r.amount);
  }
  return out;
}

export function dayLine(f: Figures, balance: number): CashDayLine {
  const d = differenceOf(f);
  return {
    day: f.day,
    currency: f.currency,
    deliveries: f.deliveries,
    expected: toMajor(f.expected),
    collected: toMajor(f.collected),
    handed_over: toMajor(f.handed),
    difference: toMajor(d),
    balance: toMajor(balance),
    status: statusOf(d),
  };
}

export function presentHandover(h: repo.HandoverRow): CashHandover {
  return {
    id: h.id,
    object: 'cash_handover',
    courier: h.courier_id,
    amount: toMajor(h.amount),
    currency: h.currency,
    received_by: h.received_by,
    notes: h.notes,
    day: h.day,
    created_at: iso(h.created_at),
    voided_at: h.voided_at === null ? null : iso(h.voided_at),
    void_reason: h.void_reason,
  };
}

/** A courier visible to the caller: the carrier's any courier of its environment, a courier session itself. */
export async function courierOr404(ctx: AppContext, scope: Scope, id: string) {
  const courier = await findCourier(ctx.db, scope, id);
  if (!courier) throw notFound('courier', id);
  return courier;
}

/** GET /v1/couriers/{id}/cash: balances now, and the lines of each day of the span. */
export async function courierCash(
  ctx: AppContext,
  scope: Scope,
  id: string,
  q: { from?: string; to?: string },
): Promise<CourierCash> {
  const courier = await courierOr404(ctx, scope, id);
  const zone = await carrierZone(ctx);
  const { from, to } = cashSpan(q, localDay(ctx.clock(), zone), zone, 14);
  const who = { mode: courier.mode, courierId: courier.id };
  const cols = await repo.collections(ctx.db, who, startOfDay(from, zone), dayRange(to, zone).end);
  const hands = await repo.handovers(ctx.db, who, from, to);
  const running = await carried(ctx, who, from, zone);
  const days = figures(zone, cols, hands).map((f) => {
    const k = `${f.courier_id}\u0000${f.currency}`;
    const balance = (running.get(k) ?? 0) + f.collected - f.handed;
    running.set(k, balance);
    return dayLine(f, balance);
  });
  // Balances now: everything collected minus everything handed over, per currency.
  const now = await carried(ctx, who, '9999-12-31', zone);
  const collectedAll = await repo.collectedBefore(ctx.db, who, Number.MAX_SAFE_INTEGER);
  const handedAll = await repo.handedBefore(ctx.db, who, '9999-12-31');
  const currencies = [...new Set([...collectedAll, ...handedAll].map((r) => r.currency))].sort();
  return {
    object: 'courier_cash',
    courier: { id: courier.id, name: courier.name },
    timezone: zone,
    from,
    to,
    balances: currencies.map((currency) => ({
      currency,
      collected: toMajor(collectedAll.find((r) => r.currency === currency)?.amount ?? 0),
      handed_over: toMajor(handedAll.find((r) => r.currency === currency)?.amount ?? 0),
      balance: toMajor(now.get(`${courier.id}\u0000${currency}`) ?? 0),
    })),
    days: newestFirst(days),
    handovers: hands.map(presentHandover).reverse(),
  };
}

/** Every courier's figures for days [from, to], with the balance each carried out of each day. */
export async function everyCourier(ctx: AppContext, mode: Scope['mode'], from: string, to: string, zone: string) {
  const who = { mode };
  const cols = await repo.collections(ctx.db, who, startOfDay(from, zone), dayRange(to, zone).end);
  const hands = await repo.handovers(ctx.db, who, from, to);
  const running = await carried(ctx, who, from, zone);
  const rows = figures(zone, cols, hands).map((f) => {
    const k = `${f.courier_id}\u0000${f.currency}`;
    const balance = (running.get(k) ?? 0) + f.collected - f.handed;
    running.set(k, balance);
    return { f, balance };
  });
  const ids = [...rows.map((r) => r.f.courier_id), ...hands.map((h) => h.courier_id)];
  const names = await repo.courierNames(ctx.db, mode, [...new Set(ids)]);
  return { rows, names, running, hands };
}

/** GET /v1/cash/exceptions: the short and over days of a span ending today or earlier, newest first. */
export async function listExceptions(
  ctx: AppContext,
  scope: Scope,
  q: { from?: string; to?: string; status?: 'open' | 'resolved' },
): Promise<{ object: 'list'; data: CashException[] }> {
  const zone = await carrierZone(ctx);
  const today = localDay(ctx.clock(), zone);
  const { from, to } = cashSpan(q, today, zone, 31);
  const data = (await exceptionsOf(ctx, scope, from, to, today, zone)).filter(
    (e) => q.status === undefined || (q.status === 'resolved') === e.resolved,
  );
  return { object: 'list', data };
}

/**
 * The exceptions of days [from, to], newest first. A day is counted once it is over, or as soon as
 * cash was handed over on it (the courier came back to the depot): its short or over amount is then
 * an exception until a note resolves it.
 */
async function exceptionsOf(
  ctx: AppContext,
  scope: Scope,
  from: string,
  to: string,
  today: string,
  zone: string,
): Promise<CashException[]> {
  const { rows, names } = await everyCourier(ctx, scope.mode, from, to, zone);
  const notes = new Map(
    (await repo.resolutions(ctx.db, { mode: scope.mode }, from, to)).map((r) => [
      keyOf(r.courier_id, r.day, r.currency),
      r,
    ]),
  );
  const data = rows
    .filter(({ f }) => differenceOf(f) !== 0 && (f.day < today || f.handed > 0))
    .map(({ f, balance }) => {
      const r = notes.get(keyOf(f.courier_id, f.day, f.currency));
      const resolved = r !== undefined && r.difference === differenceOf(f);
      return {
        id: exceptionId(f.courier_id, f.day, f.currency),
        object: 'cash_exception' as const,
        courier: { id: f.courier_id, name: names.get(f.courier_id) ?? '' },
        ...dayLine(f, balance),
        kind: differenceOf(f) < 0 ? ('short' as const) : ('over' as const),
        resolved,
        resolution: r ? { note: r.note, difference: toMajor(r.difference), resolved_at: iso(r.resolved_at) } : null,
      };
    });
  return newestFirst(data);
}

const EXCEPTION_ID = /^cex_(cou_[0-9A-Za-z]+)_(\d{4}-\d{2}-\d{2})_([A-Z]{3})$/;

/** POST /v1/cash/exceptions/{id}/resolve: a note that explains the day's difference as it stands. */
export async function resolveException(
  ctx: AppContext,
  scope: Scope,
  who: Principal,
  id: string,
  note: string,
): Promise<CashException> {
  const m = EXCEPTION_ID.exec(id);
  if (!m) throw notFound('cash exception', id);
  const [, courierId, day, currency] = m as unknown as [string, string, string, string];
  const courier = await findCourier(ctx.db, scope, courierId);
  if (!courier) throw notFound('cash exception', id);
  // The day the id names, read as it stands (a day to come has none: nothing to resolve, not a bad span).
  const zone = await carrierZone(ctx);
  const found = (await exceptionsOf(ctx, scope, day, day, localDay(ctx.clock(), zone), zone)).find((e) => e.id === id);
  if (!found)
    throw new ApiError(
      'cash_balanced',
      `Nothing to resolve: ${courier.name} is balanced in ${currency} on ${day}.`,
      'id',
    );
  const now = ctx.clock();
  const difference = fromMajor(found.difference) ?? 0;
  await repo.saveResolution(ctx.db, {
    id: newId('cres', now),
    mode: courier.mode,
    courier_id: courier.id,
    day,
    currency,
    difference,
    note,
    resolved_by: actorOf(who),
    resolved_at: now,
  });
  return { ...found, resolved: true, resolution: { note, difference: found.difference, resolved_at: iso(now) } };
}
