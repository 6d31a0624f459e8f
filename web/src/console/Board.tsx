import { type UIEvent, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { type Courier, type Order, type OrderStatus, STATUS_LABEL, unwrap, when } from '../shared/api';
import { allowedMoves } from '../shared/transitions';
import { streamable, useLive } from './live';
import { useSession } from './session';
import { ErrorNote, StatusBadge } from './ui';

const ROW = 60;
const PAGE = 100;
const STATUSES = Object.keys(STATUS_LABEL) as OrderStatus[];

interface Filters {
  status: OrderStatus | '';
  account: string;
  search: string;
}

function matches(o: Order, f: Filters): boolean {
  if (f.status && o.status !== f.status) return false;
  const q = f.search.trim().toLowerCase();
  if (!q) return true;
  return (
    o.tracking_code.toLowerCase() === q ||
    o.id.toLowerCase() === q ||
    (o.external_order_id ?? '').toLowerCase().includes(q) ||
    o.customer.name.toLowerCase().includes(q)
  );
}

/** Newest first, as the API lists them (created_at desc, then id desc). */
function byNewest(a: Order, b: Order): number {
  return a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : a.id < b.id ? 1 : -1;
}

export function Board() {
  const session = useSession();
  const { client, me } = session;
  const [orders, setOrders] = useState<Order[]>([]);
  const [more, setMore] = useState(true);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [filters, setFilters] = useState<Filters>({ status: '', account: '', search: '' });
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [couriers, setCouriers] = useState<Courier[]>([]);
  const [assignTo, setAssignTo] = useState('');
  const [note, setNote] = useState('');
  const [scrollTop, setScrollTop] = useState(0);
  const [height, setHeight] = useState(600);
  const list = useRef<HTMLElement>(null);
  const busy = useRef(false);
  const isDispatch = me?.role !== 'merchant';

  const query = useCallback(
    (after?: string) => ({
      limit: PAGE,
      ...(after ? { starting_after: after } : {}),
      ...(filters.status ? { status: filters.status } : {}),
      ...(filters.account.trim() ? { account: filters.account.trim() } : {}),
    }),
    [filters.status, filters.account],
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
        if (mine === generation.current) setError(e);
      } finally {
        if (mine === generation.current) {
          busy.current = false;
          setLoading(false);
        }
      }
    },
    [client, orders, query],
  );

  // biome-ignore lint/correctness/useExhaustiveDependencies: a filter change restarts the list
  useEffect(() => {
    setOrders([]);
    setMore(true);
    void loadMore(true);
  }, [query]);

  useEffect(() => {
    if (!isDispatch) return;
    client
      .GET('/v1/couriers', { params: { query: { limit: 100 } } })
      .then(({ data }) => data && setCouriers(data.data));
  }, [client, isDispatch]);

  useEffect(() => {
    const el = list.current;
    if (!el) return;
    const ro = new ResizeObserver(() => setHeight(el.clientHeight));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

  // A search that is a tracking code or an order id fetches that order even if it is not loaded.
  // biome-ignore lint/correctness/useExhaustiveDependencies: upsert reads the current filters when it runs
  useEffect(() => {
    const q = filters.search.trim();
    if (!/^(ord_[0-9a-z]+|[0-9a-z]{12})$/i.test(q)) return;
    client.GET('/v1/orders/{id}', { params: { path: { id: q } } }).then(({ data }) => data && upsert(data));
  }, [filters.search, client]);

  function upsert(o: Order) {
    setOrders((prev) => {
      const rest = prev.filter((p) => p.id !== o.id);
      const f = { ...filters, search: '' };
      if (!matches(o, f) || (filters.account && (o as { account?: string }).account !== filters.account)) return rest;
      return [...rest, o].sort(byNewest);
    });
  }

  useLive(true, streamable(session), {
    order: (id) => {
      client.GET('/v1/orders/{id}', { params: { path: { id } } }).then(({ data }) => data && upsert(data));
    },
    poll: async () => {
      // Without a stream: the newest page, merged, shows new and changed orders without a reload.
      const { data } = await client.GET('/v1/orders', { params: { query: { ...query(), limit: 50 } } });
      if (!data) return;
      setOrders((prev) => {
        const fresh = new Map(data.data.map((o) => [o.id, o]));
        const kept = prev.filter((p) => !fresh.has(p.id));
        return [...kept, ...data.data].sort(byNewest);
      });
    },
  });

  const shown = useMemo(() => orders.filter((o) => matches(o, filters)), [orders, filters]);
  const counts = useMemo(() => {
    const c = new Map<string, number>();
    for (const o of orders) c.set(o.status, (c.get(o.status) ?? 0) + 1);
    return c;
  }, [orders]);

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
        <form className="filters" aria-label="Filter orders" onSubmit={(e) => e.preventDefault()}>
          <div className="ctl">
            <label htmlFor="f-status">Status</label>
            <select
              id="f-status"
              value={filters.status}
              onChange={(e) => setFilters({ ...filters, status: e.target.value as OrderStatus })}
            >
              <option value="">All</option>
              {STATUSES.map((s) => (
                <option key={s} value={s}>
                  {STATUS_LABEL[s]}
                </option>
              ))}
            </select>
          </div>
          {isDispatch && (
            <div className="ctl">
              <label htmlFor="f-account">Account</label>
              <input
                id="f-account"
                value={filters.account}
                placeholder="acct_…"
                onChange={(e) => setFilters({ ...filters, account: e.target.value })}
              />
            </div>
          )}
          <div className="ctl">
            <label htmlFor="f-search">Search</label>
            <input
              id="f-search"
              type="search"
              value={filters.search}
              placeholder="Tracking code, external id, customer"
              onChange={(e) => setFilters({ ...filters, search: e.target.value })}
            />
          </div>
        </form>
      </div>
      <ul className="counts" aria-label={`Orders per status, over the ${orders.length} loaded`}>
        {STATUSES.filter((s) => counts.get(s)).map((s) => (
          <li key={s}>
            <button type="button" className={`badge s-${s}`} onClick={() => setFilters({ ...filters, status: s })}>
              {STATUS_LABEL[s]} <b>{counts.get(s)}</b>
            </button>
          </li>
        ))}
      </ul>
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
      {note && (
        <p className="note" role="status">
          {note}
        </p>
      )}
      <ErrorNote error={error} />
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
                <span className="courier">{o.courier?.name ?? <span className="muted">Unassigned</span>}</span>
                <span className="time">{when(o.created_at)}</span>
                <span>
                  <StatusBadge status={o.status} />
                </span>
              </li>
            );
          })}
        </ul>
        {!loading && shown.length === 0 && <p className="muted empty">No orders match.</p>}
      </section>
      <p className="muted small" aria-live="polite">
        {orders.length} loaded{more ? ' · scroll for more' : ''}
        {loading ? ' · loading…' : ''}
      </p>
    </section>
  );
}
