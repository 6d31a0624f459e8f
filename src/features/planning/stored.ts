import type { OrderRow } from '../orders/repo.js';
import type { PlannedCourier } from './problem.js';
import type { PlanCourier, PlanResult } from './schemas.js';

/** What a plan stores of its request: everything its run needs, resolved (couriers with overrides applied). */
export interface StoredRequest {
  objective: 'min_distance' | 'min_vehicles' | 'balanced';
  time_limit_ms: number;
  seed: number;
  /** As sent, for the answer. */
  couriers: PlanCourier[];
  /**
   * Resolved: own fields, then the overrides, then the start depot's working day (`shiftOf`);
   * depots by id. Plans stored before working days (014_local_days) may have a null shift.
   */
  planned: (Omit<PlannedCourier, 'start' | 'end' | 'shift_start' | 'shift_end'> & {
    start_depot: string;
    end_depot: string;
    shift_start: string | null;
    shift_end: string | null;
  })[];
  order_ids: string[];
}

/** The plan's routes as optimized or last edited; `edited_at` (epoch ms) once edited, `route_ids` once committed. */
export type StoredResult = PlanResult & { route_ids?: string[]; edited_at?: number };

/** An order's version for staleness: its status and last change. */
export const versionOf = (o: Pick<OrderRow, 'status' | 'updated_at'>) => `${o.status}@${o.updated_at}`;
