import type { Courier, Order } from '../../shared/api';
import { plural } from '../../shared/text';
import { StatusBadge } from '../ui';

/** Whether the transition table lets this order be assigned now (passed in: the page owns the rule). */
type Assignable = (o: Order) => boolean;

/**
 * The keyboard side of the map: every active order as a checkbox (the same selection as clicking
 * markers), and the bar that assigns the selection to a courier. A marker is only a pointer target;
 * everything it does can be done here.
 */
export function OrderPicker(props: {
  orders: Order[];
  couriers: Courier[];
  selected: Set<string>;
  onToggle: (id: string, on: boolean) => void;
  onSelectInView: () => void;
  onClear: () => void;
  assignable: Assignable;
  assignTo: string;
  onAssignTo: (courierId: string) => void;
  onAssign: () => void;
  busy: boolean;
}) {
  const { orders, selected, assignable } = props;
  const active = props.couriers.filter((c) => c.status === 'active');
  const count = orders.filter((o) => selected.has(o.id)).length;
  return (
    <aside className="map-side" aria-label="Select and assign orders">
      <section className="bulk map-assign" aria-label="Assign selected orders">
        <span aria-live="polite">{`${plural(count, 'order')} selected`}</span>
        <div className="ctl">
          <label htmlFor="map-courier">Courier</label>
          <select id="map-courier" value={props.assignTo} onChange={(e) => props.onAssignTo(e.target.value)}>
            <option value="">Choose…</option>
            {active.map((c) => (
              <option key={c.id} value={c.id}>
                {c.name}
              </option>
            ))}
          </select>
        </div>
        <button
          type="button"
          className="primary"
          disabled={count === 0 || !props.assignTo || props.busy}
          onClick={props.onAssign}
        >
          {props.busy ? 'Assigning…' : 'Assign'}
        </button>
      </section>
      <div className="buttons">
        <button type="button" onClick={props.onSelectInView}>
          Select assignable in view
        </button>
        <button type="button" onClick={props.onClear} disabled={count === 0}>
          Clear selection
        </button>
      </div>
      <p className="muted small">Click orders on the map, or hold Shift and drag a box around them.</p>
      <ul className="pick-list" aria-label="Active orders">
        {orders.map((o) => {
          const can = assignable(o);
          const onMap = typeof o.delivery_address.lat === 'number' && typeof o.delivery_address.lng === 'number';
          return (
            <li key={o.id} className={selected.has(o.id) ? 'selected' : undefined} data-order={o.id}>
              <input
                type="checkbox"
                id={`pick-${o.id}`}
                checked={selected.has(o.id)}
                disabled={!can}
                onChange={(e) => props.onToggle(o.id, e.target.checked)}
              />
              <span className="pick-main">
                <label htmlFor={`pick-${o.id}`}>
                  <span className="sr-only">Select </span>
                  {o.customer.name}
                  <span className="sr-only"> ({o.tracking_code})</span>
                </label>
                <small className="muted">
                  <a href={`#/orders/${o.id}`}>{o.tracking_code}</a>
                  {' · '}
                  {o.courier?.name ?? 'unassigned'}
                  {onMap ? '' : ' · no map position'}
                </small>
              </span>
              <StatusBadge status={o.status} />
            </li>
          );
        })}
        {orders.length === 0 && <li className="muted">No active orders.</li>}
      </ul>
    </aside>
  );
}
