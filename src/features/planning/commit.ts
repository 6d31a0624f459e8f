import type { Scope } from '../../shared/auth.js';
import type { AppContext } from '../../shared/context.js';
import { ApiError } from '../../shared/errors.js';
import { withPending } from '../dispatch/location-writer.js';
import { type PreparedRoute, prepareRoute, writeRoute } from '../lifecycle/assign-route.js';
import { signalQueued } from '../webhooks/outbox.js';
import { planOrThrow, presentPlan } from './plans.js';
import * as repo from './repo.js';
import type { RoutePlan } from './schemas.js';
import { type StoredResult, versionOf } from './stored.js';

/** How many changed orders the 409 names before "and N more". */
const NAMED = 20;

/**
 * Creates the plan's routes and assigns every planned order in one transaction (one order.assigned
 * each), or nothing: 409 plan_stale when any planned order changed since the plan read it.
 */
export async function commitPlan(ctx: AppContext, scope: Scope, id: string): Promise<RoutePlan> {
  const plan = await planOrThrow(ctx, scope, id);
  if (plan.status !== 'succeeded' || plan.result === null) {
    throw new ApiError(
      'plan_not_ready',
      `Route plan ${plan.id} is ${plan.status}; only a succeeded plan can be committed.`,
    );
  }
  if (plan.committed_at !== null) {
    throw new ApiError('plan_not_ready', `Route plan ${plan.id} was already committed.`);
  }
  const { result, versions } = plan;
  const routed = result.routes.flatMap((r) => r.stops.map((s) => s.order_id));
  const current = new Map((await repo.ordersByIds(ctx.db, plan.mode, routed)).map((o) => [o.id, o]));
  const changed = routed.filter((oid) => {
    const o = current.get(oid);
    return !o || versionOf(o) !== versions[oid];
  });
  if (changed.length > 0) throw stale(changed);

  const prepared: PreparedRoute[] = [];
  for (const r of result.routes) {
    prepared.push(
      await prepareRoute(ctx, scope, {
        courier_id: r.courier_id,
        order_ids: r.stops.map((s) => s.order_id),
        date: plan.date,
      }),
    );
  }
  const now = ctx.clock();
  const done: StoredResult = { ...result, route_ids: prepared.map((p) => p.route.id) };
  const pending = withPending(ctx);
  const updated = await ctx.db.transaction().execute(async (trx) => {
    // First: a second commit of the same plan waits here, then finds it committed.
    if (!(await repo.claimCommit(trx, plan.id, now))) {
      throw new ApiError('plan_not_ready', `Route plan ${plan.id} was already committed.`);
    }
    // Read again inside the transaction: an order that moved since the check above makes it stale.
    const again = await repo.ordersByIds(trx, plan.mode, routed);
    const moved = again.filter((o) => versionOf(o) !== versions[o.id]).map((o) => o.id);
    if (moved.length > 0) throw stale(moved);
    for (const p of prepared) await writeRoute(trx, p, now, pending);
    return repo.updatePlan(trx, plan.id, { result: done, updated_at: now });
  });
  signalQueued(ctx);
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
