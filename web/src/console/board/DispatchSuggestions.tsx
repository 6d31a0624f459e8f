import { useEffect, useState } from 'react';
import { type Order, type Schemas, unwrap, whenIn } from '../../shared/api';
import { useSession } from '../session';
import { ErrorNote } from '../ui';

type Suggestion = Schemas['DispatchSuggestion'];

/**
 * Live dispatch on the board (DESIGN §16, docs/dispatch.md): for the one order selected, the
 * couriers on duty ranked by the cost of inserting it into their current route, each with its
 * added km and minutes and what it would break; one click inserts it there
 * (POST /v1/orders/{id}/dispatch with that courier).
 */
export function DispatchSuggestions({ order, onDone }: { order: Order; onDone: (note: string) => void }) {
  const { client } = useSession();
  const [list, setList] = useState<Suggestion[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    let live = true;
    setList(null);
    setError(null);
    unwrap(client.GET('/v1/orders/{id}/dispatch_suggestions', { params: { path: { id: order.id } } })).then(
      (r) => live && setList(r.data),
      (e) => live && setError(e),
    );
    return () => {
      live = false;
    };
  }, [client, order.id]);

  async function dispatch(s: Suggestion) {
    setBusy(true);
    try {
      const r = await unwrap(
        client.POST('/v1/orders/{id}/dispatch', {
          params: { path: { id: order.id } },
          body: { courier_id: s.courier.id },
          headers: { 'Idempotency-Key': crypto.randomUUID() },
        }),
      );
      onDone(`${order.tracking_code} inserted as stop ${r.suggestion.position} of ${s.courier.name}\u2019s route.`);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="suggestions" aria-label={`Suggested couriers for ${order.tracking_code}`}>
      <h2>Suggested couriers</h2>
      <ErrorNote error={error} />
      {list === null && !error && <p className="muted">Ranking couriers…</p>}
      {list?.length === 0 && <p className="muted">No courier is on duty for this order\u2019s day.</p>}
      <ol>
        {list?.map((s) => {
          // The delivery's ETA (a pair's pickup stop, marked `kind`, comes first).
          const eta = s.stops.find((x) => x.order_id === order.id && !x.kind)?.arrival_at;
          return (
            <li key={s.courier.id} className="suggestion-row" data-courier={s.courier.id}>
              <span className="main">
                <strong>{s.courier.name}</strong>
                <small>
                  {s.pickup_position !== undefined ? `pickup at stop ${s.pickup_position} · ` : ''}
                  stop {s.position} · +{s.added_km.toFixed(1)} km · +{Math.round(s.added_minutes)} min
                  {eta ? ` · ETA ${whenIn(eta, order.timezone)}` : ''}
                </small>
                {s.violations.map((v) => (
                  <small key={`${v.constraint}${v.order_id}`} className="warn">
                    {v.message}
                  </small>
                ))}
              </span>
              <button
                type="button"
                className={s.feasible ? 'primary' : ''}
                disabled={busy}
                onClick={() => void dispatch(s)}
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
