import { useState } from 'react';
import { isFinished } from '../../../../src/features/lifecycle/transitions.js';
import { ApiFailure, clockIn, type Schemas, unwrap } from '../../shared/api';
import { useSession } from '../session';
import { ErrorNote, useGuard, useLoad } from '../ui';
import { ProposalMap } from './ProposalMap';

type Route = Schemas['Route'];
type Proposal = Schemas['RouteProposal'];
type Leg = Proposal['current'];

/** How long the solver may think for a proposal: a dispatcher waits for it, the route is short. */
const TIME_LIMIT_MS = 2000;

const km = (n: number) => `${n.toFixed(1)} km`;
const minutes = (n: number) => `${Math.round(n)} min`;

/**
 * Re-optimizing a route under way (DESIGN §16, docs/dispatch.md): the proposal from where the courier
 * is now, with its saving, beside the current order on the map and in two lists; applied only on
 * request, and exactly as shown (its route_version): if the route moved on meanwhile, the API's 409
 * says so and the dispatcher asks again. Finished stops and the stop under way stay where they are.
 */
export function Reoptimize({ route, tz: userZone, onApplied }: { route: Route; tz: string; onApplied: () => void }) {
  const { client } = useSession();
  // The proposal's times in the zone the API times it in, its courier's start depot's (its shift and
  // the violations' times are read there): a Madrid route seen from a Lima desk read "ending at 12:07
  // PM" beside "Back at 18:07, after the shift ends (18:00)". Without a depot, the user's (the carrier's).
  const depotZone = useLoad(async () => {
    const c = await unwrap(client.GET('/v1/couriers/{id}', { params: { path: { id: route.courier.id } } }));
    if (!c.start_depot) return null;
    return (await unwrap(client.GET('/v1/depots/{id}', { params: { path: { id: c.start_depot } } }))).timezone;
  }, [client, route.courier.id]);
  const tz = depotZone.data ?? userZone;
  const [proposal, setProposal] = useState<Proposal | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [note, setNote] = useState('');
  const { busy, run } = useGuard();
  const left = route.stops.filter((s) => s.on_route && !isFinished(s.status));

  const ask = (apply: boolean) =>
    run(apply ? 'apply' : 'ask', async () => {
      setError(null);
      setNote('');
      const body = apply
        ? { apply: true, order_ids: proposal?.proposed.order_ids, route_version: proposal?.route_version }
        : { time_limit_ms: TIME_LIMIT_MS };
      try {
        const p = await unwrap(client.POST('/v1/routes/{id}/reoptimize', { params: { path: { id: route.id } }, body }));
        if (apply) {
          setProposal(null);
          setNote(
            `Applied: the route saves ${km(p.saving.distance_km)} and ${minutes(p.saving.duration_min)}. ${route.courier.name}’s phone shows the new order.`,
          );
          onApplied();
        } else setProposal(p);
      } catch (e) {
        // The route changed since the proposal: what was shown is no longer what would be applied.
        if (e instanceof ApiFailure && e.code === 'route_changed') setProposal(null);
        setError(e);
      }
    });

  return (
    <section className="reoptimize" aria-label="Re-optimize">
      <p>
        <button type="button" onClick={() => void ask(false)} disabled={busy !== null || left.length < 2}>
          {busy === 'ask' ? 'Re-optimizing…' : 'Re-optimize'}
        </button>{' '}
        <span className="muted">
          {left.length < 2
            ? 'Fewer than two stops left: nothing to re-order.'
            : 'Proposes a better order for the stops left, from where the courier is now; nothing changes until you apply it.'}
        </span>
      </p>
      <ErrorNote error={error} />
      {note && <p role="status">{note}</p>}
      {proposal && (
        <ProposalView
          proposal={proposal}
          route={route}
          tz={tz}
          busy={busy}
          onApply={() => void ask(true)}
          onDiscard={() => setProposal(null)}
        />
      )}
    </section>
  );
}

function ProposalView(props: {
  proposal: Proposal;
  route: Route;
  tz: string;
  busy: string | null;
  onApply: () => void;
  onDiscard: () => void;
}) {
  const { proposal: p, route, tz } = props;
  const same = p.proposed.order_ids.join() === p.current.order_ids.join();
  const from = p.starts_from === 'position' ? `${route.courier.name}’s last position` : 'its start depot';
  return (
    <div className="proposal">
      <p role="status" className="saving">
        {same
          ? 'The current order is already the best found: nothing to save.'
          : `Saves ${km(p.saving.distance_km)} and ${minutes(p.saving.duration_min)}: ${km(p.current.distance_km)} → ${km(p.proposed.distance_km)}, ending at ${clockIn(p.proposed.end_at, tz)} instead of ${clockIn(p.current.end_at, tz)}.`}{' '}
        <span className="muted">
          Setting off from {from} at {clockIn(p.start_at, tz)} ({tz}).
        </span>
      </p>
      {p.proposed.violations.length > 0 && (
        <ul className="violations" aria-label="What the proposal breaks">
          {p.proposed.violations.map((v) => (
            <li key={`${v.constraint}:${v.order_id}`}>{v.message}</li>
          ))}
        </ul>
      )}
      <ProposalMap proposal={p} route={route} />
      <p className="muted">Blue and numbered: the proposed order. Grey and dashed: the current one.</p>
      <div className="proposal-legs">
        <LegList title="Current order" leg={p.current} route={route} tz={tz} />
        <LegList title="Proposed order" leg={p.proposed} route={route} tz={tz} />
      </div>
      <p>
        <button type="button" className="primary" onClick={props.onApply} disabled={props.busy !== null || same}>
          {props.busy === 'apply' ? 'Applying…' : 'Apply this order'}
        </button>{' '}
        <button type="button" onClick={props.onDiscard} disabled={props.busy !== null}>
          Discard
        </button>
      </p>
    </div>
  );
}

function LegList({ title, leg, route, tz }: { title: string; leg: Leg; route: Route; tz: string }) {
  const stopOf = (s: Leg['stops'][number]) =>
    route.stops.find((x) => x.order === s.order_id && x.kind === (s.kind ?? 'delivery'));
  return (
    <section aria-label={title}>
      <h3 className="leg-title">
        {title} <span className="muted">· {km(leg.distance_km)}</span>
      </h3>
      <ol className="leg" start={leg.stops[0]?.position ?? 1}>
        {leg.stops.map((s) => {
          const stop = stopOf(s);
          return (
            <li key={`${s.order_id}:${s.kind ?? 'delivery'}`} data-order={s.order_id}>
              <strong>{stop?.tracking_code ?? s.order_id}</strong>
              {s.kind === 'pickup' ? ' (pickup)' : ''} · {stop?.address.address ?? ''}{' '}
              <span className="muted">arrives {clockIn(s.arrival_at, tz)}</span>
            </li>
          );
        })}
      </ol>
    </section>
  );
}
