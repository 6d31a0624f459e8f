import { type FormEvent, useEffect, useId, useMemo, useRef, useState } from 'react';
import { localDay } from '../../../../src/shared/local-time.js';
import { type ApiFailure, browserZone, type Order, unwrap } from '../../shared/api';
import { streamable, useBatched, useLive } from '../live';
import { useSession } from '../session';
import { ErrorNote, errorsOf } from '../ui';
import { FORM_PARAMS, type Objective, type PlanRoute, type RoutePlan, running } from './common';
import { DepotForm } from './DepotForm';
import { OrdersToPlan } from './OrdersToPlan';
import { type Limits, limitError, limitProblems, limitsBody, PlanForm } from './PlanForm';
import { PlanResult } from './PlanResult';
import { useFollowPlan, usePlanningData } from './plan-data';
import { usePlanMap } from './plan-map';

/**
 * Route planning (#/planning, #/planning/rplan_…): pick a date, a depot and couriers, optimize, move
 * stops if need be, then commit the proposed routes. This page holds the state; planning/ has its
 * data, form, result (PlanRoutes: the routes and their editing) and map.
 */

export default function Planning({ id }: { id?: string }) {
  const session = useSession();
  const { client } = session;
  const me = session.me!;
  const canCreateDepot = me.role === 'admin' || me.via === 'key';
  const uid = useId();

  const [depotId, setDepotId] = useState('');
  // Today in the user's zone (the carrier's): the day a dispatcher plans by default.
  const [date, setDate] = useState(() => localDay(Date.now(), me.timezone));
  const { depots, couriers, roster, orders, known, loadError, setLoadError, remember, loadOrders, loadDepots } =
    usePlanningData(client, setDepotId, date, me.timezone);
  const [showDepotForm, setShowDepotForm] = useState(false);
  const [objective, setObjective] = useState<Objective>('min_distance');
  const [seconds, setSeconds] = useState('5');
  /** Couriers left out of the plan (all active couriers are in by default). */
  const [leftOut, setLeftOut] = useState<Set<string>>(new Set());
  /** Per-courier limits for this plan only, as typed ('' keeps the courier's own). */
  const [limits, setLimits] = useState<Limits>({});
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [starting, setStarting] = useState(false);

  const [plan, setPlan] = useState<RoutePlan | null>(null);
  const [committing, setCommitting] = useState(false);
  const [commitError, setCommitError] = useState<ApiFailure | Error | null>(null);

  const progressRef = useRef<HTMLDivElement>(null);
  const resultRef = useRef<HTMLHeadingElement>(null);
  const commitNoteRef = useRef<HTMLParagraphElement>(null);

  // A plan named in the address (#/planning/rplan_…) survives a reload.
  // biome-ignore lint/correctness/useExhaustiveDependencies: when the address names another plan
  useEffect(() => {
    if (!id || plan?.id === id) return;
    unwrap(client.GET('/v1/route_plans/{id}', { params: { path: { id } } }))
      .then((p) => {
        setPlan(p);
        setDepotId(p.depot);
        setDate(p.date);
      })
      .catch(setLoadError);
  }, [id]);

  const planId = plan?.id;
  const isRunning = running(plan);
  const routePlan = useFollowPlan(planId, isRunning, client, setPlan, setLoadError);

  // New and changed orders: the stream (batched, a commit sends one event per order) or polling;
  // and a running plan's progress on the same stream.
  const batched = useBatched(() => void loadOrders(), 500);
  useLive(true, streamable(session), { order: batched, poll: () => void loadOrders(), routePlan }, 15_000);

  // Once the plan is in, read the planned orders this page has not seen (a list cut short, or
  // orders since assigned), then move the focus to the result.
  const planStatus = plan?.status;
  // biome-ignore lint/correctness/useExhaustiveDependencies: when a plan ends
  useEffect(() => {
    if (!plan || planStatus !== 'succeeded') return;
    const missing = plan.order_ids.filter((oid) => !known.has(oid)).slice(0, 300);
    if (missing.length) {
      void Promise.all(
        missing.map((oid) =>
          client
            .GET('/v1/orders/{id}', { params: { path: { id: oid } } })
            .then((r) => r.data)
            .catch(() => undefined),
        ),
      ).then((list) => remember(list.filter((o): o is Order => !!o)));
    }
    resultRef.current?.focus();
  }, [planId, planStatus]);

  const depot = depots?.find((d) => d.id === (plan?.depot ?? depotId)) ?? null;
  const tz = depot?.timezone ?? browserZone();
  // The server's rule for a plan's orders: due that local day (each in its own zone), or undated.
  const dueOrders = useMemo(
    () => (orders ?? []).filter((o) => o.requested_day === null || o.requested_day === date),
    [orders, date],
  );
  const chosen = (couriers ?? []).filter((c) => !leftOut.has(c.id));

  async function optimize(e?: FormEvent) {
    e?.preventDefault();
    setCommitError(null);
    const local: Record<string, string> = {};
    if (!depotId) local.depot = 'Choose a depot.';
    if (!date) local.date = 'Choose a date.';
    if (chosen.length === 0) local.couriers = 'Pick at least one courier.';
    const secs = Number.parseFloat(seconds);
    if (!Number.isFinite(secs)) local.time_limit_ms = 'Enter a number of seconds, from 0.1 to 60.';
    // A limit that is no number is refused here, named by its courier as the API's refusals are.
    const said: string[] = [];
    for (const c of chosen)
      for (const { k, message } of limitProblems(limits[c.id])) {
        local[limitError(c.id, k)] = message;
        said.push(`${c.name}: ${message}`);
      }
    if (said.length) local.couriers = said.join(' ');
    setErrors(local);
    if (Object.keys(local).length) return;
    setStarting(true);
    try {
      const p = await unwrap(
        client.POST('/v1/route_plans', {
          body: {
            date,
            depot: depotId,
            couriers: chosen.map((c) => ({ courier_id: c.id, ...limitsBody(limits[c.id]) })),
            objective,
            time_limit_ms: Math.round(secs * 1000),
          },
        }),
      );
      setPlan(p);
      // The address names the plan (no hashchange: the page stays as it is).
      history.replaceState(null, '', `#/planning/${p.id}`);
      requestAnimationFrame(() => progressRef.current?.focus());
    } catch (err) {
      const found = errorsOf(err);
      // couriers[0].courier_id and the like belong to the couriers fieldset.
      const out: Record<string, string> = {};
      for (const [k, v] of Object.entries(found)) {
        // Named by the courier, not by its place in the request: "Luis Rojas: Invalid shift_end: …".
        const [, i, field] = /^couriers\[(\d+)\]\.?(.*)$/.exec(k) ?? [];
        const who = i === undefined ? undefined : chosen[Number(i)];
        if (k.startsWith('couriers')) out.couriers = who ? `${who.name}: ${v.replace(/couriers\[\d+\]\./g, '')}` : v;
        // The one box at fault is marked, not the whole list (limitError in PlanForm).
        if (who && field) out[limitError(who.id, field)] = v;
        else if (FORM_PARAMS.includes(k)) out[k] = v;
        else out[''] = v;
      }
      setErrors(out);
    } finally {
      setStarting(false);
    }
  }

  async function planAgain() {
    await loadOrders();
    await optimize();
  }

  /** `force`: the dispatcher saw the warnings an edit left and commits anyway. */
  async function commit(force: boolean) {
    if (!plan) return;
    setCommitting(true);
    setCommitError(null);
    try {
      const p = await unwrap(
        client.POST('/v1/route_plans/{id}/commit', {
          params: { path: { id: plan.id } },
          body: force ? { force: true } : {},
        }),
      );
      setPlan(p);
      void loadOrders();
      requestAnimationFrame(() => commitNoteRef.current?.focus());
    } catch (err) {
      setCommitError(err instanceof Error ? err : new Error(String(err)));
    } finally {
      setCommitting(false);
    }
  }

  const succeeded = plan?.status === 'succeeded' ? plan : null;
  const routes = useMemo<PlanRoute[]>(() => succeeded?.routes ?? [], [succeeded]);
  const unassigned = useMemo(() => succeeded?.unassigned ?? [], [succeeded]);
  const planDepot = plan?.depot;
  const planCouriers = plan?.couriers;
  const mapEl = usePlanMap({
    routes,
    unassigned,
    known,
    depots,
    couriers,
    dueOrders,
    depotId,
    planDepot,
    planCouriers,
    roster,
    tz,
  });

  return (
    <section className="planning" aria-labelledby="planning-title">
      <h1 id="planning-title">Planning</h1>
      <ErrorNote error={loadError} />
      <div className="planning-cols">
        <div className="planning-side">
          {depots !== null && depots.length === 0 && (
            <div className="note">
              <p>
                <strong>No depot yet.</strong> Plans start and end at a depot.
                {canCreateDepot ? ' Create one:' : ' Ask an admin to create one.'}
              </p>
            </div>
          )}
          {canCreateDepot && depots !== null && depots.length > 0 && (
            <button
              type="button"
              className="link"
              aria-expanded={showDepotForm}
              onClick={() => setShowDepotForm((v) => !v)}
            >
              {showDepotForm ? 'Hide the depot form' : 'Add a depot'}
            </button>
          )}
          {canCreateDepot && depots !== null && (depots.length === 0 || showDepotForm) && (
            <DepotForm
              onCreated={(d) => {
                setShowDepotForm(false);
                void loadDepots().then(() => setDepotId(d.id));
              }}
            />
          )}

          <PlanForm
            uid={uid}
            errors={errors}
            date={date}
            setDate={setDate}
            depots={depots}
            depotId={depotId}
            setDepotId={setDepotId}
            objective={objective}
            setObjective={setObjective}
            seconds={seconds}
            setSeconds={setSeconds}
            couriers={couriers}
            leftOut={leftOut}
            setLeftOut={setLeftOut}
            limits={limits}
            setLimits={setLimits}
            chosen={chosen}
            starting={starting}
            isRunning={isRunning}
            onSubmit={optimize}
          />

          <PlanResult
            uid={uid}
            plan={plan}
            isRunning={isRunning}
            progressRef={progressRef}
            resultRef={resultRef}
            commitNoteRef={commitNoteRef}
            routes={routes}
            known={known}
            couriers={couriers}
            roster={roster}
            tz={tz}
            committing={committing}
            commitError={commitError}
            starting={starting}
            commit={commit}
            planAgain={planAgain}
            setPlan={setPlan}
          />

          {!(plan?.status === 'succeeded') && (
            <OrdersToPlan uid={uid} orders={orders} dueOrders={dueOrders} date={date} />
          )}
        </div>
        <div
          className="map planning-map"
          ref={mapEl}
          role="application"
          aria-label={routes.length ? 'Map of the proposed routes' : 'Map of the orders to plan'}
        />
      </div>
    </section>
  );
}
