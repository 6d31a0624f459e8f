import { useEffect, useState } from 'react';
import { clockIn, newIdempotencyKey, type Order, type Schemas, unwrap, whenIn } from '../../shared/api';
import { plural } from '../../shared/text';
import { useSession } from '../session';
import { ErrorNote, useGuard } from '../ui';

type Suggestion = Schemas['DispatchSuggestion'];
type Unavailable = Schemas['DispatchUnavailableCourier'];

const MS_PER_MIN = 60_000;
const minutesBetween = (from: string, to: string) => Math.round((Date.parse(to) - Date.parse(from)) / MS_PER_MIN);

/** `HH:mm` (24 h) in `tz`, to compare with a time window's bounds. */
function hhmmIn(iso: string, tz: string): string {
  try {
    return new Intl.DateTimeFormat('en-GB', {
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
      timeZone: tz,
    }).format(new Date(iso));
  } catch {
    return '';
  }
}

/**
 * The stops already on the route that the insertion makes later, from the per-stop ETAs the API
 * returns: `added_minutes` is only how much later the route ends, which a wait at a window can
 * hide (+0 min while two stops slip 27 min).
 */
function delayText(s: Pick<Suggestion, 'stops'>): string | null {
  const late = s.stops
    .map((x) => (x.previous_arrival_at ? minutesBetween(x.previous_arrival_at, x.arrival_at) : 0))
    .filter((m) => m >= 1);
  if (late.length === 0) return null;
  const most = Math.max(...late);
  const stops = plural(late.length, 'later stop');
  return `${stops} ${late.every((m) => m === most) ? '' : 'up to '}${most} min later`;
}

/**
 * Live dispatch on the board (DESIGN §16, docs/dispatch.md): for the one order selected, the
 * couriers on duty ranked by the cost of inserting it into their current route, each with its
 * added km and minutes and what it would break; one click inserts it there
 * (POST /v1/orders/{id}/dispatch with that courier).
 */
export function DispatchSuggestions({ order, onDone }: { order: Order; onDone: (note: string) => void }) {
  const { client } = useSession();
  const [list, setList] = useState<Suggestion[] | null>(null);
  const [unavailable, setUnavailable] = useState<Unavailable[]>([]);
  const [error, setError] = useState<unknown>(null);
  // One insertion at a time: a ref, not state, so a double-click sends one POST (ui.tsx useGuard).
  const { busy, run } = useGuard();

  useEffect(() => {
    let live = true;
    setList(null);
    setUnavailable([]);
    setError(null);
    unwrap(client.GET('/v1/orders/{id}/dispatch_suggestions', { params: { path: { id: order.id } } })).then(
      (r) => {
        if (!live) return;
        setList(r.data);
        setUnavailable(r.unavailable);
      },
      (e) => live && setError(e),
    );
    return () => {
      live = false;
    };
  }, [client, order.id]);

  function dispatch(s: Suggestion) {
    void run(s.courier.id, async () => {
      setError(null);
      try {
        const r = await unwrap(
          client.POST('/v1/orders/{id}/dispatch', {
            params: { path: { id: order.id } },
            body: { courier_id: s.courier.id },
            headers: { 'Idempotency-Key': newIdempotencyKey() },
          }),
        );
        const from =
          order.courier && order.courier.id !== s.courier.id ? ` (taken off ${order.courier.name}\u2019s)` : '';
        onDone(
          `${order.tracking_code} inserted as stop ${r.suggestion.position} of ${s.courier.name}\u2019s route${from}.`,
        );
      } catch (e) {
        setError(e);
      }
    });
  }

  return (
    <section className="suggestions" aria-label={`Suggested couriers for ${order.tracking_code}`}>
      <h2>Suggested couriers</h2>
      {/* Assigned meanwhile (by someone else, or auto-dispatch): Assign would take it off that courier. */}
      {order.courier && (
        <p className="warn" data-assigned={order.courier.id}>
          Already assigned to {order.courier.name}. Assign moves it to another courier’s route.
        </p>
      )}
      <ErrorNote error={error} />
      {list === null && !error && <p className="muted">Ranking couriers…</p>}
      {list?.length === 0 && unavailable.length === 0 && (
        <p className="muted">No courier is on duty for this order’s day.</p>
      )}
      {list?.length === 0 && unavailable.length > 0 && (
        <p className="muted">No courier can be ranked for this order’s day:</p>
      )}
      {/* On duty (a route of the day) but left out, with the API's reason: never passed over in silence. */}
      {unavailable.map((u) => (
        <p key={u.courier.id} className="warn" data-unavailable={u.courier.id}>
          {u.message}
        </p>
      ))}
      <ol>
        {list?.map((s) => {
          // The delivery's ETA (a pair's pickup stop, marked `kind`, comes first), and any wait there
          // for its window to open: served at service_start_at, not at the arrival.
          const stop = s.stops.find((x) => x.order_id === order.id && !x.kind);
          const eta = stop?.arrival_at;
          const wait = stop ? minutesBetween(stop.arrival_at, stop.service_start_at) : 0;
          const delay = delayText(s);
          return (
            <li key={s.courier.id} className="suggestion-row" data-courier={s.courier.id}>
              <span className="main">
                <strong>{s.courier.name}</strong>
                <small>
                  {s.pickup_position !== undefined ? `pickup at stop ${s.pickup_position} · ` : ''}
                  stop {s.position} · +{s.added_km.toFixed(1)} km · route ends +{Math.round(s.added_minutes)} min
                  {eta ? ` · ETA ${whenIn(eta, order.timezone)}` : ''}
                </small>
                {stop && wait >= 1 && (
                  <small className="wait">
                    Arrives {clockIn(stop.arrival_at, order.timezone)}, waits {wait} min: starts at{' '}
                    {clockIn(stop.service_start_at, order.timezone)}
                    {order.time_window && hhmmIn(stop.service_start_at, order.timezone) === order.time_window.start
                      ? `, when its ${order.time_window.start}–${order.time_window.end} window opens`
                      : ''}
                  </small>
                )}
                {delay && <small className="delay">{delay}</small>}
                {s.violations.map((v) => (
                  <small key={`${v.constraint}${v.order_id}`} className="warn">
                    {v.message}
                  </small>
                ))}
              </span>
              <button
                type="button"
                className={s.feasible ? 'primary' : ''}
                disabled={busy !== null}
                aria-busy={busy === s.courier.id || undefined}
                onClick={() => dispatch(s)}
                aria-label={`Assign ${order.tracking_code} to ${s.courier.name}`}
              >
                Assign
              </button>
            </li>
          );
        })}
      </ol>
    </section>
  );
}
