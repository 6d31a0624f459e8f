import { useState } from 'react';
import { isFinished } from '../../../../src/features/lifecycle/transitions.js';
import { localDay } from '../../../../src/shared/local-time.js';
import { allCouriers, allRoutes, browserZone, type Schemas, whenIn } from '../../shared/api';
import { streamable, useBatched, useLive } from '../live';
import { routeColor } from '../route-colors';
import { useSession } from '../session';
import { ErrorNote, TableHead, useLoad } from '../ui';
import { isMissing, parcelsOf } from './parcels';

type Route = Schemas['Route'];

/**
 * A day's routes (`GET /v1/routes?date=`): each courier's progress and what is loaded, for the
 * loading dock in the morning and the office during the day, each linking to its route page
 * (stops, missing parcels, labels). Kept current by the stream's order events, read again at most
 * once a second.
 */
export default function RoutesPage() {
  const session = useSession();
  const { client, me } = session;
  const tz = me?.timezone ?? browserZone();
  const [day, setDay] = useState(() => localDay(Date.now(), tz));
  const routes = useLoad(() => allRoutes(client, { date: day }, 10), [day]);
  // The carrier's couriers in creation order decide each one's colour, as on the map and the board.
  const roster = useLoad(() => allCouriers(client), []);
  // One read a second at most, of the day shown when it runs: a read scheduled before the day was
  // changed must not bring the earlier day back (the batch calls the latest render's reload).
  const later = useBatched(() => void routes.reload(), 1000);
  useLive(true, streamable(session), { order: later, route: later, reset: later, poll: later });

  const list = routes.data ?? [];
  return (
    <section className="routes-page" aria-labelledby="routes-title">
      <h1 id="routes-title">Routes</h1>
      <p className="filters">
        <label>
          Day <input type="date" value={day} required onChange={(e) => e.target.value && setDay(e.target.value)} />
        </label>{' '}
        <small className="muted">{tz}</small>
      </p>
      <ErrorNote error={routes.error ?? roster.error} />
      {routes.data && list.length === 0 && (
        <p className="empty-note">
          No routes on {day}. Routes come from a committed plan (Planning), auto-dispatch, or{' '}
          <code>POST /v1/routes</code> with a <code>date</code>.
        </p>
      )}
      {list.length > 0 && (
        <div className="table-wrap">
          <table className="table" aria-label={`Routes of ${day}`}>
            <TableHead columns={['Courier', 'Progress', 'Loaded', 'Made', 'Route']} />
            <tbody>
              {list.map((r) => (
                <RouteRow key={r.id} r={r} color={routeColor(r.courier.id, roster.data ?? [])} tz={tz} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function RouteRow({ r, color, tz }: { r: Route; color: string; tz: string }) {
  const stops = parcelsOf(r);
  const done = stops.filter((s) => isFinished(s.status)).length;
  const missing = stops.filter(isMissing).length;
  return (
    <tr data-route={r.id}>
      <td>
        <span className="route-swatch" style={{ background: color }} aria-hidden="true" /> {r.courier.name}
      </td>
      <td>{stops.length === 0 ? 'No stops left' : `${done} of ${stops.length} done`}</td>
      <td className={missing > 0 ? 'error-note' : ''}>
        {stops.length - missing} of {stops.length} loaded{missing > 0 ? ` · ${missing} missing` : ''}
      </td>
      <td>{whenIn(r.created_at, tz)}</td>
      <td>
        <a href={`#/routes/${r.id}`}>Open</a>
      </td>
    </tr>
  );
}
