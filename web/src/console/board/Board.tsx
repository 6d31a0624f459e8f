import { type UIEvent, useCallback, useEffect, useRef, useState } from 'react';
import { allowedMoves } from '../../../../src/features/lifecycle/transitions.js';
import { allCouriers, browserZone, type Courier, dueText, type Order, unwrap, whenIn } from '../../shared/api';
import { streamable, useBatched, useLive } from '../live';
import { routeColor } from '../route-colors';
import { useSession } from '../session';
import { ErrorNote, StatusBadge } from '../ui';
import { AutoDispatchControl } from './AutoDispatchControl';
import { orderToSuggest } from './auto-suggest';
import { BoardCounts, BoardFilters, fieldOf } from './BoardFilters';
import { apiFilters, type Filters, readFilters, stillMatches, useDebounced, writeFilters } from './board-filters';
import { DispatchSuggestions } from './DispatchSuggestions';

const ROW = 60;
const PAGE = 100;

type Counts = { total: number; counts: Record<string, number> };

/** Newest first, as the API lists them (created_at desc, then id desc). */
function byNewest(a: Order, b: Order): number {
  return a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : a.id < b.id ? 1 : -1;
}

/**
 * The dispatch board (DESIGN §8): the orders of a day, filtered and searched by the server (keyset
 * pages of 100, fetched as the list scrolls, only the rows in view in the page), their counts per
 * status from GET /v1/orders/counts, both kept current by the stream (or polling).
 */
export function Board() {
  const session = useSession();
  const { client, me } = session;
  const [orders, setOrders] = useState<Order[]>([]);
  const [more, setMore] = useState(true);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [filters, setFiltersState] = useState<Filters>(() => readFilters(me?.timezone ?? browserZone()));
  const [counts, setCounts] = useState<Counts | null>(null);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [couriers, setCouriers] = useState<Courier[]>([]);
  const [assignTo, setAssignTo] = useState('');
  const [note, setNote] = useState('');
  const [scrollTop, setScrollTop] = useState(0);
  const [height, setHeight] = useState(600);
  const list = useRef<HTMLElement>(null);
  const busy = useRef(false);
  const isDispatch = me?.role !== 'merchant';
  // Who may PATCH /v1/dispatch_settings (the carrier; an operator key signs in as a dispatcher).
  const setsMode = me?.role === 'admin' || me?.role === 'dispatcher';
  // The user's days: the carrier's zone, or a merchant's account's (GET /v1/session).
  const tz = me?.timezone ?? browserZone();

  const setFilters = setFiltersState;
  // A shared #/board?… address pasted into this tab changes only the hash: read the filters again.
  useEffect(() => {
    const on = () => {
      if (!/^#\/?board\b/.test(location.hash)) return;
      const next = readFilters(tz);
      setFiltersState((prev) => (JSON.stringify(prev) === JSON.stringify(next) ? prev : next));
    };
    window.addEventListener('hashchange', on);
    return () => window.removeEventListener('hashchange', on);
  }, [tz]);
  // The URL always says what the board shows, from the first render on (a default day included).
  useEffect(() => writeFilters(filters), [filters]);
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

  useEffect(() => {
    if (!isDispatch) return;
    allCouriers(client).then(setCouriers, () => {});
  }, [client, isDispatch]);

  useEffect(() => {
    const el = list.current;
    if (!el) return;
    const ro = new ResizeObserver(() => setHeight(el.clientHeight));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

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
    suggestArrived(data.data.filter((o) => !known.has(o.id)));
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
  /** Auto-dispatch `suggest`: a new order opens its suggested couriers when nothing is selected (auto-suggest.ts). */
  const selectedNow = useRef(selected);
  selectedNow.current = selected;
  const suggestArrived = (arrived: Order[]) => {
    if (!isDispatch || arrived.length === 0 || selectedNow.current.size > 0) return;
    void orderToSuggest(client, arrived).then((o) => {
      if (!o || selectedNow.current.size > 0) return;
      setSelected(new Set([o.id]));
      setNote(`New order ${o.tracking_code}: its suggested couriers are open (auto-dispatch: suggest).`);
    });
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

  const shown = orders;
  const first = Math.max(0, Math.floor(scrollTop / ROW) - 5);
  const last = Math.min(shown.length, Math.ceil((scrollTop + height) / ROW) + 5);

  function onScroll(e: UIEvent<HTMLElement>) {
    const el = e.currentTarget;
    setScrollTop(el.scrollTop);
    if (more && !loading && el.scrollTop + el.clientHeight > el.scrollHeight - ROW * 20) void loadMore();
  }

  async function assignSelected() {
    if (!assignTo) return;
    const ids = [...selected];
    let done = 0;
    const failed: string[] = [];
    for (const id of ids) {
      const r = await client.POST('/v1/orders/{id}/assign', {
        params: { path: { id } },
        body: { courier_id: assignTo },
        headers: { 'Idempotency-Key': crypto.randomUUID() },
      });
      if (r.data) {
        upsert(r.data);
        done++;
      } else failed.push(`${id}: ${(r.error as { error?: { message?: string } })?.error?.message ?? 'failed'}`);
    }
    setSelected(new Set());
    setNote(`Assigned ${done} of ${ids.length}.${failed.length ? ` ${failed.join('; ')}` : ''}`);
  }

  return (
    <section className="board" aria-labelledby="board-title">
      <div className="board-head">
        <h1 id="board-title">Orders</h1>
        <BoardFilters filters={filters} onChange={setFilters} isDispatch={isDispatch} error={error} tz={tz} />
      </div>
      {setsMode && <AutoDispatchControl admin={me?.role === 'admin'} />}
      <BoardCounts counts={counts} status={filters.status} onStatus={(status) => setFilters({ ...filters, status })} />
      {isDispatch && selected.size > 0 && (
        <section className="bulk" aria-label="Selected orders">
          <span>{selected.size} selected</span>
          <label htmlFor="f-courier">Courier</label>
          <select id="f-courier" value={assignTo} onChange={(e) => setAssignTo(e.target.value)}>
            <option value="">Choose…</option>
            {couriers.map((c) => (
              <option key={c.id} value={c.id}>
                {c.name}
              </option>
            ))}
          </select>
          <button type="button" className="primary" disabled={!assignTo} onClick={() => void assignSelected()}>
            Assign
          </button>
        </section>
      )}
      {isDispatch && selected.size === 1 && orders.find((o) => selected.has(o.id)) && (
        <DispatchSuggestions
          order={orders.find((o) => selected.has(o.id)) as Order}
          onDone={(text) => {
            setSelected(new Set());
            setNote(text);
          }}
        />
      )}
      {note && (
        <p className="note" role="status">
          {note}
        </p>
      )}
      <ErrorNote error={fieldOf(error) ? null : error} />
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus to scroll by keyboard */}
      <section className="vlist" ref={list} onScroll={onScroll} tabIndex={0} aria-label="Orders list">
        {/* Only the rows in view are in the page (virtualised); aria-setsize/posinset give the whole list. */}
        <ul className="vlist-rows" style={{ height: shown.length * ROW }}>
          {shown.slice(first, last).map((o, i) => {
            const idx = first + i;
            return (
              <li
                key={o.id}
                className="row"
                aria-setsize={shown.length}
                aria-posinset={idx + 1}
                data-order={o.id}
                style={{ transform: `translateY(${idx * ROW}px)`, height: ROW }}
              >
                {isDispatch && (
                  <span className="pick">
                    <input
                      type="checkbox"
                      aria-label={`Select ${o.tracking_code}`}
                      checked={selected.has(o.id)}
                      disabled={!allowedMoves(o.status).includes('assign')}
                      onChange={(e) => {
                        const next = new Set(selected);
                        if (e.target.checked) next.add(o.id);
                        else next.delete(o.id);
                        setSelected(next);
                      }}
                    />
                  </span>
                )}
                <span className="main">
                  <a href={`#/orders/${o.id}`}>{o.customer.name}</a>
                  <small>
                    {o.tracking_code}
                    {o.external_order_id ? ` · ${o.external_order_id}` : ''} · {o.delivery_address.district ?? ''}{' '}
                    {o.delivery_address.city ?? ''}
                  </small>
                </span>
                <span className="courier">
                  {o.courier ? (
                    <>
                      <span
                        className="route-swatch"
                        style={{ background: routeColor(o.courier.id, couriers) }}
                        aria-hidden="true"
                      />
                      {o.route ? (
                        <a href={`#/routes/${o.route}`} title="The route: stops, loaded parcels, labels">
                          {o.courier.name}
                        </a>
                      ) : (
                        o.courier.name
                      )}
                    </>
                  ) : (
                    <span className="muted">Unassigned</span>
                  )}
                </span>
                <span className="time">
                  {o.requested_date ? `Due ${dueText(o)}` : `Created ${whenIn(o.created_at, o.timezone)}`}
                </span>
                <span>
                  <StatusBadge status={o.status} />
                </span>
              </li>
            );
          })}
        </ul>
        {!loading && shown.length === 0 && <EmptyBoard filters={filters} merchant={!isDispatch} />}
      </section>
      <p className="muted small" aria-live="polite">
        {orders.length} loaded{counts ? ` of ${counts.counts[filters.status] ?? counts.total}` : ''}
        {more ? ' · scroll for more' : ''}
        {loading ? ' · loading…' : ''}
      </p>
    </section>
  );
}

/** Why the list is empty, and, when only the day narrows it, where orders come from (a first day's board). */
function EmptyBoard({ filters, merchant }: { filters: Filters; merchant: boolean }) {
  if (filters.status || filters.account || filters.search.trim()) {
    return <p className="muted empty">No orders match these filters.</p>;
  }
  const when = filters.day ? ` ${filters.by === 'due' ? 'due' : 'created'} on this day` : ' yet';
  return (
    <p className="muted empty">
      No orders{when}.{' '}
      {merchant
        ? 'Create one under New order, import a spreadsheet under Imports, or send them over the API (its reference is at /docs).'
        : 'Merchants create orders over the API; you can import a spreadsheet of them under Imports.'}
    </p>
  );
}
