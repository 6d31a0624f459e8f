import type { Scope } from '../../shared/auth.js';
import type { AppContext } from '../../shared/context.js';
import { ApiError, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { enqueue, signalJobs } from '../../shared/jobs/job.js';
import { iso } from '../../shared/time.js';
import { type Constraints, checkBreak, checkShift, constraintsOf } from '../dispatch/constraints.js';
import * as dispatch from '../dispatch/repo.js';
import type { OrderRow } from '../orders/repo.js';
import { depotOrThrow } from './depots.js';
import * as repo from './repo.js';
import { PLAN_SOLVE } from './runner.js';
import type { PlanCourier, PlanCreate, PlanResult, RoutePlan } from './schemas.js';
import { endsAfterStart, shiftOf } from './shift.js';
import { type StoredRequest, type StoredResult, versionOf } from './stored.js';

/** The default order set reads at most this many assignable orders (the solver's practical size). */
const MAX_DEFAULT_ORDERS = 2000;

/** Plans stored before edits existed have no `violations`: they had none. */
const withViolations = (routes: PlanResult['routes']): PlanResult['routes'] =>
  routes.map((r) => ({ ...r, stops: r.stops.map((s) => ({ ...s, violations: s.violations ?? [] })) }));

export function presentPlan(p: repo.PlanRow): RoutePlan {
  const { request: req, result } = p;
  return {
    id: p.id,
    object: 'route_plan',
    livemode: p.mode === 'live',
    status: p.status,
    progress: p.progress,
    date: p.date,
    depot: p.depot_id,
    objective: req.objective,
    time_limit_ms: req.time_limit_ms,
    seed: req.seed,
    couriers: req.couriers,
    order_ids: req.order_ids,
    routes: result ? withViolations(result.routes) : null,
    unassigned: result?.unassigned ?? null,
    totals: result ? { ...result.totals, violations: result.totals.violations ?? 0 } : null,
    failure_message: p.failure,
    edited_at: result?.edited_at === undefined ? null : iso(result.edited_at),
    committed_at: p.committed_at === null ? null : iso(p.committed_at),
    route_ids: result?.route_ids ?? [],
    created_at: iso(p.created_at),
    updated_at: iso(p.updated_at),
  };
}

/** The courier's own constraints with the request's overrides (null clears one). */
function overridden(own: Constraints, c: PlanCourier): Constraints {
  return {
    skills: c.skills !== undefined ? (c.skills ?? []) : own.skills,
    break: c.break !== undefined ? c.break : own.break,
    max_route_minutes: c.max_route_minutes !== undefined ? c.max_route_minutes : own.max_route_minutes,
    max_route_km: c.max_route_km !== undefined ? c.max_route_km : own.max_route_km,
    max_stops: c.max_stops !== undefined ? c.max_stops : own.max_stops,
    route_end: c.route_end !== undefined ? (c.route_end ?? 'depot') : own.route_end,
  };
}

async function resolveCouriers(ctx: AppContext, scope: Scope, body: PlanCreate, depotId: string) {
  const seen = new Set<string>();
  const planned: StoredRequest['planned'] = [];
  for (const [i, c] of body.couriers.entries()) {
    const param = `couriers[${i}]`;
    if (seen.has(c.courier_id)) {
      throw new ApiError(
        'parameter_invalid',
        `Invalid ${param}.courier_id: the courier appears twice.`,
        `${param}.courier_id`,
      );
    }
    seen.add(c.courier_id);
    const row = await dispatch.findCourier(ctx.db, scope, c.courier_id);
    if (row?.status !== 'active') {
      throw new ApiError(
        'parameter_invalid',
        `Invalid ${param}.courier_id: no such active courier '${c.courier_id}'.`,
        `${param}.courier_id`,
      );
    }
    const pick = <K extends keyof PlanCourier & keyof typeof row>(k: K) => (c[k] !== undefined ? c[k] : row[k]);
    const merged = {
      courier_id: row.id,
      capacity_kg: pick('capacity_kg') ?? null,
      capacity_packages: pick('capacity_packages') ?? null,
      shift_start: (pick('shift_start') ?? null) as string | null,
      shift_end: (pick('shift_end') ?? null) as string | null,
      start_depot: pick('start_depot') ?? depotId,
      end_depot: pick('end_depot') ?? pick('start_depot') ?? depotId,
      ...overridden(constraintsOf(row), c),
    };
    checkBreak(merged.break, `${param}.break`);
    checkShift(merged.shift_start, merged.shift_end, `${param}.shift_end`);
    const depots: repo.DepotRow[] = [];
    for (const k of ['start_depot', 'end_depot'] as const) {
      const d = await repo.findDepot(ctx.db, scope.mode, merged[k]);
      if (!d) {
        throw new ApiError(
          'parameter_invalid',
          `Invalid ${param}.${k}: no such depot '${merged[k]}'.`,
          `${param}.${k}`,
        );
      }
      depots.push(d);
    }
    // A missing end of the shift is the start depot's working day's (defect 13: never 00:00).
    const shift = shiftOf(merged, depots[0] as repo.DepotRow, ctx.config);
    if (!endsAfterStart(shift)) {
      const side = merged.shift_start === null ? 'shift_start' : 'shift_end';
      throw new ApiError(
        'parameter_invalid',
        `Invalid ${param}.${side}: the shift ${shift.start}\u2013${shift.end} must end after it starts (a missing end is the depot\u2019s working day).`,
        `${param}.${side}`,
      );
    }
    merged.shift_start = shift.start;
    merged.shift_end = shift.end;
    planned.push(merged);
  }
  return planned;
}

async function resolveOrders(ctx: AppContext, scope: Scope, body: PlanCreate): Promise<OrderRow[]> {
  // Due on the plan's day, each order's day read in its own zone (fixed when it was created: its
  // account's depot's, else its account's, else the carrier's), or without a requested date.
  if (body.order_ids === undefined) return repo.assignableOrders(ctx.db, scope.mode, body.date, MAX_DEFAULT_ORDERS);
  const found = new Map((await repo.ordersByIds(ctx.db, scope.mode, body.order_ids)).map((o) => [o.id, o]));
  return body.order_ids.map((id, i) => {
    const o = found.get(id);
    if (!o)
      throw new ApiError('parameter_invalid', `Invalid order_ids[${i}]: no such order '${id}'.`, `order_ids[${i}]`);
    if (!(repo.ASSIGNABLE as readonly string[]).includes(o.status)) {
      throw new ApiError(
        'parameter_invalid',
        `Invalid order_ids[${i}]: order ${id} is ${o.status} and cannot be assigned.`,
        `order_ids[${i}]`,
      );
    }
    return o;
  });
}

/** Checks the request, stores the plan as queued with its orders' versions, and queues its solve (runner.ts). */
export async function createPlan(ctx: AppContext, scope: Scope, body: PlanCreate): Promise<RoutePlan> {
  if (Number.isNaN(Date.parse(`${body.date}T00:00:00Z`))) {
    throw new ApiError('parameter_invalid', 'Invalid date: expected YYYY-MM-DD.', 'date');
  }
  let depot: repo.DepotRow;
  try {
    depot = await depotOrThrow(ctx, scope, body.depot);
  } catch {
    throw new ApiError('parameter_invalid', `Invalid depot: no such depot '${body.depot}'.`, 'depot');
  }
  const planned = await resolveCouriers(ctx, scope, body, depot.id);
  const orders = await resolveOrders(ctx, scope, body);
  const now = ctx.clock();
  const request: StoredRequest = {
    objective: body.objective ?? 'min_distance',
    time_limit_ms: body.time_limit_ms ?? 5000,
    seed: body.seed ?? 1,
    couriers: body.couriers,
    planned,
    order_ids: orders.map((o) => o.id),
  };
  const row: repo.PlanRow = {
    id: newId('rplan', now),
    mode: scope.mode,
    depot_id: depot.id,
    date: body.date,
    status: 'queued',
    progress: 0,
    request,
    versions: Object.fromEntries(orders.map((o) => [o.id, versionOf(o)])),
    result: null,
    failure: null,
    committed_at: null,
    created_at: now,
    updated_at: now,
  };
  // The plan and its solve job commit together: no plan without the job that will solve it.
  await ctx.db.transaction().execute(async (trx) => {
    await repo.insertPlan(trx, row);
    await enqueue(trx, PLAN_SOLVE, { ref: row.id, now });
  });
  signalJobs(ctx);
  return presentPlan(row);
}

export async function planOrThrow(ctx: AppContext, scope: Scope, id: string): Promise<repo.PlanRow> {
  const p = await repo.findPlan(ctx.db, scope.mode, id);
  if (!p) throw notFound('route plan', id);
  return p;
}

export async function getPlan(ctx: AppContext, scope: Scope, id: string): Promise<RoutePlan> {
  return presentPlan(await planOrThrow(ctx, scope, id));
}

/** The result of a succeeded, uncommitted plan; otherwise 409 plan_not_ready saying why it cannot be `verb`. */
export function openResult(plan: repo.PlanRow, verb: 'edited' | 'committed'): StoredResult {
  if (plan.status !== 'succeeded' || plan.result === null) {
    throw new ApiError(
      'plan_not_ready',
      `Route plan ${plan.id} is ${plan.status}; only a succeeded plan can be ${verb}.`,
    );
  }
  if (plan.committed_at !== null) {
    throw new ApiError(
      'plan_not_ready',
      verb === 'edited'
        ? `Route plan ${plan.id} was already committed; its routes can no longer be edited here.`
        : `Route plan ${plan.id} was already committed.`,
    );
  }
  return plan.result;
}
