import type { Config } from '../../shared/config.js';
import type { DepotsTable as DepotRow } from '../../shared/db/schema.js';
import type { StopKind } from '../../shared/db/tables/route_stops.js';
import type { Point } from '../../shared/geo.js';
import { atLocalTime, localClock, startOfDay } from '../../shared/local-time.js';
import { isPaired, pointOfAddress } from '../orders/pickup.js';
import type { OrderRow } from '../orders/repo.js';
import type { PlanResult } from './schemas.js';
import type { Job, Problem, RouteSchedule, SolveResult, Vehicle, Violation } from './solver/index.js';
import { travelMatrices } from './travel.js';

/** A courier as planned: its own fields with the plan's overrides applied, and a shift (`shiftOf`). */
export interface PlannedCourier {
  courier_id: string;
  capacity_kg: number | null;
  capacity_packages: number | null;
  shift_start: string;
  shift_end: string;
  start: DepotRow;
  end: DepotRow;
  /** DESIGN §16's constraints, own or overridden; absent in plans stored before them (none). */
  skills?: string[];
  break?: { earliest: string; latest: string; duration_min: number } | null;
  max_route_minutes?: number | null;
  max_route_km?: number | null;
  max_stops?: number | null;
  route_end?: 'depot' | 'last_stop';
}

/** No limit: large enough for any real load, small enough to stay exact in a double. */
const UNLIMITED = 1e9;
const MS_PER_MIN = 60_000;

export interface Built {
  problem: Problem;
  /** The order of each job index (a pickup-and-delivery order has two: its pickup, then its delivery). */
  jobs: OrderRow[];
  /** Each job index's stop: `pickup` for a pair's first job, `delivery` otherwise. */
  kinds: StopKind[];
  /** Orders left out before solving: no coordinates to drive to. */
  noCoordinates: string[];
  /** The instant of minute 0 (the local midnight that starts the plan's day). */
  dayStart: number;
  /** The depot's zone, for times of day. */
  tz: string;
}

function pointOf(o: OrderRow): Point | null {
  const a = o.delivery_address as { lat?: unknown; lng?: unknown };
  return typeof a.lat === 'number' && typeof a.lng === 'number' ? { lat: a.lat, lng: a.lng } : null;
}

/** The pickup of a pickup-and-delivery order (an address of its own, not a depot); null for every other order. */
function pickupPointOf(o: OrderRow): Point | null {
  return isPaired(o) ? pointOfAddress(o.pickup_address as NonNullable<OrderRow['pickup_address']>) : null;
}

/**
 * Turns couriers and orders into the solver's generic problem: minutes since local midnight of the
 * plan's day, kilometres, and two capacity dimensions [packages, kg].
 */
export async function buildProblem(
  config: Config,
  o: { date: string; depot: DepotRow; couriers: PlannedCourier[]; orders: OrderRow[]; notBefore?: number },
  signal?: AbortSignal,
): Promise<Built> {
  const tz = o.depot.timezone;
  const dayStart = startOfDay(o.date, tz);
  // A time of day is read in the zone it was given in: an order's window in the order's zone (the
  // instant its customer was promised and the order page shows); orders of accounts in other zones
  // than the depot's are planned too (every order due that day). A courier's shift and break in its
  // start depot's zone, where it is defined.
  const minuteIn = (zone: string) => (hhmm: string) => (atLocalTime(o.date, hhmm, zone) - dayStart) / MS_PER_MIN;
  const dayEnd = minuteIn(tz)('24:00');
  // A plan for the day it is made on leaves no earlier than it was made: a route out at 08:30
  // planned at 11:00 would promise every customer an arrival already missed. Past the end of a
  // shift the courier has no time left, and what it would have carried is unassigned (`shift`).
  // Another day, past or ahead, plans the whole shift.
  const now = o.notBefore === undefined ? Number.NaN : Math.ceil((o.notBefore - dayStart) / MS_PER_MIN);
  const earliest = now > 0 && now < dayEnd ? now : 0;

  const points: Point[] = [];
  const depotIndex = new Map<string, number>();
  const placeOfDepot = (d: DepotRow) => {
    let i = depotIndex.get(d.id);
    if (i === undefined) {
      i = points.push({ lat: d.lat, lng: d.lng }) - 1;
      depotIndex.set(d.id, i);
    }
    return i;
  };
  placeOfDepot(o.depot);
  const vehicles: Vehicle[] = o.couriers.map((c) => {
    // The Couriers page's zone: the depot it starts from (the plan's when it names none).
    const minuteOf = minuteIn(c.start.timezone);
    const shiftEnd = minuteOf(c.shift_end);
    const v: Vehicle = {
      capacity: [c.capacity_packages ?? UNLIMITED, c.capacity_kg ?? UNLIMITED],
      shiftStart: Math.min(Math.max(minuteOf(c.shift_start), earliest), shiftEnd),
      shiftEnd,
      startLocation: placeOfDepot(c.start),
      endLocation: placeOfDepot(c.end),
      ...vehicleLimits(c, minuteOf),
    };
    // A break whose window has passed by the time the route leaves is behind the courier (taken or
    // not, it can no longer be placed), not a reason to plan nothing.
    if (v.break && v.break.latest < v.shiftStart) delete v.break;
    return v;
  });

  const jobs: Job[] = [];
  const jobOrders: OrderRow[] = [];
  const kinds: StopKind[] = [];
  const noCoordinates: string[] = [];
  for (const order of o.orders) {
    const p = pointOf(order);
    if (!p) {
      noCoordinates.push(order.id);
      continue;
    }
    const w = order.time_window;
    const minuteOf = minuteIn(order.timezone);
    const job: Job = {
      location: points.push(p) - 1,
      demand: [order.packages, order.weight_kg],
      service: config.serviceMinutesPerStop,
      // No window: any time (the courier's shift bounds it).
      ready: w ? minuteOf(w.start) : 0,
      due: w ? minuteOf(w.end) : dayEnd,
      // Urgent outranks every priority; priority 1–3 maps to 0–2.
      priority: order.is_urgent ? 3 : Math.max(0, Math.min(2, order.priority - 1)),
      ...(order.requirements.length > 0 ? { requirements: order.requirements } : {}),
    };
    // A pair (DESIGN §16): the pickup job carries the load to the delivery job, which follows it on
    // the same route. The window is the customer's, so it binds the delivery; the pickup has the day.
    const pickup = order.pickup_address === null ? null : pickupPointOf(order);
    if (pickup) {
      jobs.push({ ...job, location: points.push(pickup) - 1, ready: 0, due: dayEnd, delivery: jobs.length + 1 });
      jobOrders.push(order);
      kinds.push('pickup');
    }
    jobs.push(job);
    jobOrders.push(order);
    kinds.push('delivery');
  }
  const m = await travelMatrices(config, points, signal);
  return {
    problem: { size: points.length, time: m.minutes, distance: m.km, jobs, vehicles },
    jobs: jobOrders,
    kinds,
    noCoordinates,
    dayStart,
    tz,
  };
}

/** A courier's constraints in the solver's terms (minutes since the day's start, km). */
export function vehicleLimits(
  c: Pick<PlannedCourier, 'skills' | 'break' | 'max_route_minutes' | 'max_route_km' | 'max_stops' | 'route_end'>,
  minuteOf: (hhmm: string) => number,
): Partial<Vehicle> {
  const out: Partial<Vehicle> = {};
  if (c.skills && c.skills.length > 0) out.skills = c.skills;
  if (c.break) {
    out.break = {
      earliest: minuteOf(c.break.earliest),
      latest: minuteOf(c.break.latest),
      duration: c.break.duration_min,
    };
  }
  if (c.max_route_minutes != null) out.maxDuration = c.max_route_minutes;
  if (c.max_route_km != null) out.maxDistance = c.max_route_km;
  if (c.max_stops != null) out.maxJobs = c.max_stops;
  if (c.route_end === 'last_stop') out.openEnd = true;
  return out;
}

const round = (n: number, digits = 3) => Math.round(n * 10 ** digits) / 10 ** digits;
type PlanRoute = PlanResult['routes'][number];
type PlanViolation = PlanRoute['stops'][number]['violations'][number];

/** A broken constraint in words, with times of day in the depot's zone (what the dispatcher reads). */
function describe(built: Built, couriers: PlannedCourier[], v: Violation): PlanViolation {
  const hhmm = (min: number) => localClock(built.dayStart + Math.round(min * MS_PER_MIN), built.tz);
  const c = couriers[v.vehicle] as PlannedCourier;
  if (v.kind === 'capacity') {
    const unit = v.dimension === 0 ? 'packages' : 'kg';
    return {
      constraint: 'capacity',
      message: `Does not fit: the route\u2019s load reaches ${round(v.at)} ${unit} here, the vehicle takes ${round(v.limit)}`,
    };
  }
  if (v.kind === 'shift') {
    return {
      constraint: 'shift',
      message: `Back at ${c.end.name} at ${hhmm(v.at)}, after the shift ends (${hhmm(v.limit)})`,
    };
  }
  if (v.kind === 'skills') {
    const needs = (built.jobs[v.job] as OrderRow).requirements.filter((r) => !(c.skills ?? []).includes(r));
    return { constraint: 'skills', message: `Needs ${needs.join(', ')}, which the courier does not have` };
  }
  if (v.kind === 'route_limit') {
    return {
      constraint: 'route_limit',
      message: `Over the courier\u2019s route limit: ${round(v.at)} where ${round(v.limit)} is the most (stops, minutes or km)`,
    };
  }
  if (v.kind === 'break') {
    return {
      constraint: 'break',
      // As the courier's break was given: in its start depot's zone, named when not the plan's.
      message: `No room for the break between ${c.break?.earliest}\u2013${c.break?.latest}${c.start.timezone === built.tz ? '' : ` (${c.start.timezone})`}`,
    };
  }
  if (v.kind === 'pair') return { constraint: 'pair', message: 'Picked up and delivered apart, or delivered first' };
  const order = built.jobs[v.job] as OrderRow;
  const w = order.time_window;
  // The window is the order's, in its zone; named with the depot's when the two differ.
  const zones = order.timezone === built.tz ? ['', ''] : [` (${built.tz})`, ` (${order.timezone})`];
  return {
    constraint: 'time_window',
    message: w
      ? `Served at ${hhmm(v.at)}${zones[0]}, after its window ${w.start}\u2013${w.end}${zones[1]}`
      : `Served at ${hhmm(v.at)}, after the plan\u2019s day ends`,
  };
}

/**
 * Checked schedules in the API's terms: instants, order ids, courier ids, and each stop's broken
 * constraints (none for the solver's answers, which are feasible; an edit may break some).
 */
export function presentRoutes(
  built: Built,
  couriers: PlannedCourier[],
  schedules: RouteSchedule[],
  violations: Violation[] = [],
): PlanRoute[] {
  const at = (min: number) => new Date(built.dayStart + Math.round(min * MS_PER_MIN)).toISOString();
  return schedules.map((s) => {
    // What is still on board after each stop: the checker's, which knows pickups from deliveries.
    const onBoard = (st: (typeof s.stops)[number], d: number) => round(st.onBoard[d] ?? 0);
    return {
      courier_id: (couriers[s.vehicle] as PlannedCourier).courier_id,
      stops: s.stops.map((st) => ({
        order_id: (built.jobs[st.job] as OrderRow).id,
        kind: built.kinds[st.job] ?? 'delivery',
        arrival_at: at(st.arrival),
        service_start_at: at(st.serviceStart),
        departure_at: at(st.departure),
        load_packages: onBoard(st, 0),
        load_kg: onBoard(st, 1),
        violations: violations
          .filter((v) => v.vehicle === s.vehicle && v.job === st.job)
          .map((v) => describe(built, couriers, v)),
      })),
      start_at: at(s.start),
      end_at: at(s.end),
      distance_km: round(s.distance),
      duration_min: round(s.end - s.start, 1),
      ...(s.break
        ? { break: { after_stops: s.break.after, start_at: at(s.break.start), end_at: at(s.break.end) } }
        : {}),
    };
  });
}

export function totalsOf(routes: PlanRoute[], unassigned: PlanResult['unassigned']): PlanResult['totals'] {
  return {
    routes: routes.length,
    // A pair's pickup is a stop, not another order.
    orders: routes.reduce((n, x) => n + x.stops.filter((st) => st.kind !== 'pickup').length, 0),
    unassigned: unassigned.length,
    distance_km: round(routes.reduce((n, x) => n + x.distance_km, 0)),
    duration_min: round(
      routes.reduce((n, x) => n + x.duration_min, 0),
      1,
    ),
    violations: routes.reduce((n, r) => n + r.stops.reduce((k, st) => k + st.violations.length, 0), 0),
  };
}

/** The solver's answer in the API's terms. */
export function presentResult(built: Built, couriers: PlannedCourier[], r: SolveResult): PlanResult {
  const routes = presentRoutes(built, couriers, r.schedules);
  const unassigned = [
    ...built.noCoordinates.map((id) => ({ order_id: id, reason: 'no_coordinates' as const })),
    // A pair is left out whole: its delivery names it, its pickup would name it again.
    ...r.unassigned
      .filter((u) => built.kinds[u.job] !== 'pickup')
      .map((u) => ({ order_id: (built.jobs[u.job] as OrderRow).id, reason: u.reason })),
  ];
  return { routes, unassigned, totals: totalsOf(routes, unassigned) };
}
