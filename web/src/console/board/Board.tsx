import { useEffect, useRef, useState } from 'react';
import { allCouriers, browserZone, type Courier, newIdempotencyKey, type Order } from '../../shared/api';
import { useSession } from '../session';
import { ErrorNote } from '../ui';
import { AutoDispatchControl } from './AutoDispatchControl';
import { orderToSuggest } from './auto-suggest';
import { BoardCounts, BoardFilters, fieldOf } from './BoardFilters';
import { BoardList } from './BoardList';
import { type Filters, readFilters, writeFilters } from './board-filters';
import { DispatchSuggestions } from './DispatchSuggestions';
import { useBoardOrders } from './useBoardOrders';

/**
 * The dispatch board (DESIGN §8): the orders of a day, filtered and searched by the server (keyset
 * pages of 100, fetched as the list scrolls, only the rows in view in the page), their counts per
 * status from GET /v1/orders/counts, both kept current by the stream (or polling).
 */
export function Board() {
  const { client, me } = useSession();
  const [filters, setFiltersState] = useState<Filters>(() => readFilters(me?.timezone ?? browserZone()));
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [couriers, setCouriers] = useState<Courier[]>([]);
  const [assignTo, setAssignTo] = useState('');
  const [note, setNote] = useState('');
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
  const { orders, more, loading, error, counts, loadMore, upsert } = useBoardOrders(filters, tz, suggestArrived);

  useEffect(() => {
    if (!isDispatch) return;
    allCouriers(client).then(setCouriers, () => {});
  }, [client, isDispatch]);

  async function assignSelected() {
    if (!assignTo) return;
    const ids = [...selected];
    let done = 0;
    const failed: string[] = [];
    for (const id of ids) {
      const r = await client.POST('/v1/orders/{id}/assign', {
        params: { path: { id } },
        body: { courier_id: assignTo },
        headers: { 'Idempotency-Key': newIdempotencyKey() },
      });
      if (r.data) {
        upsert(r.data);
        done++;
      } else failed.push(`${id}: ${(r.error as { error?: { message?: string } })?.error?.message ?? 'failed'}`);
    }
    setSelected(new Set());
    setNote(`Assigned ${done} of ${ids.length}.${failed.length ? ` ${failed.join('; ')}` : ''}`);
  }

  const suggestFor = selected.size === 1 ? orders.find((o) => selected.has(o.id)) : undefined;
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
      {isDispatch && selected.size === 1 && suggestFor && (
        <DispatchSuggestions
          // A new panel (ranked again) when the order changes under it: assigned meanwhile by another
          // dispatcher or auto-dispatch, its ranking of a moment ago no longer holds.
          key={`${suggestFor.id}:${suggestFor.status}:${suggestFor.courier?.id ?? ''}:${suggestFor.route ?? ''}`}
          order={suggestFor}
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
      <BoardList
        orders={orders}
        more={more}
        loading={loading}
        onMore={() => void loadMore()}
        filters={filters}
        isDispatch={isDispatch}
        selected={selected}
        onSelected={setSelected}
        couriers={couriers}
      />
      <p className="muted small" aria-live="polite">
        {orders.length} loaded{counts ? ` of ${counts.counts[filters.status] ?? counts.total}` : ''}
        {more ? ' · scroll for more' : ''}
        {loading ? ' · loading…' : ''}
      </p>
    </section>
  );
}
