import { useState } from 'react';
import { type Order, unwrap, whenIn } from '../../shared/api';
import { hashQuery } from '../router';
import { useSession } from '../session';
import { ErrorNote, StatusBadge, TableHead, useLoad } from '../ui';

const PAGE = 100;

/** The figure a link stands for, in words: its filters as the report named them. */
function describe(q: URLSearchParams): string {
  const parts: string[] = [];
  const outcome = q.get('outcome');
  if (outcome) parts.push(outcome);
  if (q.get('on_time') === 'true') parts.push('on time');
  if (q.get('first_attempt') === 'true') parts.push('at the first attempt');
  const rating = q.get('rating');
  if (rating) parts.push(`rated ${rating} ${rating === '1' ? 'star' : 'stars'}`);
  else if (q.get('rated') === 'true') parts.push('rated');
  for (const key of ['account', 'courier', 'district']) {
    const v = q.get(key);
    if (v) parts.push(`${key} ${v}`);
  }
  const from = q.get('due_from');
  const to = q.get('due_to');
  if (from || to) parts.push(`due ${from ?? '…'} – ${to ?? '…'}`);
  return parts.join(', ');
}

/**
 * `#/money/orders?<query>`: the orders behind one figure of the report. Each figure's `links` entry
 * is a GET /v1/orders query (due_from, due_to, account, courier, district, outcome, on_time,
 * first_attempt, rated, rating); this page runs it as it is, so the list is exactly what the number counted.
 */
export default function FigureOrders() {
  const { client, mode } = useSession();
  const params = hashQuery();
  const key = params.toString();
  const query = Object.fromEntries(params) as Record<string, string>;
  const [extra, setExtra] = useState<{ key: string; orders: Order[]; more: boolean } | null>(null);
  const first = useLoad(
    () => unwrap(client.GET('/v1/orders', { params: { query: { ...query, limit: PAGE } as never } })),
    [mode, key],
  );
  const more = extra?.key === key ? extra : null;
  const orders = [...(first.data?.data ?? []), ...(more?.orders ?? [])];
  const hasMore = more ? more.more : (first.data?.has_more ?? false);
  const [error, setError] = useState<unknown>(null);

  async function next() {
    setError(null);
    try {
      const after = orders[orders.length - 1]?.id;
      const page = await unwrap(
        client.GET('/v1/orders', { params: { query: { ...query, limit: PAGE, starting_after: after } as never } }),
      );
      setExtra({ key, orders: [...(more?.orders ?? []), ...page.data], more: page.has_more });
    } catch (e) {
      setError(e);
    }
  }

  return (
    <section aria-labelledby="figure-title">
      <h1 id="figure-title">Orders behind the figure</h1>
      <p className="muted">
        {describe(params) || 'every order'} · <a href="#/money">← Money</a>
      </p>
      <ErrorNote error={first.error ?? error} />
      {first.data && orders.length === 0 && <p className="empty-note">No orders.</p>}
      {orders.length > 0 && (
        <div className="table-wrap">
          <table className="table" aria-label="Orders behind the figure">
            <TableHead columns={['Order', 'Status', 'Courier', 'Updated']} />
            <tbody>
              {orders.map((o) => (
                <tr key={o.id}>
                  <td>
                    <a href={`#/orders/${o.id}`}>{o.customer.name}</a>
                    <br />
                    <small className="muted">{o.tracking_code}</small>
                  </td>
                  <td>
                    <StatusBadge status={o.status} />
                  </td>
                  <td>{o.courier?.name ?? '—'}</td>
                  <td>{whenIn(o.updated_at, o.timezone)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {hasMore && (
        <button type="button" onClick={() => void next()}>
          More
        </button>
      )}
    </section>
  );
}
