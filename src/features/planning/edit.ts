import type { Scope } from '../../shared/auth.js';
import type { AppContext } from '../../shared/context.js';
import { ApiError } from '../../shared/errors.js';
import type { OrderRow } from '../orders/repo.js';
import { plannedCouriers, publishPlan } from './planned.js';
import { openResult, planOrThrow, presentPlan } from './plans.js';
import { buildProblem, presentRoutes, totalsOf } from './problem.js';
import * as repo from './repo.js';
import type { PlanEdit, PlanResult, RoutePlan } from './schemas.js';
import { check, placeBreaks, type Solution } from './solver/index.js';
import type { StoredResult } from './stored.js';

/** An edit that keeps losing the race to other edits gives up after this many tries (409). */
const ATTEMPTS = 3;

type Unassigned = PlanResult['unassigned'][number];

/** The plan after the edit, before timing: every planned courier's stops, and the orders left out. */
interface Edited {
  routes: Map<string, string[]>;
  unassigned: Unassigned[];
}

const invalid = (param: string, why: string) => new ApiError('parameter_invalid', `Invalid ${param}: ${why}`, param);

/**
 * Applies `body` to the plan's current routes. A named route is replaced whole; a route not named
 * keeps its stops, less the orders named elsewhere. An order on no route is left out: with its old
 * reason if the solver had left it out, else `manual`.
 */
export function applyEdit(plan: repo.PlanRow, current: StoredResult, body: PlanEdit): Edited {
  const planned = new Set(plan.request.order_ids);
  const before = new Map(current.unassigned.map((u) => [u.order_id, u.reason]));
  const routes = new Map<string, string[]>(plan.request.planned.map((c) => [c.courier_id, []]));
  for (const r of current.routes)
    routes.set(
      r.courier_id,
      r.stops.map((s) => s.order_id),
    );
  const paired = new Set(
    current.routes.flatMap((r) => r.stops.filter((x) => x.kind === 'pickup').map((x) => x.order_id)),
  );
  const replaced = new Map<string, string[]>();
  /** Where each order is named in the body, for the message when it is named again. */
  const named = new Map<string, string>();
  for (const [i, r] of body.routes.entries()) {
    const param = `routes[${i}]`;
    if (!routes.has(r.courier_id)) {
      throw invalid(`${param}.courier_id`, `courier '${r.courier_id}' is not one of this plan's couriers.`);
    }
    if (replaced.has(r.courier_id)) throw invalid(`${param}.courier_id`, 'the courier appears twice.');
    replaced.set(r.courier_id, r.order_ids);
    for (const [k, oid] of r.order_ids.entries()) {
      const p = `${param}.order_ids[${k}]`;
      if (!planned.has(oid)) throw invalid(p, `order '${oid}' is not one of this plan's orders.`);
      const again = named.get(oid);
      // A pair (planned with a pickup stop) may be named twice on one route: its pickup, then its delivery.
      const pairTwice =
        paired.has(oid) && again?.startsWith(`${param}.`) && r.order_ids.filter((x) => x === oid).length === 2;
      if (again !== undefined && !pairTwice) throw invalid(p, `order ${oid} appears twice (also at ${again}).`);
      if (before.get(oid) === 'no_coordinates') throw invalid(p, `order ${oid} has no coordinates to drive to.`);
      named.set(oid, p);
    }
  }
  for (const [courier, stops] of routes) {
    routes.set(courier, replaced.get(courier) ?? stops.filter((oid) => !named.has(oid)));
  }
  const routed = new Set([...routes.values()].flat());
  const unassigned = plan.request.order_ids
    .filter((oid) => !routed.has(oid))
    .map((oid): Unassigned => ({ order_id: oid, reason: before.get(oid) ?? 'manual' }));
  return { routes, unassigned };
}

/**
 * Times the edited routes with the run's own problem (same travel model, service time, depots,
 * shifts and windows, from the orders as they are now), through the feasibility checker that
 * checks every solver answer. What it finds broken becomes warnings on the stops, not a refusal.
 */
async function recompute(ctx: AppContext, plan: repo.PlanRow, edited: Edited): Promise<PlanResult> {
  const { depot, couriers } = await plannedCouriers(ctx, plan);
  const rows = new Map((await repo.ordersByIds(ctx.db, plan.mode, plan.request.order_ids)).map((o) => [o.id, o]));
  const orders = plan.request.order_ids.map((id) => rows.get(id)).filter((o): o is OrderRow => o !== undefined);
  let built: Awaited<ReturnType<typeof buildProblem>>;
  try {
    built = await buildProblem(ctx.config, { date: plan.date, depot, couriers, orders, notBefore: plan.created_at });
  } catch (err) {
    if (err instanceof Error && err.message.startsWith('OSRM')) {
      throw new ApiError(
        'service_unavailable',
        'Travel times could not be read from the OSRM server; nothing changed.',
      );
    }
    throw err;
  }
  // A pair has two jobs, its pickup first (problem.ts): the delivery's index is the order's.
  const jobOf = new Map(built.jobs.map((o, j) => [o.id, j]));
  const pickupOf = new Map<string, number>();
  built.kinds.forEach((kind, j) => {
    if (kind === 'pickup') pickupOf.set((built.jobs[j] as OrderRow).id, j);
  });
  const unassigned = [...edited.unassigned];
  const solution: Solution = { routes: [], unassigned: [] };
  for (const c of couriers) {
    const jobs: number[] = [];
    const names = edited.routes.get(c.courier_id) ?? [];
    for (const [k, oid] of names.entries()) {
      const j = jobOf.get(oid);
      const pickup = pickupOf.get(oid);
      const twice = names.indexOf(oid) !== names.lastIndexOf(oid);
      // Kept on an unnamed route but its address lost its coordinates since the plan.
      if (j === undefined) {
        if (names.indexOf(oid) === k) unassigned.push({ order_id: oid, reason: 'no_coordinates' });
      } else if (pickup === undefined) {
        if (twice) throw invalid('routes', `order ${oid} appears twice, and it is not a pickup-and-delivery order.`);
        jobs.push(j);
      } else if (!twice) jobs.push(pickup, j);
      else jobs.push(names.indexOf(oid) === k ? pickup : j);
    }
    solution.routes.push(jobs);
  }
  const routed = new Set(solution.routes.flat());
  // The checker wants every job routed or left out; it reads only `job` of the left-out ones.
  solution.unassigned = built.jobs
    .map((_, job) => job)
    .filter((job) => !routed.has(job))
    .map((job) => ({ job, reason: 'time_window' as const }));
  if (built.problem.vehicles.some((v) => v.break)) solution.breaks = placeBreaks(built.problem, solution.routes);
  const verdict = check(built.problem, solution);
  // Every error but a broken constraint (an order twice, a missing job) would be a bug above.
  if (verdict.errors.length !== verdict.violations.length) {
    throw new Error(`route plan edit: malformed solution: ${verdict.errors.slice(0, 3).join('; ')}`);
  }
  const routes = presentRoutes(built, couriers, verdict.schedules, verdict.violations);
  return { routes, unassigned, totals: totalsOf(routes, unassigned) };
}

/**
 * PATCH /v1/route_plans/{id}: moves and reorders stops of a succeeded, uncommitted plan and answers
 * it recomputed. Broken constraints are accepted and shown per stop (see docs/planning.md, "Editing").
 */
export async function editPlan(ctx: AppContext, scope: Scope, id: string, body: PlanEdit): Promise<RoutePlan> {
  for (let attempt = 1; ; attempt++) {
    const plan = await planOrThrow(ctx, scope, id);
    const edited = applyEdit(plan, openResult(plan, 'edited'), body);
    const result = await recompute(ctx, plan, edited);
    // Strictly later than what was read, so a second edit in the same millisecond still sees a change.
    const now = Math.max(ctx.clock(), plan.updated_at + 1);
    const saved = await repo.saveEdit(ctx.db, plan.id, plan.updated_at, { ...result, edited_at: now }, now);
    if (saved) {
      publishPlan(ctx, saved);
      return presentPlan(saved);
    }
    if (attempt === ATTEMPTS) {
      throw new ApiError('plan_not_ready', `Route plan ${id} kept changing while this edit was made; try again.`);
    }
  }
}
