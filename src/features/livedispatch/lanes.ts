import type { Config } from '../../shared/config.js';
import type { Executor } from '../../shared/db/index.js';
import type { CouriersTable, DepotsTable, RoutesTable } from '../../shared/db/schema.js';
import type { StopKind } from '../../shared/db/tables/route_stops.js';
import { type Point, roadKm } from '../../shared/geo.js';
import { atLocalTime, startOfDay } from '../../shared/local-time.js';
import { constraintsOf } from '../dispatch/constraints.js';
import type { StopRef } from '../dispatch/repo.js';
import { shiftOf } from '../planning/shift.js';
import {
  type CheckResult,
  check,
  type Job,
  type Problem,
  placeBreaks,
  type Unassigned,
  type Vehicle,
} from '../planning/solver/index.js';
import { travelMatrices } from '../planning/travel.js';
import * as repo from './repo.js';

// Where each courier stands now, as the checker needs it: its current route's remaining stops, the
// place and minute it sets off from, its shift and vehicle. Shared by dispatch suggestions and the
// re-optimization of a route under way.

const MS_PER_MIN = 60_000;
/** No limit: as in planning/problem.ts. */
const UNLIMITED = 1e9;
/** A position this recent counts as the courier's "now" (it is on duty), and starts its route. */
export const FRESH_POSITION_MS = 2 * 60 * 60 * 1000;

/** A local day and the minute scale every lane of it uses (minute 0 = the day's local midnight). */
export interface Day {
  day: string;
  tz: string;
  dayStart: number;
  now: number;
}

export const minuteOf = (d: Day, ms: number) => (ms - d.dayStart) / MS_PER_MIN;
/** A time of day `HH:mm` on the day, read in `zone` (an order's, a courier's start depot's), as a minute of the day. */
const minuteAt = (d: Day, zone: string) => (hhmm: string) => minuteOf(d, atLocalTime(d.day, hhmm, zone));
export const instantOf = (d: Day, min: number) => new Date(d.dayStart + Math.round(min * MS_PER_MIN)).toISOString();
export const dayOf = (day: string, tz: string, now: number): Day => ({ day, tz, dayStart: startOfDay(day, tz), now });

export interface Situation {
  courier: CouriersTable;
  route: RoutesTable | null;
  /** Every stop of the route in order (finished ones too), for stop numbers. */
  stops: repo.RouteStop[];
  /** The stops still to serve, in order (a pair's pickup while its parcel is not collected yet). */
  ahead: LaneStop[];
  start: Point;
  /** The minute it sets off: now (or its shift start, if later). */
  startMin: number;
  /** Where it must be back by the shift end; null: it ends at its last stop (no end depot known). */
  end: Point | null;
  shiftEnd: number;
  /** The zone its shift and break are read in: its start depot's (the day's without one), as planning does. */
  zone: string;
  capacity: [number, number];
  startsFrom: 'position' | 'depot';
}

export const pointOf = (a: { lat?: number; lng?: number }): Point | null =>
  typeof a.lat === 'number' && typeof a.lng === 'number' ? { lat: a.lat, lng: a.lng } : null;

/** A stop of a lane: its order, and whether the courier collects (`pickup`) or delivers it there. */
export type LaneStop = repo.StopOrder & { kind: StopKind };

/** Where a lane stop is: the pickup address for a pickup, else the delivery address. */
export const stopPoint = (x: LaneStop): Point | null =>
  pointOf(x.kind === 'pickup' && x.pickup_address ? x.pickup_address : x.delivery_address);

/** The stop as written to route_stops. */
export const refOf = (x: LaneStop): StopRef => ({ order_id: x.id, kind: x.kind });

/** A courier on duty that no lane can be made for, and its route of the day (null: it has none). */
export interface Unplaced {
  courier: CouriersTable;
  route: RoutesTable | null;
  /** `no_start`: no depot (its own, its route plan's, the account's) and no position recorded. */
  reason: 'no_start';
}

/**
 * Each courier's situation on the day: its newest route of the day and what is left on it.
 * A courier with no route that day counts only while on duty (a position within FRESH_POSITION_MS);
 * one with neither a position nor a depot to start from is left out, and pushed to `unplaced` when
 * given, so that callers can say why rather than pretend it is off duty. `include` counts one
 * courier whatever its duty (a dispatcher who names it knows better).
 */
export async function situations(
  db: Executor,
  config: Config,
  d: Day,
  couriers: CouriersTable[],
  o: {
    fallbackDepot: string | null;
    exclude?: string;
    include?: string;
    onlyRoute?: RoutesTable;
    unplaced?: Unplaced[];
  },
): Promise<Situation[]> {
  const mode = couriers[0]?.mode;
  if (mode === undefined) return [];
  const routes = o.onlyRoute
    ? [o.onlyRoute]
    : await repo.dayRoutes(
        db,
        mode,
        couriers.map((c) => c.id),
        d.day,
      );
  const current = new Map<string, RoutesTable>();
  for (const r of routes) if (!current.has(r.courier_id)) current.set(r.courier_id, r);
  const stops = await repo.stopsWithOrders(
    db,
    [...current.values()].map((r) => r.id),
  );
  const depotIds = new Set<string>();
  for (const c of couriers) for (const id of [c.start_depot, c.end_depot, o.fallbackDepot]) if (id) depotIds.add(id);
  // A route a plan made started at the depots the plan set it off from (docs/dispatch.md): wanted
  // for a courier without a start depot of its own, which is what the plan started it from too.
  for (const r of current.values()) for (const id of [r.start_depot, r.end_depot]) if (id) depotIds.add(id);
  const depots = new Map((await repo.depotsByIds(db, mode, [...depotIds])).map((x) => [x.id, x]));
  const out: Situation[] = [];
  for (const c of couriers) {
    const route = current.get(c.id) ?? null;
    const fresh = c.last_recorded_at !== null && c.last_recorded_at >= d.now - FRESH_POSITION_MS;
    if (!route && !fresh && c.id !== o.include) continue;
    const own = route ? stops.filter((s) => s.route_id === route.id && s.order.id !== o.exclude) : [];
    const ahead: LaneStop[] = own.filter(repo.isAhead).map((s) => s.order);
    // Its own depot, else the one its route was planned from, else the account's.
    const planned = c.start_depot ? null : route;
    const startDepot = depots.get(c.start_depot ?? planned?.start_depot ?? o.fallbackDepot ?? '') ?? null;
    const endDepot = depots.get(c.end_depot ?? planned?.end_depot ?? '') ?? startDepot;
    const shift = shiftOf(c, startDepot ?? { shift_start: null, shift_end: null }, config);
    const zone = startDepot?.timezone ?? d.tz;
    const at = minuteAt(d, zone);
    const startMin = Math.max(minuteOf(d, d.now), at(shift.start));
    const position = c.last_lat !== null && c.last_lng !== null ? { lat: c.last_lat, lng: c.last_lng } : null;
    // Under way (something already left the depot) or on duty with a fresh fix: it sets off from where it is.
    const underWay = own.some((s) => !['assigned', 'ready_for_pickup'].includes(s.order.status));
    const fromPosition = position !== null && (underWay || fresh || !startDepot);
    let start = fromPosition ? position : startDepot ? depotPoint(startDepot) : null;
    // A route re-optimized before its courier was ever seen, with no depot: from its first stop left.
    if (!start && o.onlyRoute) start = ahead.map(stopPoint).find((x) => x !== null) ?? null;
    if (!start) {
      o.unplaced?.push({ courier: c, route, reason: 'no_start' });
      continue;
    }
    out.push({
      courier: c,
      route,
      stops: own,
      ahead,
      start,
      startMin,
      end: endDepot ? depotPoint(endDepot) : null,
      shiftEnd: at(shift.end),
      zone,
      capacity: [c.capacity_packages ?? UNLIMITED, c.capacity_kg ?? UNLIMITED],
      startsFrom: fromPosition ? 'position' : 'depot',
    });
  }
  return out;
}

const depotPoint = (x: DepotsTable): Point => ({ lat: x.lat, lng: x.lng });

/**
 * Planning's travel without OSRM (haversine × 1.3 at the configured speed) in plain arrays: a lane
 * is small and never leaves this thread, so it needs none of travelMatrices' shared memory, whose
 * allocation was a fifth of a 50-courier suggestion.
 */
function roadMatrices(config: Config, points: Point[]): { minutes: Float64Array; km: Float64Array } {
  const n = points.length;
  const minutes = new Float64Array(n * n);
  const km = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      if (i === j) continue;
      const d = roadKm(points[i] as Point, points[j] as Point);
      km[i * n + j] = d;
      minutes[i * n + j] = (d / config.courierSpeedKmh) * 60;
    }
  }
  return { minutes, km };
}

/**
 * An order as a job of the day: its window on the day in the order's own zone, as planning reads it
 * (none: the whole day), demand [packages, kg].
 */
export function jobOf(config: Config, d: Day, order: repo.StopOrder, location: number): Job {
  const w = order.time_window;
  const at = minuteAt(d, w ? order.timezone : d.tz);
  return {
    location,
    demand: [order.packages, order.weight_kg],
    service: config.serviceMinutesPerStop,
    ready: w ? at(w.start) : 0,
    due: w ? at(w.end) : at('24:00'),
    ...(order.requirements.length > 0 ? { requirements: order.requirements } : {}),
  };
}

/**
 * The courier's constraints on what is left of its day (DESIGN §16): its skills; its maximum
 * duration counted from its shift's start (a shift end that comes sooner); its maximum stops less
 * the stops already finished; its maximum distance on what is left (what it has driven is not
 * known here); its break only while the break's window is still ahead (whether one was taken
 * earlier is not recorded). An open end is the lane's own (`end` null).
 */
function laneLimits(config: Config, d: Day, s: Situation): Partial<Vehicle> {
  const c = constraintsOf(s.courier);
  const out: Partial<Vehicle> = {};
  if (c.skills.length > 0) out.skills = c.skills;
  const at = minuteAt(d, s.zone);
  if (c.max_route_minutes !== null) {
    const startDepot = { shift_start: null, shift_end: null };
    out.shiftEnd = Math.min(s.shiftEnd, at(shiftOf(s.courier, startDepot, config).start) + c.max_route_minutes);
  }
  if (c.max_stops !== null) out.maxJobs = Math.max(0, c.max_stops - (s.stops.length - s.ahead.length));
  if (c.max_route_km !== null) out.maxDistance = c.max_route_km;
  if (c.break && s.startMin <= at(c.break.earliest)) {
    out.break = { earliest: at(c.break.earliest), latest: at(c.break.latest), duration: c.break.duration_min };
  }
  return out;
}

/** The checker on a one-route lane, with the break placed where the solver would place it. */
export function checkLane(p: Problem, route: number[], unassigned: Unassigned[] = []): CheckResult {
  const breaks = p.vehicles[0]?.break ? placeBreaks(p, [route]) : undefined;
  return check(p, { routes: [route], unassigned, ...(breaks ? { breaks } : {}) });
}

/**
 * The situation as a one-vehicle problem: jobs are `stops` (the remaining stops, then any order
 * to insert: a pair as its pickup then its delivery) at their points; location 0 is the start, 1 the end (with no end depot, a
 * place every leg to which costs nothing: the route ends at its last stop).
 */
export async function laneProblem(config: Config, d: Day, s: Situation, stops: LaneStop[]): Promise<Problem> {
  const points: Point[] = [s.start, s.end ?? s.start];
  const jobs = stops.map((stop, i) => {
    // Callers keep orders without coordinates out; one that slipped through waits where the courier is.
    const job = jobOf(config, d, stop, points.push(stopPoint(stop) ?? s.start) - 1);
    if (stop.kind !== 'pickup') return job;
    // A pair's pickup carries the load to its delivery, later in the lane; the window is the delivery's.
    const delivery = stops.findIndex((x, k) => k > i && x.id === stop.id && x.kind === 'delivery');
    return delivery < 0 ? job : { ...job, ready: 0, due: minuteAt(d, d.tz)('24:00'), delivery };
  });
  const m = config.osrmUrl ? await travelMatrices(config, points) : roadMatrices(config, points);
  const n = points.length;
  if (s.end === null) {
    for (let i = 0; i < n; i++) {
      m.minutes[i * n + 1] = 0;
      m.km[i * n + 1] = 0;
    }
  }
  return {
    size: n,
    time: m.minutes,
    distance: m.km,
    jobs,
    vehicles: [
      {
        capacity: s.capacity,
        shiftStart: s.startMin,
        shiftEnd: s.shiftEnd,
        startLocation: 0,
        endLocation: 1,
        ...laneLimits(config, d, s),
      },
    ],
  };
}
