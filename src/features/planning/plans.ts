import type { Scope } from '../../shared/auth.js';
import type { AppContext } from '../../shared/context.js';
import { ApiError, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { iso } from '../../shared/time.js';
import * as dispatch from '../dispatch/repo.js';
import type { OrderRow } from '../orders/repo.js';
import { localDate } from './clock.js';
import { depotOrThrow } from './depots.js';
import * as repo from './repo.js';
import { PLANS } from './runner.js';
import type { PlanCourier, PlanCreate, PlanResult, RoutePlan } from './schemas.js';
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

const minutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3));

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
      shift_start: pick('shift_start') ?? null,
      shift_end: pick('shift_end') ?? null,
      start_depot: pick('start_depot') ?? depotId,
      end_depot: pick('end_depot') ?? pick('start_depot') ?? depotId,
    };
    if (merged.shift_start && merged.shift_end && minutes(merged.shift_end) <= minutes(merged.shift_start)) {
      throw new ApiError(
        'parameter_invalid',
        `Invalid ${param}.shift_end: the shift must end after it starts (${merged.shift_start}).`,
        `${param}.shift_end`,
      );
    }
    for (const k of ['start_depot', 'end_depot'] as const) {
      if (!(await repo.findDepot(ctx.db, scope.mode, merged[k]))) {
        throw new ApiError(
          'parameter_invalid',
          `Invalid ${param}.${k}: no such depot '${merged[k]}'.`,
          `${param}.${k}`,
        );
      }
    }
    planned.push(merged);
  }
  return planned;
}

async function resolveOrders(ctx: AppContext, scope: Scope, body: PlanCreate, tz: string): Promise<OrderRow[]> {
  if (body.order_ids === undefined) {
    const candidates = await repo.assignableOrders(ctx.db, scope.mode, MAX_DEFAULT_ORDERS);
    return candidates.filter((o) => {
      if (o.requested_date === null) return true;
      const at = Date.parse(o.requested_date);
      return Number.isFinite(at) && localDate(at, tz) === body.date;
    });
  }
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

/** Checks the request, stores the plan as queued with its orders' versions, and starts it in the background. */
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
  const orders = await resolveOrders(ctx, scope, body, depot.timezone);
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
  await repo.insertPlan(ctx.db, row);
  ctx.instance.get(PLANS).start(row, orders);
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
