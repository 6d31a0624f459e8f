import { useEffect, useState } from 'react';
import type { Order, OrderStatus } from '../shared/api';
import { hashQuery, setHashQuery } from './router';

/**
 * The board's filters, kept in the URL (`#/board?day=2026-07-01&by=due&status=failed&q=jose`), so a
 * reload, a bookmark or a link sent to a colleague shows the same board.
 */
export interface Filters {
  status: OrderStatus | '';
  account: string;
  /** What the day means: when the order is due (requested date, else creation), or when it was created. */
  by: 'due' | 'created';
  /** YYYY-MM-DD in the browser's time zone, or '' for every day. */
  day: string;
  search: string;
}

/** Today in the browser's time zone, as YYYY-MM-DD (what `<input type=date>` holds). */
export function today(now = new Date()): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${now.getFullYear()}-${p(now.getMonth() + 1)}-${p(now.getDate())}`;
}

/** The day's [start, end) as instants: local midnights, so a 23- or 25-hour day stays one day. */
export function dayRange(day: string): { gte: string; lt: string } | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]) - 1, Number(m[3])];
  const start = new Date(y, mo, d);
  if (Number.isNaN(start.getTime())) return null;
  return { gte: start.toISOString(), lt: new Date(y, mo, d + 1).toISOString() };
}

/** Read from the URL; a board opened without a day shows today's (DESIGN §8: the dispatcher's day). */
export function readFilters(): Filters {
  const q = hashQuery();
  const day = q.get('day');
  return {
    status: (q.get('status') ?? '') as OrderStatus | '',
    account: q.get('account') ?? '',
    by: q.get('by') === 'created' ? 'created' : 'due',
    day: day === null ? today() : day === 'all' ? '' : day,
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

/** The query both GET /v1/orders and GET /v1/orders/counts take for these filters (the counts ignore status). */
export function apiFilters(f: Filters) {
  const range = dayRange(f.day);
  const search = f.search.trim();
  return {
    ...(f.status ? { status: f.status } : {}),
    ...(f.account.trim() ? { account: f.account.trim() } : {}),
    ...(range && f.by === 'due' ? { due_gte: range.gte, due_lt: range.lt } : {}),
    ...(range && f.by === 'created' ? { created_gte: range.gte, created_lt: range.lt } : {}),
    ...(search ? { search } : {}),
  };
}

/**
 * Whether an order that changed still belongs on the board, as far as the browser can tell: its
 * status and day. The search is the server's to judge; an order already shown that changes keeps
 * matching it (names and ids do not change with a move).
 */
export function stillMatches(o: Order, f: Filters): boolean {
  if (f.status && o.status !== f.status) return false;
  const range = dayRange(f.day);
  if (!range) return true;
  const at = Date.parse(f.by === 'due' ? (o.requested_date ?? o.created_at) : o.created_at);
  return at >= Date.parse(range.gte) && at < Date.parse(range.lt);
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
