import { useEffect, useState } from 'react';
import { isCalendarDay, localDay, dayRange as zoneDayRange } from '../../../../src/shared/local-time.js';
import type { Order, OrderStatus } from '../../shared/api';
import { hashQuery, setHashQuery } from '../router';

/**
 * The board's filters, kept in the URL (`#/board?day=2026-07-01&by=due&status=failed&q=jose`), so a
 * reload, a bookmark or a link sent to a colleague shows the same board.
 */
export interface Filters {
  status: OrderStatus | '';
  account: string;
  /** What the day means: when the order is due (requested date, else creation), or when it was created. */
  by: 'due' | 'created';
  /**
   * YYYY-MM-DD, or '' for every day. A due day is each order's own local day (its requested_day,
   * in its zone); a creation day is a day in the user's zone (`tz` below).
   */
  day: string;
  search: string;
}

/** Today in `tz` (the user's zone: the carrier's, or a merchant's account's), as `<input type=date>` holds it. */
export function today(tz: string, now = Date.now()): string {
  return localDay(now, tz);
}

/** The day's [start, end) in `tz` as instants: so a 23- or 25-hour day stays one day. */
export function dayRange(day: string, tz: string): { gte: string; lt: string } | null {
  if (!isCalendarDay(day)) return null;
  const { start, end } = zoneDayRange(day, tz);
  return { gte: new Date(start).toISOString(), lt: new Date(end).toISOString() };
}

/** Read from the URL; a board opened without a day shows today's in `tz` (DESIGN §8: the dispatcher's day). */
export function readFilters(tz: string): Filters {
  const q = hashQuery();
  const day = q.get('day');
  return {
    status: (q.get('status') ?? '') as OrderStatus | '',
    account: q.get('account') ?? '',
    by: q.get('by') === 'created' ? 'created' : 'due',
    day: day === null ? today(tz) : day === 'all' ? '' : day,
    search: q.get('q') ?? '',
  };
}

export function writeFilters(f: Filters): void {
  const q = new URLSearchParams();
  q.set('day', f.day || 'all');
  if (f.by !== 'due') q.set('by', f.by);
  if (f.status) q.set('status', f.status);
  if (f.account.trim()) q.set('account', f.account.trim());
  if (f.search.trim()) q.set('q', f.search.trim());
  setHashQuery(q);
}

/**
 * The query both GET /v1/orders and GET /v1/orders/counts take for these filters (the counts ignore
 * status): a due day is `due_on` (each order's own local day), a creation day the day's instants in `tz`.
 */
export function apiFilters(f: Filters, tz: string) {
  const range = f.by === 'created' ? dayRange(f.day, tz) : null;
  const search = f.search.trim();
  return {
    ...(f.status ? { status: f.status } : {}),
    ...(f.account.trim() ? { account: f.account.trim() } : {}),
    ...(f.by === 'due' && isCalendarDay(f.day) ? { due_on: f.day } : {}),
    ...(range ? { created_gte: range.gte, created_lt: range.lt } : {}),
    ...(search ? { search } : {}),
  };
}

/** The local day an order is due, as the server's `due_on` reads it: requested, else created, in its zone. */
export const dueDay = (o: Pick<Order, 'requested_day' | 'created_at' | 'timezone'>): string =>
  o.requested_day ?? localDay(Date.parse(o.created_at), o.timezone);

/**
 * Whether an order that changed still belongs on the board, as far as the browser can tell: its
 * status and day. The search is the server's to judge; an order already shown that changes keeps
 * matching it (names and ids do not change with a move).
 */
export function stillMatches(o: Order, f: Filters, tz: string): boolean {
  if (f.status && o.status !== f.status) return false;
  if (!isCalendarDay(f.day)) return true;
  if (f.by === 'due') return dueDay(o) === f.day;
  return localDay(Date.parse(o.created_at), tz) === f.day;
}

/** `value`, once it has stopped changing for `ms`: the search box asks the server after typing pauses. */
export function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}
