import type { RefObject } from 'react';
import { ApiFailure, type Courier, type Order } from '../../shared/api';
import { clock, type PlanRoute, REASON, ROUTE_COLORS, type RoutePlan } from './common';

/**
 * A plan as it runs and once it is in: the progress bar, its state for screen readers, the failure,
 * or the proposed routes with the Commit button and, when a commit finds orders changed, which ones.
 */
export function PlanResult({
  uid,
  plan,
  isRunning,
  progressRef,
  resultRef,
  commitNoteRef,
  routes,
  unassigned,
  known,
  couriers,
  tz,
  committing,
  commitError,
  starting,
  commit,
  planAgain,
}: {
  uid: string;
  plan: RoutePlan | null;
  isRunning: boolean;
  progressRef: RefObject<HTMLDivElement | null>;
  resultRef: RefObject<HTMLHeadingElement | null>;
  commitNoteRef: RefObject<HTMLParagraphElement | null>;
  routes: PlanRoute[];
  unassigned: NonNullable<RoutePlan['unassigned']>;
  known: Map<string, Order>;
  couriers: Courier[] | null;
  tz: string;
  committing: boolean;
  commitError: ApiFailure | Error | null;
  starting: boolean;
  commit: () => Promise<void>;
  planAgain: () => Promise<void>;
}) {
  const courierName = (cid: string) => couriers?.find((c) => c.id === cid)?.name ?? cid;
  const pct = plan ? Math.round(plan.progress * 100) : 0;
  const stale = commitError instanceof ApiFailure && commitError.code === 'plan_stale';
  const orderLabel = (oid: string) => {
    const o = known.get(oid);
    return o ? `${o.customer.name} (${o.tracking_code})` : oid;
  };

  return (
    <>
      {plan && isRunning && (
        <div className="plan-progress" ref={progressRef} tabIndex={-1}>
          <p id={`${uid}-progress`}>
            {plan.status === 'queued' ? 'Waiting to start…' : 'Optimizing routes…'} {pct} %
          </p>
          <div
            className="plan-bar"
            role="progressbar"
            aria-labelledby={`${uid}-progress`}
            aria-valuemin={0}
            aria-valuemax={100}
            aria-valuenow={pct}
          >
            <span style={{ width: `${pct}%` }} />
          </div>
        </div>
      )}
      <p className="sr-only" role="status">
        {plan
          ? isRunning
            ? 'The plan is running.'
            : plan.status === 'failed'
              ? 'The plan failed.'
              : plan.committed_at
                ? 'The plan is committed.'
                : 'The plan is ready.'
          : ''}
      </p>

      {plan?.status === 'failed' && (
        <p className="error-note" role="alert">
          The plan failed: {plan.failure_message ?? 'no reason given'}.
        </p>
      )}

      {plan?.status === 'succeeded' && (
        <section className="plan-result" aria-labelledby={`${uid}-result`}>
          <h2 id={`${uid}-result`} ref={resultRef} tabIndex={-1}>
            Proposed routes
          </h2>
          {plan.totals && (
            <p className="totals">
              {plan.totals.routes} {plan.totals.routes === 1 ? 'route' : 'routes'} · {plan.totals.orders} orders planned
              · {plan.totals.unassigned} not planned · {plan.totals.distance_km.toFixed(1)} km ·{' '}
              {Math.round(plan.totals.duration_min)} min
            </p>
          )}
          {plan.committed_at ? (
            <p className="note" role="status" ref={commitNoteRef} tabIndex={-1}>
              Committed: {plan.route_ids.length} {plan.route_ids.length === 1 ? 'route' : 'routes'} created and their
              orders assigned. See them on the <a href="#/map">live map</a>.
            </p>
          ) : (
            <>
              <p className="muted small">
                The plan is committed as proposed: the API takes no edits, so stops cannot be moved here. To change it,
                pick other couriers or settings and optimize again.
              </p>
              <div className="buttons">
                <button
                  type="button"
                  className="primary"
                  onClick={() => void commit()}
                  disabled={committing || routes.length === 0}
                >
                  {committing ? 'Committing…' : 'Commit'}
                </button>
              </div>
            </>
          )}
          {commitError && (
            <div className="error-note stale" role="alert">
              {stale ? (
                <>
                  <p>
                    <strong>Nothing was committed: some orders changed since this plan was made.</strong> Make a new
                    plan with the orders as they are now.
                  </p>
                  <ul aria-label="Orders that changed">
                    {[...new Set(commitError.message.match(/ord_[0-9A-Za-z]+/g) ?? [])].map((oid) => (
                      <li key={oid}>{orderLabel(oid)}</li>
                    ))}
                  </ul>
                </>
              ) : (
                <p>{commitError.message}</p>
              )}
              {stale && (
                <button type="button" onClick={() => void planAgain()} disabled={starting}>
                  Plan again
                </button>
              )}
            </div>
          )}

          {routes.length === 0 && <p className="muted">No route: no order could be planned.</p>}
          {routes.map((r, i) => {
            const color = ROUTE_COLORS[i % ROUTE_COLORS.length]!;
            const hid = `${uid}-route-${i}`;
            return (
              <section key={r.courier_id} className="plan-route" aria-labelledby={hid}>
                <h3 id={hid}>
                  <span className="swatch" style={{ background: color }} aria-hidden="true" />
                  {courierName(r.courier_id)}
                </h3>
                <p className="muted small">
                  {r.stops.length} {r.stops.length === 1 ? 'stop' : 'stops'} · leaves {clock(r.start_at, tz)} · back{' '}
                  {clock(r.end_at, tz)} · {r.distance_km.toFixed(1)} km · {Math.round(r.duration_min)} min
                </p>
                <ol className="stops" aria-label={`Stops of ${courierName(r.courier_id)}`}>
                  {r.stops.map((s, k) => {
                    const o = known.get(s.order_id);
                    return (
                      <li key={s.order_id}>
                        <span className="seq" style={{ background: color }} aria-hidden="true">
                          {k + 1}
                        </span>
                        <span className="what">
                          <a href={`#/orders/${s.order_id}`}>{o?.customer.name ?? s.order_id}</a>
                          <small className="muted">
                            {o ? `${o.tracking_code} · ${o.delivery_address.address}` : ''}
                            {o?.time_window ? ` · window ${o.time_window.start}–${o.time_window.end}` : ''}
                          </small>
                        </span>
                        <span className="when">
                          <span>
                            Arrives <time dateTime={s.arrival_at}>{clock(s.arrival_at, tz)}</time>
                          </span>
                          <small className="muted">
                            Load: {s.load_packages} pkg · {Number(s.load_kg.toFixed(2))} kg
                          </small>
                        </span>
                      </li>
                    );
                  })}
                </ol>
              </section>
            );
          })}
          {unassigned.length > 0 && (
            <section className="plan-unassigned" aria-labelledby={`${uid}-unassigned`}>
              <h3 id={`${uid}-unassigned`}>Not planned ({unassigned.length})</h3>
              <ul aria-label="Orders not planned">
                {unassigned.map((u) => (
                  <li key={u.order_id}>
                    <a href={`#/orders/${u.order_id}`}>{orderLabel(u.order_id)}</a>: {REASON[u.reason]}
                  </li>
                ))}
              </ul>
            </section>
          )}
        </section>
      )}
    </>
  );
}
