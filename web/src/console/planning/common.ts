import type { Order, Schemas } from '../../shared/api';
import { routeColor } from '../route-colors';

/* What the planning page's parts share: the API's plan types, and how plans are read and shown. */

export type Depot = Schemas['Depot'];
export type RoutePlan = Schemas['RoutePlan'];
export type PlanRoute = Schemas['RoutePlanRoute'];
export type Objective = Schemas['RoutePlanObjective'];
export type Reason = Schemas['RoutePlanUnassigned']['reason'];
export type PlanStop = Schemas['RoutePlanStop'];
export type PlanEdit = Schemas['RoutePlanEditParams'];
export type OrderStatus = Schemas['OrderStatus'];

/** The statuses the planner takes (src/features/planning/repo.ts ASSIGNABLE). */
export const ASSIGNABLE: OrderStatus[] = ['pending', 'validated', 'rescheduled'];
export const REASON: Record<Reason, string> = {
  no_coordinates: 'No coordinates: its address has no latitude and longitude',
  time_window: 'Time window: it cannot be reached within its window',
  capacity: 'Capacity: it does not fit in any vehicle',
  shift: 'Shift: it cannot be served with a return before the shift ends',
  skills: 'Skills: no courier has everything it requires',
  route_limit: 'Route limits: it would take a courier past its maximum stops, duration or distance',
  manual: 'Taken off its route by hand',
};

/** A courier's colour (route-colors.ts): the same in the lanes, on the plan's map, the board and the live map. */
export const colorOf = (courierId: string, roster: readonly { id: string }[]): string => routeColor(courierId, roster);

/** Params the plan form shows next to a field; any other is shown above the Optimize button. */
export const FORM_PARAMS = ['date', 'depot', 'objective', 'time_limit_ms'];

export const running = (p: RoutePlan | null) => p !== null && (p.status === 'queued' || p.status === 'running');

/** HH:mm of an instant in the depot's zone (plans' times of day are the depot's). */
export function clock(iso: string, tz: string): string {
  try {
    return new Intl.DateTimeFormat(undefined, {
      timeZone: tz,
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    }).format(new Date(iso));
  } catch {
    return iso.slice(11, 16);
  }
}

/**
 * When a stop is reached before its window opens, the time its service starts (the delivery a
 * dispatcher checks against the window), else null: "Arrives 08:36" alone reads as a miss.
 */
export function waitsUntil(s: Pick<PlanStop, 'arrival_at' | 'service_start_at'>, tz: string): string | null {
  const start = clock(s.service_start_at, tz);
  return start === clock(s.arrival_at, tz) ? null : start;
}

export const hasPoint = (o: Order) =>
  typeof o.delivery_address.lat === 'number' && typeof o.delivery_address.lng === 'number';
