import type { Principal, Scope } from '../../shared/auth.js';
import { actorOf } from '../../shared/auth.js';
import type { AppContext } from '../../shared/context.js';
import { ApiError, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { addDays, dayRange, isCalendarDay, localDay, startOfDay } from '../../shared/local-time.js';
import { fromMajor, toMajor } from '../../shared/money.js';
import type { ReportCell } from '../../shared/spreadsheet.js';
import { iso } from '../../shared/time.js';
import { zoneOfScope } from '../accounts/zone.js';
import { findCourier } from '../dispatch/repo.js';
import * as repo from './cash-repo.js';
import type { CashDayLine, CashException, CashHandover, CourierCash, EndOfDay, HandoverBody } from './schemas.js';

/** The longest span of days one request reads. */
export const MAX_DAYS = 92;

/** Couriers are the carrier's people: their days are the carrier's (RUTA_DEFAULT_TIMEZONE). */
const carrierZone = (ctx: AppContext) => zoneOfScope(ctx, null);

function dayParam(value: string | undefined, param: string, fallback: string): string {
  if (value === undefined) return fallback;
  if (!isCalendarDay(value)) throw new ApiError('parameter_invalid', `Invalid ${param}: a day as YYYY-MM-DD.`, param);
  return value;
}

/**
 * A day to come has no cash yet: its zeros would read as a day counted and balanced, and a handover
 * recorded for it would count before it happened. The one refusal of a day after today, in the
 * carrier's zone, wherever a cash request names a day.
 */
function notAfterToday(day: string, param: string, today: string, zone: string): string {
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
const differenceOf = (f: Figures) => f.handed - f.expected;
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

function dayLine(f: Figures, balance: number): CashDayLine {
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
async function courierOr404(ctx: AppContext, scope: Scope, id: string) {
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

/**
 * POST /v1/couriers/{id}/cash_handovers: recorded as said, never refused for its amount (it happened).
 * It counts for `day`, a local day of the carrier's zone (as end_of_day reads days), today by
 * default: yesterday's cash corrected today counts for yesterday, not short there and over today.
 */
export async function recordHandover(
  ctx: AppContext,
  scope: Scope,
  who: Principal,
  id: string,
  body: HandoverBody,
): Promise<CashHandover> {
  const courier = await courierOr404(ctx, scope, id);
  const amount = fromMajor(body.amount);
  if (amount === undefined || amount <= 0) {
    throw new ApiError('parameter_invalid', 'Invalid amount: more than 0, at most 2 decimal places.', 'amount');
  }
  const now = ctx.clock();
  const zone = await carrierZone(ctx);
  const today = localDay(now, zone);
  const day = body.day === undefined ? today : notAfterToday(body.day, 'day', today, zone);
  const row: repo.HandoverRow = {
    id: newId('cho', now),
    mode: courier.mode,
    courier_id: courier.id,
    amount,
    currency: body.currency,
    received_by: body.received_by,
    notes: body.notes ?? null,
    day,
    created_by: actorOf(who),
    created_at: now,
    voided_at: null,
    voided_by: null,
    void_reason: null,
  };
  await repo.insertHandover(ctx.db, row);
  return presentHandover(row);
}

const alreadyVoided = (h: repo.HandoverRow) =>
  new ApiError(
    'handover_already_voided',
    `Cash handover ${h.id} is already voided${h.voided_at === null ? '' : ` (at ${iso(h.voided_at)})`}: "${h.void_reason ?? ''}". A voided handover stays voided; record a new one for the right amount.`,
    'id',
  );

/**
 * POST /v1/cash_handovers/{id}/void: a handover recorded wrong (a mistyped amount) stops counting,
 * and stays listed with when and why. Never deleted: money records are kept, as Stripe keeps a
 * voided invoice. Voiding one already voided is 409 (Stripe refuses to void a void invoice), so a
 * second click never changes the reason nor hides that someone else voided it first. Whoever may
 * record a handover may void one; a handover of a courier the caller cannot see is 404.
 */
export async function voidHandover(
  ctx: AppContext,
  scope: Scope,
  who: Principal,
  id: string,
  reason: string,
): Promise<CashHandover> {
  const h = await repo.findHandover(ctx.db, scope.mode, id);
  if (!h || !(await findCourier(ctx.db, scope, h.courier_id))) throw notFound('cash handover', id);
  if (h.voided_at !== null) throw alreadyVoided(h);
  const v = { voided_at: ctx.clock(), voided_by: actorOf(who), void_reason: reason };
  if (!(await repo.voidHandover(ctx.db, h.id, v))) {
    // Voided by another request between the read and the write: say so with its reason.
    throw alreadyVoided((await repo.findHandover(ctx.db, scope.mode, id)) ?? h);
  }
  return presentHandover({ ...h, ...v });
}

/** Every courier's figures for days [from, to], with the balance each carried out of each day. */
async function everyCourier(ctx: AppContext, mode: Scope['mode'], from: string, to: string, zone: string) {
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

/** GET /v1/cash/end_of_day: every courier's expected, collected and handed amounts of one day. */
export async function endOfDay(ctx: AppContext, scope: Scope, q: { day?: string }): Promise<EndOfDay> {
  const zone = await carrierZone(ctx);
  const today = localDay(ctx.clock(), zone);
  const day = notAfterToday(dayParam(q.day, 'day', today), 'day', today, zone);
  const { rows, names, running, hands } = await everyCourier(ctx, scope.mode, day, day, zone);
  const lines = rows.map(({ f, balance }) => ({
    courier: { id: f.courier_id, name: names.get(f.courier_id) ?? '' },
    exception: differenceOf(f) === 0 ? null : exceptionId(f.courier_id, f.day, f.currency),
    ...dayLine(f, balance),
  }));
  // A courier still holding cash from earlier days, with nothing on this one, is listed too.
  const seen = new Set(rows.map((r) => `${r.f.courier_id}\u0000${r.f.currency}`));
  const idle = [...running.entries()].filter(([k, v]) => v !== 0 && !seen.has(k));
  const idleNames = await repo.courierNames(
    ctx.db,
    scope.mode,
    idle.map(([k]) => k.split('\u0000')[0] as string),
  );
  for (const [k, v] of idle) {
    const [courier, currency] = k.split('\u0000') as [string, string];
    const f = { courier_id: courier, day, currency, deliveries: 0, expected: 0, collected: 0, handed: 0 };
    lines.push({ courier: { id: courier, name: idleNames.get(courier) ?? '' }, exception: null, ...dayLine(f, v) });
  }
  lines.sort((a, b) => a.courier.name.localeCompare(b.courier.name) || a.currency.localeCompare(b.currency));
  const handovers = hands
    .map((h) => ({ ...presentHandover(h), courier_name: names.get(h.courier_id) ?? '' }))
    .reverse();
  return { object: 'cash_end_of_day', day, timezone: zone, lines, handovers };
}

const EOD_COLUMNS = [
  'courier',
  'courier_id',
  'currency',
  'deliveries',
  'expected',
  'collected',
  'handed_over',
  'difference',
  'balance',
  'status',
  'exception',
];

/** The end of day as a table (GET /v1/cash/end_of_day/export): a header, then one row per line, as the console shows them. */
export function endOfDayTable(eod: EndOfDay): ReportCell[][] {
  return [
    EOD_COLUMNS,
    ...eod.lines.map((l) => [
      l.courier.name,
      l.courier.id,
      l.currency,
      l.deliveries,
      l.expected,
      l.collected,
      l.handed_over,
      l.difference,
      l.balance,
      l.status,
      l.exception,
    ]),
  ];
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
