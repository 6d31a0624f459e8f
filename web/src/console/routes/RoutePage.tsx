import { useState } from 'react';
import { isFinished } from '../../../../src/features/lifecycle/transitions.js';
import { browserZone, labelNumbers, type Schemas, unwrap, whenIn } from '../../shared/api';
import { streamable, useBatched, useLive } from '../live';
import { useSession } from '../session';
import { ErrorNote, StatusBadge, TableHead, useLoad } from '../ui';
import { isMissing, parcelsOf } from './parcels';
import { Reoptimize } from './Reoptimize';

type Route = Schemas['Route'];

/**
 * One route (DESIGN §16, docs/labels.md, docs/dispatch.md): its stops in order with their address,
 * status and whether each parcel was scanned into the vehicle, the courier, its labels as a PDF, and
 * re-optimizing what is left of it. Reached from the Routes page, the board and a committed plan.
 */
export default function RoutePage({ id }: { id: string }) {
  const session = useSession();
  const { client, me } = session;
  const tz = me?.timezone ?? browserZone();
  const route = useLoad(() => unwrap(client.GET('/v1/routes/{id}', { params: { path: { id } } })), [id]);
  const [printing, setPrinting] = useState<unknown>(null);
  // Kept current like the Routes page: read again (once a second at most) on an event of one of its
  // orders (a stop finished, scanned, moved away) and on a `route` message for it (an order
  // inserted, a re-optimization applied by another dispatcher).
  const onIt = new Set(route.data?.stops.map((s) => s.order) ?? []);
  const later = useBatched(() => void route.reload(), 1000);
  useLive(true, streamable(session), {
    order: (orderId) => onIt.has(orderId) && later(),
    route: (m) => m.id === id && later(),
    reset: later,
    poll: later,
  });

  // Fetched with the console's credentials and environment (Ruta-Mode), then opened in the
  // browser's PDF viewer: a plain link would not carry the environment header.
  async function labels() {
    setPrinting(null);
    const { data, error, response } = await client.GET('/v1/routes/{id}/labels.pdf', {
      params: { path: { id } },
      parseAs: 'blob',
    });
    if (!response.ok || !data) {
      setPrinting(new Error((error as { error?: { message?: string } })?.error?.message ?? `HTTP ${response.status}`));
      return;
    }
    window.open(URL.createObjectURL(data as Blob), '_blank', 'noopener');
  }

  const r: Route | undefined = route.data;
  // As the Routes page counts them.
  const parcels = r ? parcelsOf(r) : [];
  const missing = parcels.filter(isMissing).length;
  // The labels' numbers (STOP 5), as the courier's phone shows them; a pair's pickup shows P5.
  const numbers = labelNumbers(r?.stops ?? []);
  const numberOf = (s: Route['stops'][number]) => {
    const n = s.on_route ? numbers.get(s.order) : undefined;
    if (n === undefined) return '—';
    return s.kind === 'pickup' ? `P${n}` : String(n);
  };
  return (
    <section className="route-page">
      <h1>Route {r ? `· ${r.courier.name}` : ''}</h1>
      <ErrorNote error={route.error} />
      {r && (
        <>
          <p>
            <span className="muted">{r.id}</span>
            {` · ${r.date}`} · Courier: <a href={`#/couriers`}>{r.courier.name}</a>
          </p>
          <p role="status">
            {parcels.length - missing} of {parcels.length} parcels loaded
            {missing > 0 ? ` · ${missing} missing` : ''}
          </p>
          <p>
            <button type="button" onClick={() => void labels()} disabled={parcels.every((s) => isFinished(s.status))}>
              Labels (PDF)
            </button>{' '}
            <button type="button" onClick={() => void route.reload()}>
              Refresh
            </button>
          </p>
          <ErrorNote error={printing} />
          <Reoptimize route={r} tz={tz} onApplied={() => void route.reload()} />
          <table className="route-stops">
            <TableHead columns={['Stop', 'Parcel', 'Address', 'Status', 'Loaded']} />
            <tbody>
              {r.stops.map((s) => (
                <tr
                  key={`${s.order}:${s.kind}`}
                  data-order={s.order}
                  data-kind={s.kind}
                  className={s.on_route ? '' : 'muted'}
                >
                  <td>{numberOf(s)}</td>
                  <td>
                    <a href={`#/orders/${s.order}`}>{s.tracking_code}</a>
                    {s.on_route ? '' : ' (moved to another route)'}
                  </td>
                  <td>
                    {s.kind === 'pickup' ? 'Pickup: ' : ''}
                    {[s.address.address, s.address.district].filter(Boolean).join(', ')}
                  </td>
                  <td>
                    <StatusBadge status={s.status} />
                  </td>
                  <td className={s.loaded_at ? 'loaded' : isMissing(s) ? 'missing' : ''}>
                    {s.loaded_at ? `Loaded ${whenIn(s.loaded_at, tz)}` : isFinished(s.status) ? '—' : 'Missing'}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}
