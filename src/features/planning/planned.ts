import type { AppContext } from '../../shared/context.js';
import type { PlannedCourier } from './problem.js';
import * as repo from './repo.js';
import { shiftOf } from './shift.js';

/**
 * A plan's depot and couriers with their depots read, as the solver's problem needs them: the run
 * and every edit build the same problem from these, so an edit is timed like the optimized plan.
 */
export async function plannedCouriers(
  ctx: AppContext,
  plan: repo.PlanRow,
): Promise<{ depot: repo.DepotRow; couriers: PlannedCourier[] }> {
  const depotOf = async (id: string) => {
    const d = await repo.findDepot(ctx.db, plan.mode, id);
    if (!d) throw new Error(`depot ${id} vanished`);
    return d;
  };
  const depot = await depotOf(plan.depot_id);
  const couriers: PlannedCourier[] = [];
  for (const c of plan.request.planned) {
    const start = await depotOf(c.start_depot);
    const shift = shiftOf(c, start, ctx.config);
    couriers.push({ ...c, shift_start: shift.start, shift_end: shift.end, start, end: await depotOf(c.end_depot) });
  }
  return { depot, couriers };
}

/** Tells every stream of the plan's environment that the plan changed (run, edit, commit). */
export function publishPlan(ctx: AppContext, p: repo.PlanRow): void {
  ctx.live.publish(
    'route_plan',
    { mode: p.mode, accountId: null },
    {
      id: p.id,
      status: p.status,
      progress: p.progress,
      date: p.date,
      depot: p.depot_id,
      ...(p.result?.edited_at !== undefined ? { edited_at: new Date(p.result.edited_at).toISOString() } : {}),
      ...(p.committed_at !== null ? { committed_at: new Date(p.committed_at).toISOString() } : {}),
    },
  );
}
