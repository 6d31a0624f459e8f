import { type Action, allowedMoves, COURIER_MOVES } from '../../../../src/features/lifecycle/transitions.js';
import { ACTION_LABEL, hoursIn, money, type Order } from '../../shared/api';
import { isActive } from '../client';
import { firstName, navLink, statusWords } from '../format';

/** One stop of the route: who, where, when, what to collect, and the moves the transition table allows. */
export function Stop({
  order,
  kind = 'delivery',
  number,
  loaded,
  onAction,
}: {
  order: Order;
  /** `pickup`: where a pickup-and-delivery order is collected (its pickup_address), before its delivery. */
  kind?: 'pickup' | 'delivery';
  /** Its delivery's stop number, the one on its label (RouteList's stopNumbers); a pickup stop shows it too. */
  number: number;
  /** Its label was scanned into the vehicle (on the server, or queued on the phone). */
  loaded: boolean;
  onAction: (o: Order, a: Action) => void;
}) {
  const pickup = kind === 'pickup' && order.pickup_address ? order.pickup_address : null;
  const a = pickup ?? order.delivery_address;
  const active = isActive(order.status);
  // "Ready for pickup" is the warehouse's word that a parcel is packed: the API lets a courier send
  // it, but on the phone it is one more button before "Picked up", which is allowed from assigned.
  // A pair's "Picked up" belongs to its pickup stop, every other move to its delivery stop.
  const collect = !!order.pickup_address && order.pickup_address.depot === null;
  const moves = allowedMoves(order.status, COURIER_MOVES).filter(
    (m) => m !== 'ready' && (pickup ? m === 'pickup' : !(collect && m === 'pickup')),
  );
  const access = (a as { access_notes?: string }).access_notes;
  return (
    <li
      className={`stop${active ? ' active' : ''}`}
      data-order={order.id}
      data-kind={kind}
      aria-label={`${pickup ? `Pickup for stop ${number}` : `Stop ${number}`}: ${firstName(order.customer.name)}`}
    >
      <div className="stop-head">
        <span className={`num${pickup ? ' pickup' : ''}`} aria-hidden="true">
          {pickup ? `P${number}` : number}
        </span>
        <div>
          <h2>
            {pickup ? 'Pickup · ' : ''}
            {firstName(order.customer.name)}
          </h2>
          <p className="status">
            <span className={`badge s-${order.status}`}>{statusWords(order.status)}</span>
            {loaded && <span className="badge loaded"> Loaded</span>}
          </p>
        </div>
      </div>
      <p className="addr">
        {a.address}
        {a.district ? `, ${a.district}` : ''}
      </p>
      {a.reference && <p className="muted">Ref: {a.reference}</p>}
      {access && <p className="muted">Access: {access}</p>}
      {!pickup && order.delivery_instructions && <p className="note">Customer: {order.delivery_instructions}</p>}
      {!pickup && order.safe_place && <p className="note">Safe place: {order.safe_place}</p>}
      <p className="facts">
        {/* In the order's zone, named: the phone's own zone may differ (DESIGN §15, docs/console.md). */}
        {order.time_window ? `${hoursIn(order.time_window.start, order.time_window.end, order.timezone)} · ` : ''}
        {order.packages} pkg
        {!pickup && (order.cash_on_delivery ?? 0) > 0 ? ` · COD ${money(order.cash_on_delivery, order.currency)}` : ''}
      </p>
      <div className="buttons">
        <a className="btn" href={navLink(order, pickup ?? undefined)} target="_blank" rel="noreferrer">
          Navigate
        </a>
        {active && order.customer.phone && (
          <a className="btn" href={`tel:${order.customer.phone}`}>
            Call
          </a>
        )}
        {moves.map((m) => (
          <button
            key={m}
            type="button"
            className={m === 'deliver' ? 'primary' : m === 'fail' ? 'danger' : ''}
            onClick={() => onAction(order, m)}
          >
            {ACTION_LABEL[m]}
          </button>
        ))}
      </div>
    </li>
  );
}
