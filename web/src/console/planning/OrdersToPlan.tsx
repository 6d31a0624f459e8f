import { hoursIn, type Order } from '../../shared/api';
import { hasPoint } from './common';

/** The orders a plan for the date would take (the first 200 listed), shown until a plan is in. */
export function OrdersToPlan({
  uid,
  orders,
  dueOrders,
  date,
}: {
  uid: string;
  orders: Order[] | null;
  dueOrders: Order[];
  date: string;
}) {
  return (
    <section className="plan-orders" aria-labelledby={`${uid}-orders`}>
      <h2 id={`${uid}-orders`}>Orders to plan ({orders === null ? '…' : dueOrders.length})</h2>
      <p className="muted small">
        {/* As the server selects them (docs/planning.md): each order's day in the order's own zone. */}
        Unassigned orders (pending, validated or rescheduled) due on {date || 'the date'}, each order’s day in its own
        time zone, or with no date.
      </p>
      {orders !== null && dueOrders.length === 0 && <p className="muted">No order to plan for this date.</p>}
      <ul className="plan-list" aria-label="Orders to plan">
        {dueOrders.slice(0, 200).map((o) => (
          <li key={o.id}>
            <a href={`#/orders/${o.id}`}>{o.customer.name}</a>{' '}
            <small className="muted">
              {o.tracking_code} · {o.delivery_address.address} · {o.packages} pkg · {o.weight_kg} kg
              {o.time_window ? ` · window ${hoursIn(o.time_window.start, o.time_window.end, o.timezone)}` : ''}
              {o.is_urgent ? ' · urgent' : ''}
            </small>
            {!hasPoint(o) && <span className="badge s-failed">no coordinates</span>}
          </li>
        ))}
      </ul>
      {dueOrders.length > 200 && <p className="muted">… and {dueOrders.length - 200} more.</p>}
    </section>
  );
}
