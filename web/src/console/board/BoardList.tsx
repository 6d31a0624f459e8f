import { type UIEvent, useEffect, useRef, useState } from 'react';
import { allowedMoves } from '../../../../src/features/lifecycle/transitions.js';
import { type Courier, dueText, type Order, whenIn } from '../../shared/api';
import { routeColor } from '../route-colors';
import { StatusBadge } from '../ui';
import type { Filters } from './board-filters';

const ROW = 60;

/**
 * The board's list of orders, virtualised: only the rows in view are in the page, and scrolling
 * near its end asks for the next page (`onMore`).
 */
export function BoardList({
  orders,
  more,
  loading,
  onMore,
  filters,
  isDispatch,
  selected,
  onSelected,
  couriers,
}: {
  orders: Order[];
  more: boolean;
  loading: boolean;
  onMore: () => void;
  filters: Filters;
  isDispatch: boolean;
  selected: Set<string>;
  onSelected: (next: Set<string>) => void;
  couriers: Courier[];
}) {
  const [scrollTop, setScrollTop] = useState(0);
  const [height, setHeight] = useState(600);
  const list = useRef<HTMLElement>(null);

  useEffect(() => {
    const el = list.current;
    if (!el) return;
    const ro = new ResizeObserver(() => setHeight(el.clientHeight));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

  const shown = orders;
  const first = Math.max(0, Math.floor(scrollTop / ROW) - 5);
  const last = Math.min(shown.length, Math.ceil((scrollTop + height) / ROW) + 5);

  function onScroll(e: UIEvent<HTMLElement>) {
    const el = e.currentTarget;
    setScrollTop(el.scrollTop);
    if (more && !loading && el.scrollTop + el.clientHeight > el.scrollHeight - ROW * 20) onMore();
  }

  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus to scroll by keyboard
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
                      onSelected(next);
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
