import type { Scope } from '../../shared/auth.js';
import type { AppContext } from '../../shared/context.js';
import { ApiError } from '../../shared/errors.js';
import { type PreparedRoute, prepareRoute, writeRoute } from '../lifecycle/assign-route.js';
import { tellCouriers } from '../lifecycle/phones.js';
import { signalQueued } from '../webhooks/outbox.js';
import { publishPlan } from './planned.js';
import { openResult, planOrThrow, presentPlan } from './plans.js';
import * as repo from './repo.js';
import type { CommitBody, RoutePlan } from './schemas.js';
import { type StoredResult, versionOf } from './stored.js';

/** How many changed orders the 409 names before "and N more". */
const NAMED = 20;

/**
 * Creates the plan's routes (as optimized, or as last edited) and assigns every planned order in one
 * transaction (one order.assigned each), or nothing: 409 plan_stale when any planned order changed
 * since the plan read it; 409 plan_has_violations when an edit broke constraints and `force` is not set.
 */
export async function commitPlan(ctx: AppContext, scope: Scope, id: string, body: CommitBody = {}): Promise<RoutePlan> {
  const plan = await planOrThrow(ctx, scope, id);
  const result = openResult(plan, 'committed');
  const { versions } = plan;
  // A pair's pickup stop names its order again: each order once.
  const routed = result.routes.flatMap((r) => r.stops.filter((s) => s.kind !== 'pickup').map((s) => s.order_id));
  const current = new Map((await repo.ordersByIds(ctx.db, plan.mode, routed)).map((o) => [o.id, o]));
  const changed = routed.filter((oid) => {
    const o = current.get(oid);
    return !o || versionOf(o) !== versions[oid];
  });
  if (changed.length > 0) throw stale(changed);
  // After staleness: a stale plan is to be made again, whatever its warnings.
  const broken = result.routes.flatMap((r) =>
    r.stops.flatMap((s) => (s.violations ?? []).map((v) => `${s.order_id} (${v.constraint})`)),
  );
  if (broken.length > 0 && body.force !== true) throw violated(broken);

  const prepared: PreparedRoute[] = [];
  for (const r of result.routes) {
    const stops = r.stops.map((s) => ({ order_id: s.order_id, kind: s.kind ?? ('delivery' as const) }));
    // The depots the plan resolved for this courier (its own, an override, else the plan's).
    const planned = plan.request.planned?.find((c) => c.courier_id === r.courier_id);
    const start = planned?.start_depot ?? plan.depot_id;
    prepared.push(
      await prepareRoute(
        ctx,
        scope,
        {
          courier_id: r.courier_id,
          order_ids: stops.filter((s) => s.kind === 'delivery').map((s) => s.order_id),
          date: plan.date,
        },
        stops,
        { start, end: planned?.end_depot ?? start },
      ),
    );
  }
  const now = ctx.clock();
  const done: StoredResult = { ...result, route_ids: prepared.map((p) => p.route.id) };
  const updated = await ctx.db.transaction().execute(async (trx) => {
    // First: a second commit of the same plan waits here, then finds it committed.
    if (!(await repo.claimCommit(trx, plan.id, now, plan.updated_at))) {
      const again = await repo.findPlan(trx, plan.mode, plan.id);
      throw new ApiError(
        'plan_not_ready',
        again?.committed_at != null
          ? `Route plan ${plan.id} was already committed.`
          : `Route plan ${plan.id} was edited while it was being committed; nothing was committed. Review it and commit again.`,
      );
    }
    // Read again inside the transaction: an order that moved since the check above makes it stale.
    const again = await repo.ordersByIds(trx, plan.mode, routed);
    const moved = again.filter((o) => versionOf(o) !== versions[o.id]).map((o) => o.id);
    if (moved.length > 0) throw stale(moved);
    for (const p of prepared) await writeRoute(trx, p, now);
    return repo.updatePlan(trx, plan.id, { result: done, updated_at: now });
  });
  signalQueued(ctx);
  publishPlan(ctx, updated);
  const routes = prepared.map((p) => ({ courierId: p.route.courier_id, routeId: p.route.id }));
  await tellCouriers(ctx, routes, 'dispatched');
  return presentPlan(updated);
}

function stale(ids: string[]): ApiError {
  const named = ids.slice(0, NAMED).join(', ');
  const more = ids.length > NAMED ? ` and ${ids.length - NAMED} more` : '';
  return new ApiError(
    'plan_stale',
    `Orders changed since the plan was made, so nothing was committed: ${named}${more}. Make a new plan.`,
    'order_ids',
  );
}

function violated(broken: string[]): ApiError {
  const more = broken.length > NAMED ? ` and ${broken.length - NAMED} more` : '';
  const what = broken.length === 1 ? 'constraint' : 'constraints';
  return new ApiError(
    'plan_has_violations',
    `The edited plan breaks ${broken.length} ${what}: ${broken.slice(0, NAMED).join(', ')}${more}. Move the stops, or commit with force: true to accept them.`,
    'force',
  );
}
