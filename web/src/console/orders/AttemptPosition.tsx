import { type Order, whenIn } from '../../shared/api';

type Position = NonNullable<Order['attempt_position']>;

/** "412 m from the address (±8 m)": the distance first, which is what a dispatcher checks. */
export function positionWords(p: Position): string {
  const accuracy = p.accuracy_m == null ? '' : ` (±${Math.round(p.accuracy_m)} m)`;
  if (p.distance_from_address_m == null) return `address has no coordinates${accuracy}`;
  return `${p.distance_from_address_m} m from the address${accuracy}`;
}

/**
 * The Position row of the order page: where the phone was at the last attempt (deliver or fail),
 * its distance from the address and accuracy, and a link to the spot on a map (the page's map also
 * marks it). Far (docs/api.md "Positions of moves") is said in words, not only in colour.
 */
export function AttemptPosition({ order }: { order: Order }) {
  const p = order.attempt_position;
  if (!p) return <span className="muted">none sent</span>;
  const osm = `https://www.openstreetmap.org/?mlat=${p.lat}&mlon=${p.lng}#map=18/${p.lat}/${p.lng}`;
  return (
    <span className="attempt-position">
      {p.far_from_address && <strong className="error-note">Far from the address: </strong>}
      {positionWords(p)} · at {whenIn(p.recorded_at, order.timezone)} ·{' '}
      <a href={osm} target="_blank" rel="noreferrer">
        {p.lat.toFixed(5)}, {p.lng.toFixed(5)}
      </a>
    </span>
  );
}
