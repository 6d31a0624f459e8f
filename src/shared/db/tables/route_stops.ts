/** Created by 002_lifecycle. */
export interface RouteStopsTable {
  route_id: string;
  position: number;
  order_id: string;
}
