// An insertion in the API's terms: a courier's best place for the order as a Suggestion, a broken
// constraint in the dispatcher's words, the order's stops placed in a route's stop list. Pure (no
// database, no context): split from service.ts, which ranks the couriers and writes the dispatch,
// and shared with reoptimize.ts (describe).
import { localClock } from '../../shared/local-time.js';
import type { StopRef } from '../dispatch/repo.js';
import type { OrderRow } from '../orders/repo.js';
import type { Violation } from '../planning/solver/index.js';
import type { Insertion } from './insertion.js';
import { type Day, instantOf, type LaneStop, refOf, type Situation } from './lanes.js';
import type * as repo from './repo.js';
import type { Suggestion } from './schemas.js';

const round = (n: number, digits = 3) => Math.round(n * 10 ** digits) / 10 ** digits;

/** A broken constraint in the dispatcher's words, times of day in the order's zone. */
export function describe(
  d: Day,
  orderOf: (job: number) => repo.StopOrder,
  v: Violation,
): Suggestion['violations'][number] {
  const hhmm = (min: number) => localClock(d.dayStart + Math.round(min * 60_000), d.tz);
  const order = orderOf(v.job);
  if (v.kind === 'capacity') {
    const unit = v.dimension === 0 ? 'packages' : 'kg';
    return {
      constraint: 'capacity',
      order_id: order.id,
      message: `Does not fit: the load reaches ${round(v.at)} ${unit}, the vehicle takes ${round(v.limit)}`,
    };
  }
  if (v.kind === 'shift') {
    return {
      constraint: 'shift',
      order_id: order.id,
      message: `Back at ${hhmm(v.at)}, after the shift ends (${hhmm(v.limit)})`,
    };
  }
  if (v.kind === 'skills') {
    return { constraint: 'skills', order_id: order.id, message: `Needs ${order.requirements.join(', ')}` };
  }
  if (v.kind === 'route_limit' || v.kind === 'break' || v.kind === 'pair') {
    return {
      constraint: v.kind === 'break' ? 'break' : 'route_limit',
      order_id: order.id,
      message:
        v.kind === 'break'
          ? `No room for the courier\u2019s break (latest start ${hhmm(v.limit)})`
          : `Over the courier\u2019s route limit: ${round(v.at)} where ${round(v.limit)} is the most (stops, minutes or km)`,
    };
  }
  const w = order.time_window;
  return {
    constraint: 'time_window',
    order_id: order.id,
    message: `Served at ${hhmm(v.at)}, after its window${w ? ` ${w.start}\u2013${w.end}` : ' (the day ends)'}`,
  };
}

export interface Ranked {
  situation: Situation;
  insertion: Insertion;
  suggestion: Suggestion;
  /** The stop the order's delivery goes before on the route (null: after the last one). */
  before: StopRef | null;
  /** A pair: the stop its pickup goes before (null: after the last one; the delivery's own `before` when equal). */
  pickupBefore?: StopRef | null;
}

const keyOf = (x: StopRef) => `${x.order_id}:${x.kind}`;

/**
 * Puts the order's stops into a route's stop list, as the insertion placed them: the delivery
 * before `before`, a pair's pickup before `pickupBefore` (or just before its delivery when both go
 * before the same stop). A stop that is gone from the list puts the order last.
 */
export function placeStops(
  list: StopRef[],
  orderId: string,
  r: Pick<Ranked, 'before' | 'pickupBefore'>,
  paired: boolean,
) {
  const at = (ref: StopRef | null) => {
    const i = ref === null ? -1 : list.findIndex((x) => keyOf(x) === keyOf(ref));
    return i < 0 ? list.length : i;
  };
  const delivery: StopRef = { order_id: orderId, kind: 'delivery' };
  list.splice(at(r.before), 0, delivery);
  if (!paired) return;
  const same =
    r.pickupBefore === undefined ||
    (r.pickupBefore === null ? r.before === null : r.before !== null && keyOf(r.pickupBefore) === keyOf(r.before));
  list.splice(same ? list.indexOf(delivery) : Math.min(at(r.pickupBefore ?? null), list.indexOf(delivery)), 0, {
    order_id: orderId,
    kind: 'pickup',
  });
}

/** One courier's best insertion of the order, in the API's terms. */
export function present(d: Day, order: OrderRow, s: Situation, ins: Insertion, paired: boolean): Ranked {
  const k = s.ahead.length;
  const orderOf = (job: number): repo.StopOrder => (job < k ? (s.ahead[job] as repo.StopOrder) : order);
  const aheadRef = (i: number) => (i < k ? refOf(s.ahead[i] as LaneStop) : null);
  const before = aheadRef(ins.at);
  const pickupBefore = ins.pickupAt === undefined ? undefined : aheadRef(ins.pickupAt);
  // Stop numbers after the insertion. A route of plain stops (the usual case) is numbered by order
  // id alone, as before pairs; one with a pair's two stops needs the kind too.
  let position: (ref: StopRef) => number;
  if (!paired && !s.stops.some((x) => x.kind === 'pickup')) {
    const ids = s.stops.map((x) => x.order.id);
    ids.splice(before === null ? ids.length : ids.indexOf(before.order_id), 0, order.id);
    position = (ref) => ids.indexOf(ref.order_id) + 1;
  } else {
    const full: StopRef[] = s.stops.map((x) => ({ order_id: x.order.id, kind: x.kind }));
    placeStops(full, order.id, { before, pickupBefore }, paired);
    const keys = full.map(keyOf);
    position = (ref) => keys.indexOf(keyOf(ref)) + 1;
  }
  // The lane's jobs: the stops ahead, then the order (a pair: its pickup, then its delivery).
  const kindOf = (job: number) =>
    job < k ? (s.ahead[job] as LaneStop).kind : paired && job === k ? 'pickup' : 'delivery';
  const suggestion: Suggestion = {
    courier: { id: s.courier.id, name: s.courier.name },
    route: s.route?.id ?? null,
    position: position({ order_id: order.id, kind: 'delivery' }),
    ...(paired ? { pickup_position: position({ order_id: order.id, kind: 'pickup' }) } : {}),
    added_km: round(ins.addedDistance),
    added_minutes: round(ins.addedTime, 1),
    feasible: ins.broken.length === 0,
    violations: ins.broken.map((v) => describe(d, orderOf, v)),
    starts_from: s.startsFrom,
    stops: ins.stops.map((st) => {
      const id = orderOf(st.job).id;
      const kind = kindOf(st.job);
      const prev = ins.before.get(st.job);
      return {
        order_id: id,
        ...(kind === 'pickup' ? { kind } : {}),
        position: position({ order_id: id, kind }),
        arrival_at: instantOf(d, st.arrival),
        service_start_at: instantOf(d, st.serviceStart),
        previous_arrival_at: st.job < k && prev ? instantOf(d, prev.arrival) : null,
      };
    }),
  };
  return { situation: s, insertion: ins, suggestion, before, ...(paired ? { pickupBefore } : {}) };
}
