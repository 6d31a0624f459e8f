import type { Generated } from 'kysely';

/** Created by 002_lifecycle. */
export interface RouteStopsTable {
  route_id: string;
  position: number;
  order_id: string;
  /**
   * Added by 032_pickup_pairs: `pickup` for the stop where a paired order is collected (its
   * `pickup_address`), before its `delivery` stop on the same route; every other stop is `delivery`.
   */
  kind: Generated<StopKind>;
}

export const STOP_KINDS = ['pickup', 'delivery'] as const;
export type StopKind = (typeof STOP_KINDS)[number];
