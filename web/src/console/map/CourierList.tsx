import { browserZone, type Courier } from '../../shared/api';
import { routeColor } from '../route-colors';
import { useSession } from '../session';
import { isLate, lastSeen, type RouteLine } from './map-data';

/**
 * The couriers out today, beside the map: each in its route's colour, how far along it is
 * ("7 of 18 done"), its late stops in red, and when its phone last reported (greyed when stale).
 */
export function CourierList({
  couriers,
  routes,
  now,
  onFocus,
}: {
  couriers: Courier[];
  routes: RouteLine[];
  now: number;
  onFocus: (c: Courier) => void;
}) {
  const tz = useSession().me?.timezone ?? browserZone();
  const out = couriers.filter((c) => c.location || routes.some((r) => r.courierId === c.id));
  if (out.length === 0) return null;
  return (
    <section className="courier-list" aria-label="Couriers">
      <h2>Couriers</h2>
      <ul>
        {out.map((c) => {
          const stops = routes.filter((r) => r.courierId === c.id).flatMap((r) => r.stops);
          const done = stops.filter((s) => s.done).length;
          const late = stops.filter((s) => isLate(s.order, now));
          const seen = c.location ? lastSeen(c.location.recorded_at, now, tz) : null;
          return (
            <li key={c.id} data-courier={c.id} className={seen?.stale || !seen ? 'stale' : undefined}>
              <span className="route-swatch" style={{ background: routeColor(c.id, couriers) }} aria-hidden="true" />
              <span className="who">
                {c.location ? (
                  <button type="button" className="link" onClick={() => onFocus(c)}>
                    {c.name}
                  </button>
                ) : (
                  c.name
                )}
                <small>
                  {stops.length > 0 ? `${done} of ${stops.length} done` : 'No route'}
                  {late.length > 0 && (
                    <span className="late" title={late.map((s) => s.order.customer.name).join(', ')}>
                      {' '}
                      · {late.length} late
                    </span>
                  )}
                </small>
                <small className="seen">{seen ? `${seen.text} (${seen.at})` : 'no position yet'}</small>
              </span>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
