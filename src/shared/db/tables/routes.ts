import type { Mode } from './columns.js';

/** Created by 002_lifecycle. */
export interface RoutesTable {
  id: string;
  account_id: string | null;
  mode: Mode;
  courier_id: string;
  /** The local day of the route. The column is nullable; 039_routes_dated dated every route, and every insert dates one. */
  date: string;
  created_at: number;
  /**
   * 043_routes_planned_depots: the depots the committed plan that made the route set its courier off
   * from and back to; null on a route made by hand.
   */
  start_depot: string | null;
  end_depot: string | null;
}
