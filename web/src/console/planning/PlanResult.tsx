import type { RefObject } from 'react';
import { ApiFailure, type Courier, type Order } from '../../shared/api';
import { plural } from '../../shared/text';
import type { PlanRoute, RoutePlan } from './common';
import { PlanRoutes } from './PlanRoutes';

/**
 * A plan as it runs and once it is in: the progress bar, its state for screen readers, the failure,
 * or the proposed routes (PlanRoutes, where they are edited) with the Commit button, a warning when
 * an edit broke constraints, and, when a commit finds orders changed, which ones.
 */
export function PlanResult({
  uid,
  plan,
  isRunning,
  progressRef,
  resultRef,
  commitNoteRef,
  routes,
  known,
  couriers,
  roster,
  tz,
  committing,
  commitError,
  starting,
  commit,
  planAgain,
  setPlan,
}: {
  uid: string;
  plan: RoutePlan | null;
  isRunning: boolean;
  progressRef: RefObject<HTMLDivElement | null>;
  resultRef: RefObject<HTMLHeadingElement | null>;
  commitNoteRef: RefObject<HTMLParagraphElement | null>;
  routes: PlanRoute[];
  known: Map<string, Order>;
  couriers: Courier[] | null;
  roster: readonly { id: string }[];
  tz: string;
  committing: boolean;
  commitError: ApiFailure | Error | null;
  starting: boolean;
  commit: (force: boolean) => Promise<void>;
  planAgain: () => Promise<void>;
  setPlan: (p: RoutePlan) => void;
}) {
  const warnings = plan?.totals?.violations ?? 0;
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
              {plural(plan.totals.routes, 'route')} · {plan.totals.orders} orders planned · {plan.totals.unassigned} not
              planned · {plan.totals.distance_km.toFixed(1)} km · {Math.round(plan.totals.duration_min)} min
            </p>
          )}
          {plan.objective === 'balanced' && <BalanceNote plan={plan} />}
          {plan.committed_at ? (
            <p className="note" role="status" ref={commitNoteRef} tabIndex={-1}>
              Committed: {plural(plan.route_ids.length, 'route')} created and their orders assigned. See them on the{' '}
              <a href="#/map">live map</a>, or open a route (stops, loaded parcels, labels):{' '}
              {plan.route_ids.map((rid, i) => (
                <span key={rid}>
                  {i > 0 ? ', ' : ''}
                  <a href={`#/routes/${rid}`}>{routeLabel(plan, i, couriers)}</a>
                </span>
              ))}
              .
            </p>
          ) : (
            <>
              <p className="muted small">
                Drag a stop to reorder its route, onto another courier to move it, or onto Not planned to leave it out;
                or use its arrows and Move. Times and loads are worked out again after each change; a stop's load is
                what stays on board when the courier leaves it.
              </p>
              {warnings > 0 && (
                <p className="warning-note">
                  <strong>{plural(warnings, 'warning')}:</strong> some stops break a time window, a capacity or a shift
                  (see under them). Move them, or commit anyway.
                </p>
              )}
              <div className="buttons">
                <button
                  type="button"
                  className="primary"
                  onClick={() => void commit(warnings > 0)}
                  disabled={committing || routes.length === 0}
                >
                  {committing ? 'Committing…' : warnings > 0 ? 'Commit anyway' : 'Commit'}
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
          <PlanRoutes plan={plan} setPlan={setPlan} known={known} couriers={couriers} roster={roster} tz={tz} />
        </section>
      )}
    </>
  );
}

/** A committed route's link: its courier's name (the plan's routes and route_ids are in one order). */
function routeLabel(plan: RoutePlan, i: number, couriers: Courier[] | null): string {
  const id = plan.routes?.[i]?.courier_id;
  return couriers?.find((c) => c.id === id)?.name ?? `route ${i + 1}`;
}

/**
 * How even "Even work" came out, as the optimizer measures it (run.ts `balanced`): stops per route
 * against an even share of the planned stops over the plan's couriers. The optimizer keeps a more
 * even answer only when it serves as many orders within 20 % more distance than the shortest
 * routes; otherwise the routes stay uneven, and the page says so rather than leave it to be noticed.
 */
function BalanceNote({ plan }: { plan: RoutePlan }) {
  const counts = plan.couriers.map((c) => plan.routes?.find((r) => r.courier_id === c.courier_id)?.stops.length ?? 0);
  const total = counts.reduce((a, b) => a + b, 0);
  if (counts.length === 0 || total === 0) return null;
  const share = Math.ceil(total / counts.length);
  const most = Math.max(...counts);
  if (most <= share) return <p className="note">Even work: at most {share} stops a route.</p>;
  return (
    <p className="note" role="status">
      Even work: routes of {Math.min(...counts)} to {most} stops, where an even share is {share}. More even routes would
      have left orders out or driven more than 20 % farther than the shortest routes (time windows, shifts, capacities
      and limits decide which).
    </p>
  );
}
