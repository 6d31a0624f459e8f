import type { Mode } from './columns.js';

export const ROUTE_PLAN_STATUSES = ['queued', 'running', 'succeeded', 'failed'] as const;
export type RoutePlanStatus = (typeof ROUTE_PLAN_STATUSES)[number];

/** Created by 008_planning. */
export interface RoutePlansTable {
  id: string;
  mode: Mode;
  depot_id: string;
  /** YYYY-MM-DD, in the depot's timezone. */
  date: string;
  status: RoutePlanStatus;
  progress: number;
  /** JSON: the request as accepted (couriers with overrides, order ids, objective, limits). */
  request: string;
  /** JSON {order_id: updated_at} of the planned orders when they were read: commit refuses if any moved. */
  versions: string;
  /** JSON {routes, unassigned, totals} once succeeded. */
  result: string | null;
  failure: string | null;
  committed_at: number | null;
  created_at: number;
  updated_at: number;
}
