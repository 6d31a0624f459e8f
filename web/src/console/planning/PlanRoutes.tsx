import { useId, useState } from 'react';
import { type Courier, hoursIn, type Order } from '../../shared/api';
import './plan-edit.css';
import { plural } from '../../shared/text';
import { ErrorNote } from '../ui';
import { clock, colorOf, type PlanStop, REASON, type RoutePlan, waitsUntil } from './common';
import { lanesOf, stepTarget } from './edit-plan';
import { usePlanMoves } from './plan-moves';

/**
 * The proposed routes, one lane per planned courier (empty ones too, so a stop can be moved onto
 * them), and the orders left out. Before the commit every stop can be dragged (within its route to
 * reorder, onto another route, onto "Not planned"), or moved with its buttons and select, the
 * keyboard way. Each move is one PATCH; the server answers the plan with times and loads recomputed
 * and any broken constraint on its stop, which is shown under it.
 */
export function PlanRoutes({
  plan,
  setPlan,
  known,
  couriers,
  roster,
  tz,
}: {
  plan: RoutePlan;
  setPlan: (p: RoutePlan) => void;
  known: Map<string, Order>;
  couriers: Courier[] | null;
  roster: readonly { id: string }[];
  tz: string;
}) {
  const uid = useId();
  const editable = plan.committed_at === null;
  const [dest, setDest] = useState<Record<string, string>>({});
  /** Lanes folded away (a dense page for 40 stops: open only the couriers being worked on). */
  const [folded, setFolded] = useState<Set<string>>(new Set());
  const courierName = (cid: string) => couriers?.find((c) => c.id === cid)?.name ?? cid;
  const orderName = (oid: string) => known.get(oid)?.customer.name ?? oid;
  const routes = new Map((plan.routes ?? []).map((r) => [r.courier_id, r]));
  const lanes = lanesOf(plan);
  const { saving, error, said, dragging, over, rootRef, move, dragProps, dropProps, beforeOrAfter, shortcut } =
    usePlanMoves({ plan, setPlan, lanes, courierName, orderName, tz });

  /** The keyboard way: a select of destinations and a Move button, per stop. */
  function moveControls(orderId: string, from: string | null) {
    if (!editable) return null;
    const choices = [...lanes.keys()].filter((c) => c !== from);
    const picked = dest[orderId];
    // What was picked, while it is still a destination (after a move it may be the stop's own route).
    const value =
      picked !== undefined && (choices.includes(picked) || (picked === '' && from !== null))
        ? picked
        : (choices[0] ?? '');
    const name = orderName(orderId);
    return (
      <span className="move-to">
        <select
          aria-label={`Move ${name} to`}
          data-control="dest"
          value={value}
          disabled={saving}
          onChange={(e) => setDest((d) => ({ ...d, [orderId]: e.target.value }))}
        >
          {choices.map((c) => (
            <option key={c} value={c}>
              {courierName(c)}
            </option>
          ))}
          {from !== null && <option value="">Not planned</option>}
        </select>
        <button
          type="button"
          className="small"
          data-control="move"
          aria-label={`Move ${name}`}
          disabled={saving || (from === null && !value)}
          onClick={() => void move(orderId, value ? { courier: value, before: null } : { courier: null }, 'dest')}
        >
          Move
        </button>
      </span>
    );
  }

  function stopItem(courier: string, stops: string[], s: PlanStop, k: number) {
    const o = known.get(s.order_id);
    const name = orderName(s.order_id);
    const key = `${courier}:${s.order_id}`;
    return (
      <li
        key={s.order_id}
        data-order={s.order_id}
        data-control="row"
        tabIndex={editable ? 0 : undefined}
        aria-label={editable ? `${name}, stop ${k + 1} of ${courierName(courier)}` : undefined}
        onKeyDown={(e) => shortcut(e, s.order_id, courier)}
        className={`${over === key ? 'drop-here' : ''} ${dragging === s.order_id ? 'dragged' : ''}`.trim() || undefined}
        {...dragProps(s.order_id)}
        {...dropProps(key, beforeOrAfter(courier, stops, k))}
      >
        <span className="seq" style={{ background: colorOf(courier, roster) }} aria-hidden="true">
          {k + 1}
        </span>
        <span className="what">
          <a href={`#/orders/${s.order_id}`} draggable={false}>
            {o?.customer.name ?? s.order_id}
          </a>
          <small className="muted">{o ? `${o.tracking_code} · ${o.delivery_address.address}` : ''}</small>
          {/* On a line of its own, never cut off with the address in a narrow lane. In the order's own
              zone, named: the plan read it there (the instant the customer was promised), which may
              not be the depot's zone the arrival times are in. */}
          {o?.time_window && (
            <small className="muted window">window {hoursIn(o.time_window.start, o.time_window.end, o.timezone)}</small>
          )}
        </span>
        <span className="when">
          <span>
            Arrives <time dateTime={s.arrival_at}>{clock(s.arrival_at, tz)}</time>
            {/* Early for its window: the delivery itself is later, which is what a dispatcher checks. */}
            {waitsUntil(s, tz) && (
              <>
                {' · waits until '}
                <time dateTime={s.service_start_at}>{waitsUntil(s, tz)}</time>
              </>
            )}
          </span>
          <small className="muted" title="Still on board when the courier leaves this stop">
            Load: {s.load_packages} pkg · {Number(s.load_kg.toFixed(2))} kg
          </small>
        </span>
        {s.violations.map((v) => (
          <p key={v.constraint} className="violation">
            <strong>Warning:</strong> {v.message}
          </p>
        ))}
        {editable && (
          <span className="stop-moves">
            <button
              type="button"
              className="small"
              data-control="up"
              aria-label={`Move ${name} up`}
              disabled={saving || k === 0}
              onClick={() => void move(s.order_id, stepTarget(plan, courier, s.order_id, -1)!, 'up')}
            >
              ↑
            </button>
            <button
              type="button"
              className="small"
              data-control="down"
              aria-label={`Move ${name} down`}
              disabled={saving || k === stops.length - 1}
              onClick={() => void move(s.order_id, stepTarget(plan, courier, s.order_id, 1)!, 'down')}
            >
              ↓
            </button>
            {moveControls(s.order_id, courier)}
          </span>
        )}
      </li>
    );
  }

  const unassigned = plan.unassigned ?? [];
  const movable = unassigned.filter((u) => u.reason !== 'no_coordinates');
  return (
    <div className="plan-routes" ref={rootRef} aria-busy={saving}>
      <p className="sr-only" role="status">
        {saving ? 'Saving the change…' : said}
      </p>
      <ErrorNote error={error} />
      {[...lanes].map(([courier, stops], i) => {
        const r = routes.get(courier);
        const hid = `${uid}-route-${i}`;
        return (
          <section key={courier} className="plan-route" aria-labelledby={hid}>
            <h3 id={hid}>
              <span className="swatch" style={{ background: colorOf(courier, roster) }} aria-hidden="true" />
              {courierName(courier)}
              {editable && i < 9 && (
                <kbd className="muted small" title={`Press ${i + 1} on a stop to move it here`}>
                  {i + 1}
                </kbd>
              )}
              <button
                type="button"
                className="small fold"
                aria-expanded={!folded.has(courier)}
                aria-controls={`${hid}-stops`}
                onClick={() =>
                  setFolded((f) => {
                    const next = new Set(f);
                    if (next.has(courier)) next.delete(courier);
                    else next.add(courier);
                    return next;
                  })
                }
              >
                {folded.has(courier) ? 'Show stops' : 'Hide stops'}
              </button>
            </h3>
            <p className="muted small">
              {r
                ? `${plural(r.stops.length, 'stop')} · leaves ${clock(r.start_at, tz)} · back ${clock(r.end_at, tz)} · ${r.distance_km.toFixed(1)} km · ${Math.round(r.duration_min)} min`
                : editable
                  ? 'No stops: drag one here, or move one to this courier.'
                  : 'No stops.'}
            </p>
            <ol
              id={`${hid}-stops`}
              hidden={folded.has(courier)}
              className={`stops${over === courier ? ' drop-here' : ''}${r ? '' : ' empty'}`}
              aria-label={`Stops of ${courierName(courier)}`}
              {...dropProps(courier, () => ({ courier, before: null }))}
            >
              {r?.stops.map((s, k) => stopItem(courier, stops, s, k))}
            </ol>
          </section>
        );
      })}
      {(unassigned.length > 0 || editable) && (
        <section
          className={`plan-unassigned${over === 'unassigned' ? ' drop-here' : ''}`}
          aria-labelledby={`${uid}-unassigned`}
          {...dropProps('unassigned', () => ({ courier: null }))}
        >
          <h3 id={`${uid}-unassigned`}>
            Not planned ({unassigned.length}){' '}
            {editable && (
              <kbd className="muted small" title="Press 0 on a stop to leave it out">
                0
              </kbd>
            )}
          </h3>
          {editable && movable.length === 0 && unassigned.length === 0 && (
            <p className="muted small">Drop a stop here to leave it out of the plan.</p>
          )}
          {unassigned.length > 0 && (
            <ul aria-label="Orders not planned">
              {unassigned.map((u) => (
                <li
                  key={u.order_id}
                  data-order={u.order_id}
                  data-control="row"
                  tabIndex={editable && u.reason !== 'no_coordinates' ? 0 : undefined}
                  onKeyDown={(e) => u.reason !== 'no_coordinates' && shortcut(e, u.order_id, null)}
                  {...(u.reason === 'no_coordinates' ? {} : dragProps(u.order_id))}
                >
                  {u.reason !== 'no_coordinates' && editable && (
                    <span className="grip" aria-hidden="true" title="Drag onto a route">
                      ⠿
                    </span>
                  )}
                  <a href={`#/orders/${u.order_id}`} draggable={false}>
                    {known.get(u.order_id)
                      ? `${orderName(u.order_id)} (${known.get(u.order_id)?.tracking_code})`
                      : u.order_id}
                  </a>
                  : {REASON[u.reason]}
                  {u.reason !== 'no_coordinates' && moveControls(u.order_id, null)}
                </li>
              ))}
            </ul>
          )}
        </section>
      )}
    </div>
  );
}
