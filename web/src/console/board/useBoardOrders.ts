import { useCallback, useEffect, useRef, useState } from 'react';
import { type Order, unwrap } from '../../shared/api';
import { streamable, useBatched, useLive } from '../live';
import { useSession } from '../session';
import { apiFilters, type Filters, stillMatches, useDebounced } from './board-filters';

const PAGE = 100;

export type Counts = { total: number; counts: Record<string, number> };

/** Newest first, as the API lists them (created_at desc, then id desc). */
function byNewest(a: Order, b: Order): number {
  return a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : a.id < b.id ? 1 : -1;
}

/**
 * The board's orders for `filters` (keyset pages of 100, `loadMore` for the next) and their counts
 * per status, both kept current by the stream (or polling). `onArrived` hears of orders a refresh
 * found that were not loaded yet (auto-dispatch's suggest).
 */
export function useBoardOrders(filters: Filters, tz: string, onArrived: (arrived: Order[]) => void) {
  const session = useSession();
  const { client } = session;
  const [orders, setOrders] = useState<Order[]>([]);
  const [more, setMore] = useState(true);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [counts, setCounts] = useState<Counts | null>(null);
  const busy = useRef(false);

  // Typing asks the server once it pauses; every other control applies at once.
  const search = useDebounced(filters.search, 300);
  const applied = { ...filters, search };
  const shared = JSON.stringify(apiFilters(applied, tz));
  // Keyed on the filters' value (`shared`), so a render with equal filters keeps the same query.
  const query = useCallback(
    (after?: string) => ({ limit: PAGE, ...(after ? { starting_after: after } : {}), ...JSON.parse(shared) }),
    [shared],
  );

  // Each reset (a filter change) starts a new generation; answers of an older one are dropped, so a
  // slow first page never overwrites the filtered one, and a filter change is never skipped.
  const generation = useRef(0);
  const loadMore = useCallback(
    async (reset = false) => {
      if (!reset && busy.current) return;
      const mine = reset ? ++generation.current : generation.current;
      busy.current = true;
      setLoading(true);
      try {
        const last = reset ? undefined : orders[orders.length - 1]?.id;
        const page = await unwrap(client.GET('/v1/orders', { params: { query: query(last) } }));
        if (mine !== generation.current) return;
        setOrders((prev) => (reset ? page.data : [...prev, ...page.data]));
        setMore(page.has_more);
        setError(null);
      } catch (e) {
        if (mine === generation.current) {
          setError(e);
          setMore(false);
        }
      } finally {
        if (mine === generation.current) {
          busy.current = false;
          setLoading(false);
        }
      }
    },
    [client, orders, query],
  );

  // The counts answer for the same filters but every status; the latest request wins.
  const countsSeq = useRef(0);
  const loadCounts = useCallback(async () => {
    const mine = ++countsSeq.current;
    const { status: _all, ...q } = JSON.parse(shared) as Record<string, string>;
    const { data } = await client.GET('/v1/orders/counts', { params: { query: q } });
    if (mine === countsSeq.current) setCounts(data ?? null);
  }, [client, shared]);

  // The latest first page's read, which the stream's first open waits for (useLive below).
  const firstPage = useRef<Promise<void>>(Promise.resolve());
  // biome-ignore lint/correctness/useExhaustiveDependencies: a filter change restarts the list
  useEffect(() => {
    setOrders([]);
    setMore(true);
    firstPage.current = loadMore(true);
  }, [query]);
  useEffect(() => {
    void loadCounts();
  }, [loadCounts]);

  /** An order that changed: updated in place, or dropped when it no longer matches (its status moved on). */
  function upsert(o: Order) {
    setOrders((prev) => {
      if (!prev.some((p) => p.id === o.id)) return prev;
      const rest = prev.filter((p) => p.id !== o.id);
      return stillMatches(o, applied, tz) ? [...rest, o].sort(byNewest) : rest;
    });
  }

  /**
   * The newest page again, for the current filters, merged: new orders appear, changed ones update,
   * and loaded ones within that page's span that the server no longer lists (moved to another
   * status, rescheduled to another day) go. Then the counts.
   */
  const changed = useRef(new Set<string>());
  const ordersNow = useRef(orders);
  ordersNow.current = orders;
  const refresh = async () => {
    const gen = generation.current;
    const { data } = await client.GET('/v1/orders', { params: { query: { ...query(), limit: 50 } } });
    if (!data || gen !== generation.current) return;
    const fresh = new Map(data.data.map((o) => [o.id, o]));
    const oldest = data.data[data.data.length - 1];
    const inSpan = (o: Order) => !data.has_more || !oldest || byNewest(o, oldest) <= 0;
    const ids = [...changed.current];
    changed.current.clear();
    const known = new Set(ordersNow.current.map((o) => o.id));
    onArrived(data.data.filter((o) => !known.has(o.id)));
    // More new orders than the page holds (an import): what lies between it and the loaded ones is
    // unknown, so the list starts over instead of showing a gap.
    const newest = ordersNow.current[0];
    if (data.has_more && oldest && newest && byNewest(oldest, newest) < 0) return void loadMore(true);
    setOrders((prev) => [...prev.filter((p) => !fresh.has(p.id) && !inSpan(p)), ...data.data].sort(byNewest));
    void loadCounts();
    // Changed orders further down than the newest page: read one by one.
    for (const id of ids) {
      if (fresh.has(id)) continue;
      void client.GET('/v1/orders/{id}', { params: { path: { id } } }).then(({ data: o }) => o && upsert(o));
    }
  };
  // The timer and the poll call the refresh of the latest render: its filters, not those of the
  // render that set the timer (a search typed meanwhile would be merged under the old one's rows).
  const latest = useRef(refresh);
  latest.current = refresh;
  // A burst of events (an import, a route of 30 stops) makes one refresh, not one per order.
  const batched = useBatched(() => void latest.current(), 250);

  useLive(true, streamable(session), {
    order: (id) => {
      changed.current.add(id);
      batched();
    },
    // Without a stream: the same, every few seconds.
    poll: () => void latest.current(),
    // The stream opened after the first page was read: orders created in between come in no event.
    // The newest page is read again once that first page is in (a refresh merges; the first page's
    // answer replaces, and would drop what a refresh before it had added), and a new order among
    // them is suggested as one the stream had announced would be.
    opened: () => void firstPage.current.then(() => latest.current()),
    // The stream missed too much to replay (docs/stream.md): the list and the counts start over.
    reset: () => {
      changed.current.clear();
      void loadMore(true);
      void loadCounts();
    },
  });

  return { orders, more, loading, error, counts, loadMore, upsert };
}
