import { type Courier, type Order, STATUS_COLOR, STATUS_LABEL } from '../../shared/api';
import type { Depot, RouteLine } from './map-data';

/** What the map's marks stand for, with how many of each there are. */
export function MapLegend({
  orders,
  couriers,
  routes,
  depots,
}: {
  orders: Order[];
  couriers: Courier[];
  routes: RouteLine[];
  depots: Depot[];
}) {
  return (
    <ul className="legend" aria-label="Legend">
      <li>
        <span className="dot courier-dot" /> Courier ({couriers.filter((c) => c.location).length}), in its route's
        colour; grey when not seen for 10 min
      </li>
      {[...new Set(orders.map((o) => o.status))].map((s) => (
        <li key={s}>
          <span className="dot" style={{ background: STATUS_COLOR[s] }} /> {STATUS_LABEL[s]} (
          {orders.filter((o) => o.status === s).length})
        </li>
      ))}
      <li>
        <span className="line" /> Route ({routes.length}), in its courier's colour
      </li>
      <li>
        <span className="dot depot-dot" /> Depot ({depots.length})
      </li>
    </ul>
  );
}
