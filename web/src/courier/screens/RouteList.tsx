import { lazy, Suspense, useState } from 'react';
import { type Action, isFinished } from '../../../../src/features/lifecycle/transitions.js';
import type { Order } from '../../shared/api';
import { Boundary } from '../../shared/Boundary';
import type { RouteOrder } from '../client';
import { statusWords } from '../format';
import type { MoveEntry } from '../queue';
import type { DoneStop } from '../storage';
import { Stop } from './Stop';

const TO_LOAD = ['assigned', 'ready_for_pickup', 'picked_up'];

// Leaflet is a third of the app's weight: the map loads after the route is on screen.
const loadMap = () => import('./StopsMap');

/**
 * The map of the stops, once its chunk arrives. A phone that goes offline before it did keeps its
 * list and its buttons (the map says why it is missing) and draws the map when the network is back.
 */
function RouteMap({ stops, numbers }: { stops: Order[]; numbers: Map<string, number> }) {
  const [StopsMap, setStopsMap] = useState(() => lazy(loadMap));
  return (
    <Boundary
      fallback={
        <p className="stops-map off" role="note">
          The map loads when the phone is back online.
        </p>
      }
      onRetry={() => setStopsMap(() => lazy(loadMap))}
    >
      <Suspense fallback={<div className="stops-map" />}>
        <StopsMap stops={stops} numbers={numbers} />
      </Suspense>
    </Boundary>
  );
}

/** The stops as the phone shows them: the server's status, moved on by the actions still waiting to sync. */
export function withQueued(stops: RouteOrder[], queued: MoveEntry[]): RouteOrder[] {
  return stops.map((o) => {
    const last = queued.filter((q) => q.orderId === o.id).pop();
    return last ? ({ ...o, status: last.to } as RouteOrder) : o;
  });
}

/** A pickup-and-delivery order whose parcel is still to collect at its own pickup address. */
export const toCollect = (o: Order) =>
  !!o.pickup_address && o.pickup_address.depot === null && ['assigned', 'ready_for_pickup'].includes(o.status);

/**
 * The stops in route order: each order's delivery, and before it, while the parcel is still to
 * collect, a pair's pickup stop at its own place on the route (just before the delivery when the
 * route's numbers are unknown).
 */
export function stopsOf(orders: RouteOrder[]): { order: RouteOrder; kind: 'pickup' | 'delivery' }[] {
  const out = orders.flatMap((o, i) => {
    const at = o.stop_at ?? 1e9 + i;
    const delivery = { order: o, kind: 'delivery' as const, at };
    return toCollect(o) ? [{ order: o, kind: 'pickup' as const, at: o.pickup_at ?? at - 0.5 }, delivery] : [delivery];
  });
  return out.sort((a, b) => a.at - b.at).map(({ order, kind }) => ({ order, kind }));
}

/**
 * Each order's stop number: the one its route label prints (`stop_no`), so the phone, the map and
 * the parcel in the van agree all day; an order on no route (assigned alone) follows the last.
 */
export function stopNumbers(orders: RouteOrder[]): Map<string, number> {
  let last = Math.max(0, ...orders.map((o) => o.stop_no ?? 0));
  return new Map(orders.map((o) => [o.id, o.stop_no ?? ++last]));
}

/**
 * Today's route: progress, Start route, the stops still to do (a finished stop stays while its last
 * move has not synced), a map of them, and what was done today (done.ts: the server's list, with
 * this phone's moves it does not have yet), which the progress counts.
 */
export function RouteList({
  stops,
  queued,
  done,
  onStart,
  onAction,
  onRefresh,
  onScan,
}: {
  stops: RouteOrder[];
  queued: MoveEntry[];
  done: DoneStop[];
  onStart: () => void;
  onAction: (o: Order, a: Action) => void;
  onRefresh: () => void;
  onScan: () => void;
}) {
  const shown = withQueued(stops, queued).filter(
    (o) => !isFinished(o.status) || queued.some((q) => q.orderId === o.id),
  );
  const open = shown.filter((o) => !isFinished(o.status));
  // A stop the phone shows as still to do is not done, whatever an older list said.
  const finished = done.filter((d) => !open.some((o) => o.id === d.id));
  const total = open.length + finished.length;
  const toLoad = open.filter((o) => TO_LOAD.includes(o.status)).length;
  const numbers = stopNumbers(stops);
  return (
    <>
      <div className="route-head">
        <h1 id="route-title" tabIndex={-1}>
          Today's route
        </h1>
        {stops.length > 0 && (
          <button type="button" className="primary" onClick={onScan}>
            Scan
          </button>
        )}
      </div>
      {total > 0 && (
        <p className="progress-line">
          <strong>
            {finished.length} of {total} done
          </strong>
          <progress max={total} value={finished.length} aria-label="Stops done" />
        </p>
      )}
      {toLoad > 0 && (
        <button type="button" className="primary big start" onClick={onStart}>
          Start route ({toLoad} {toLoad === 1 ? 'stop' : 'stops'})
        </button>
      )}
      {shown.length === 0 ? (
        <p className="muted">No stops assigned to you right now.</p>
      ) : (
        <>
          <RouteMap stops={open} numbers={numbers} />
          <ol className="stops">
            {stopsOf(shown).map(({ order: o, kind }) => (
              <Stop
                key={`${o.id}:${kind}`}
                order={o}
                kind={kind}
                number={numbers.get(o.id) ?? 0}
                loaded={!!o.loaded_at || queued.some((q) => q.orderId === o.id && q.action === 'load')}
                onAction={onAction}
              />
            ))}
          </ol>
        </>
      )}
      <button type="button" onClick={onRefresh}>
        Refresh
      </button>
      {finished.length > 0 && (
        <details className="done-today">
          <summary>Done today ({finished.length})</summary>
          <ul>
            {finished.map((d) => (
              <li key={d.id}>
                <strong>{d.name}</strong>
                {d.address && ` · ${d.address}`} <span className={`badge s-${d.status}`}>{statusWords(d.status)}</span>{' '}
                <span className="muted">
                  {/* In the phone's zone, named, as every time a person reads. */}
                  {new Date(d.at).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', timeZoneName: 'short' })}
                </span>
              </li>
            ))}
          </ul>
        </details>
      )}
    </>
  );
}
