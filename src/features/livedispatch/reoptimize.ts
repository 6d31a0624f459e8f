import { createHash } from 'node:crypto';
import type { Scope } from '../../shared/auth.js';
import type { AppContext } from '../../shared/context.js';
import { ApiError, notFound } from '../../shared/errors.js';
import * as dispatch from '../dispatch/repo.js';
import { tellCourier } from '../lifecycle/phones.js';
import { type CheckResult, type Problem, solve } from '../planning/solver/index.js';
import {
  checkLane,
  type Day,
  dayOf,
  instantOf,
  type LaneStop,
  laneProblem,
  refOf,
  type Situation,
  situations,
  stopPoint,
} from './lanes.js';
import * as repo from './repo.js';
import type { ReoptimizeBody, RouteProposal } from './schemas.js';
import { describe } from './suggestion.js';

// Re-optimizing a route under way (DESIGN §16): finished stops stay where they are, the stop the
// courier is at (or arriving at) stays next, and the rest is solved again from where the courier
// is now with the plan's solver, in its worker thread; the answer sets the proposal beside the
// current order, with the saving. Applying writes the new stop order if the route is still as read.

const round = (n: number, digits = 3) => Math.round(n * 10 ** digits) / 10 ** digits;
/** Stops that stay next whatever the order: the courier is there or about to be. */
const PINNED = new Set(['arriving', 'at_location']);
/** No limit, for the relaxed solve. */
const FAR = 1e9;

/** Names the route as read: every stop, its order's status and whether it is still on this route. */
function versionOf(routeId: string, stops: repo.RouteStop[]): string {
  const text = JSON.stringify([routeId, stops.map((s) => [s.order.id, s.order.status, s.order.route_id])]);
  return `rv_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`;
}

interface Read {
  route: dispatch.RouteRow;
  situation: Situation;
  day: Day;
  /** Finished stops (and pickups already collected), in their order. */
  kept: dispatch.StopRef[];
  pinned: LaneStop[];
  free: LaneStop[];
  version: string;
}

/** A stop's identity on its route: a paired order has two (pickup and delivery). */
const keyOf = (x: { order_id: string; kind: string }) => `${x.order_id}:${x.kind}`;

async function read(ctx: AppContext, scope: Scope, id: string): Promise<Read> {
  const route = await dispatch.findRoute(ctx.db, scope, id);
  if (!route) throw notFound('route', id);
  const courier = await dispatch.courierById(ctx.db, route.courier_id);
  if (!courier) throw notFound('route', id);
  const depots = await repo.depotsByIds(
    ctx.db,
    route.mode,
    [courier.start_depot].filter((x): x is string => !!x),
  );
  const tz = depots[0]?.timezone ?? ctx.config.defaultTimezone;
  const now = ctx.clock();
  const day = dayOf(route.date, tz, now);
  const [situation] = await situations(ctx.db, ctx.config, day, [courier], {
    fallbackDepot: null,
    include: courier.id,
    onlyRoute: route,
  });
  if (!situation) {
    throw new ApiError(
      'order_not_dispatchable',
      `Route ${route.id} cannot be re-optimized: its courier has neither a position nor a depot to start from.`,
    );
  }
  const ahead = new Set(situation.ahead.map((o) => keyOf(refOf(o))));
  return {
    route,
    situation,
    day,
    kept: situation.stops.map((s) => ({ order_id: s.order.id, kind: s.kind })).filter((x) => !ahead.has(keyOf(x))),
    pinned: situation.ahead.filter((o) => PINNED.has(o.status)),
    free: situation.ahead.filter((o) => !PINNED.has(o.status)),
    version: versionOf(route.id, situation.stops),
  };
}

/** The free stops as a problem that starts after the pinned ones are served. */
async function problemOf(ctx: AppContext, r: Read): Promise<{ problem: Problem; startMin: number }> {
  const s = r.situation;
  let from: Situation = s;
  if (r.pinned.length > 0) {
    const p = await laneProblem(ctx.config, r.day, s, r.pinned);
    const served = checkLane(
      p,
      r.pinned.map((_, i) => i),
    ).schedules[0];
    const point = stopPoint(r.pinned[r.pinned.length - 1] as LaneStop) ?? s.start;
    from = { ...s, start: point, startMin: served?.stops.at(-1)?.departure ?? s.startMin };
  }
  return { problem: await laneProblem(ctx.config, r.day, from, r.free), startMin: s.startMin };
}

function leg(r: Read, problem: Problem, order: number[], c: CheckResult): RouteProposal['current'] {
  const refs = order.map((j) => refOf(r.free[j] as LaneStop));
  const full = [...r.kept, ...r.pinned.map(refOf), ...refs].map(keyOf);
  const sched = c.schedules[0];
  const start = problem.vehicles[0]?.shiftStart ?? 0;
  return {
    order_ids: refs.map((x) => x.order_id),
    stops: (sched?.stops ?? []).map((st) => {
      const stop = r.free[st.job] as LaneStop;
      return {
        order_id: stop.id,
        ...(stop.kind === 'pickup' ? { kind: 'pickup' as const } : {}),
        position: full.indexOf(keyOf(refOf(stop))) + 1,
        arrival_at: instantOf(r.day, st.arrival),
        service_start_at: instantOf(r.day, st.serviceStart),
        previous_arrival_at: null,
      };
    }),
    distance_km: round(c.distance),
    duration_min: round((sched?.end ?? start) - start, 1),
    end_at: instantOf(r.day, sched?.end ?? start),
    violations: c.violations.map((v) => describe(r.day, (j) => r.free[j] as repo.StopOrder, v)),
  };
}

/** Fewer broken constraints first, then less distance, then an earlier end. */
const better = (a: CheckResult, b: CheckResult) =>
  a.violations.length - b.violations.length ||
  a.distance - b.distance ||
  (a.schedules[0]?.end ?? 0) - (b.schedules[0]?.end ?? 0);

/**
 * Solves the free stops with the plan's solver. Every stop must stay on the route, so when the
 * solver leaves one out (its window or the shift cannot be met as things are), the order is solved
 * again with windows and shift relaxed, and what it breaks is reported by the checker.
 */
async function propose(ctx: AppContext, problem: Problem, timeLimitMs: number): Promise<number[]> {
  if (problem.jobs.length <= 1) return problem.jobs.map((_, i) => i);
  const strict = await solve(problem, { timeLimitMs, seed: 1, maxHeapMb: ctx.config.planMemoryMb });
  if (strict.unassigned.length === 0) return strict.routes[0] ?? [];
  const relaxed: Problem = {
    ...problem,
    jobs: problem.jobs.map((j) => ({ ...j, due: FAR })),
    vehicles: problem.vehicles.map((v) => ({ ...v, shiftEnd: FAR, capacity: v.capacity.map(() => FAR) })),
  };
  const r = await solve(relaxed, { timeLimitMs, seed: 1, maxHeapMb: ctx.config.planMemoryMb });
  return r.routes[0] ?? [];
}

export async function reoptimize(
  ctx: AppContext,
  scope: Scope,
  id: string,
  body: ReoptimizeBody,
): Promise<RouteProposal> {
  const r = await read(ctx, scope, id);
  const { problem, startMin } = await problemOf(ctx, r);
  const current = r.free.map((_, i) => i);
  const now = checkLane(problem, current);
  let order: number[];
  if (body.order_ids !== undefined) {
    if (!body.apply) {
      throw new ApiError('parameter_invalid', 'Invalid order_ids: it is only taken with apply: true.', 'order_ids');
    }
    if (body.route_version !== r.version) {
      throw new ApiError(
        'route_changed',
        `Route ${r.route.id} changed since the proposal (a stop was added, moved, finished or reassigned); ask for a new one.`,
      );
    }
    const used = new Set<number>();
    order = body.order_ids.map((oid, i) => {
      // A pair is named twice: its pickup, then its delivery.
      const free = (kind: string) => r.free.findIndex((o, k) => o.id === oid && o.kind === kind && !used.has(k));
      const pickup = free('pickup');
      const unused = pickup >= 0 ? pickup : free('delivery');
      // Named once too often: the first match, so the count check below refuses it as before.
      const j = unused >= 0 ? unused : r.free.findIndex((o) => o.id === oid);
      if (j >= 0) used.add(j);
      if (j < 0)
        throw new ApiError(
          'parameter_invalid',
          `Invalid order_ids[${i}]: '${oid}' is not a stop left to reorder on this route.`,
          `order_ids[${i}]`,
        );
      return j;
    });
    if (new Set(order).size !== order.length || order.length !== r.free.length) {
      throw new ApiError(
        'parameter_invalid',
        `Invalid order_ids: name each of the route's ${r.free.length} stops left to reorder once.`,
        'order_ids',
      );
    }
  } else {
    const proposed = await propose(ctx, problem, body.time_limit_ms ?? 1000);
    const next = checkLane(problem, proposed);
    // Never propose worse than what the courier has.
    order = better(next, now) < 0 ? proposed : current;
  }
  const after = checkLane(problem, order);
  const currentLeg = leg(r, problem, current, now);
  const proposedLeg = leg(r, problem, order, after);
  const applied = body.apply === true;
  // Applying the order the route already has changes nothing: no write, and no message that
  // would tell the courier's phone its stops were re-ordered.
  if (applied && order.some((j, i) => j !== current[i])) {
    await write(
      ctx,
      r,
      order.map((j) => refOf(r.free[j] as LaneStop)),
    );
  }
  return {
    object: 'route_proposal',
    route: r.route.id,
    route_version: applied ? versionOf(r.route.id, await repo.stopsWithOrders(ctx.db, [r.route.id])) : r.version,
    starts_from: r.situation.startsFrom,
    start: { lat: r.situation.start.lat, lng: r.situation.start.lng },
    start_at: instantOf(r.day, startMin),
    kept: [...r.kept.map((x) => x.order_id), ...r.pinned.map((o) => o.id)],
    current: currentLeg,
    proposed: proposedLeg,
    saving: {
      distance_km: round(currentLeg.distance_km - proposedLeg.distance_km),
      duration_min: round(currentLeg.duration_min - proposedLeg.duration_min, 1),
    },
    applied,
  };
}

/** Writes kept, pinned, then the new order, if the route is still as it was read (else 409). */
async function write(ctx: AppContext, r: Read, free: dispatch.StopRef[]): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    await repo.lockRoute(trx, r.route.id);
    const stops = await repo.stopsWithOrders(trx, [r.route.id]);
    if (versionOf(r.route.id, stops) !== r.version) {
      throw new ApiError(
        'route_changed',
        `Route ${r.route.id} changed while it was being re-optimized; ask for a new proposal.`,
      );
    }
    await repo.rewriteStops(trx, r.route.id, [...r.kept, ...r.pinned.map(refOf), ...free]);
  });
  tellCourier(ctx, r.situation.courier, r.route.id, 'reoptimized');
}
