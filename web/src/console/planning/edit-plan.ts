import type { PlanEdit, RoutePlan } from './common';

/* The plan's edits as the page makes them: where a stop goes, and the PATCH body that says so. */

/** Where a stop goes: before another stop of a courier's route (or at its end), or off every route. */
export type Target = { courier: string; before: string | null } | { courier: null };

/** Every planned courier's stops, in the plan's courier order (a courier without a route has none). */
export function lanesOf(plan: RoutePlan): Map<string, string[]> {
  const lanes = new Map<string, string[]>(plan.couriers.map((c) => [c.courier_id, []]));
  for (const r of plan.routes ?? [])
    lanes.set(
      r.courier_id,
      r.stops.map((s) => s.order_id),
    );
  return lanes;
}

/**
 * The body of `PATCH /v1/route_plans/{id}` that moves `orderId` to `target`: only the routes that
 * change, each whole. Null when nothing would change (dropped where it already is).
 */
export function moveBody(plan: RoutePlan, orderId: string, target: Target): PlanEdit | null {
  const lanes = lanesOf(plan);
  let from: string | null = null;
  for (const [courier, stops] of lanes) if (stops.includes(orderId)) from = courier;
  if (from === null && target.courier === null) return null;
  const before = lanes.get(from ?? '') ?? [];
  const next = new Map(lanes);
  if (from !== null)
    next.set(
      from,
      before.filter((o) => o !== orderId),
    );
  if (target.courier !== null) {
    if (target.before === orderId) return null;
    const stops = [...(next.get(target.courier) ?? [])];
    const at = target.before === null ? -1 : stops.indexOf(target.before);
    stops.splice(at < 0 ? stops.length : at, 0, orderId);
    next.set(target.courier, stops);
  }
  const changed = [...next].filter(([c, stops]) => (lanes.get(c) ?? []).join() !== stops.join());
  if (changed.length === 0) return null;
  return { routes: changed.map(([courier_id, order_ids]) => ({ courier_id, order_ids })) };
}

/** The target of moving a stop one place up or down its route (null at either end). */
export function stepTarget(plan: RoutePlan, courier: string, orderId: string, step: -1 | 1): Target | null {
  const stops = lanesOf(plan).get(courier) ?? [];
  const i = stops.indexOf(orderId);
  if (i < 0 || i + step < 0 || i + step >= stops.length) return null;
  // Up: before the stop above it. Down: before the stop two below (or at the end).
  return { courier, before: step < 0 ? (stops[i - 1] ?? null) : (stops[i + 2] ?? null) };
}
