import type { Mode } from './columns.js';

export const AUTO_DISPATCH_OUTCOMES = ['assigned', 'no_fit', 'error'] as const;
export type AutoDispatchOutcome = (typeof AUTO_DISPATCH_OUTCOMES)[number];

/** Created by 018_dispatch: one row per order the auto-dispatch sweep has handled. */
export interface AutoDispatchesTable {
  order_id: string;
  mode: Mode;
  outcome: AutoDispatchOutcome;
  courier_id: string | null;
  route_id: string | null;
  message: string | null;
  created_at: number;
}
