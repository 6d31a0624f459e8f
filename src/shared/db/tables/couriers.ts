import type { Mode } from './columns.js';

export const COURIER_STATUSES = ['active', 'disabled'] as const;
export type CourierStatus = (typeof COURIER_STATUSES)[number];

export const VEHICLES = ['on_foot', 'bicycle', 'motorcycle', 'car', 'van', 'truck'] as const;

/** Created by 002_lifecycle. */
export interface CouriersTable {
  id: string;
  /** null for the carrier's couriers (operator keys); an account id for a sandbox courier of a test key. */
  account_id: string | null;
  mode: Mode;
  name: string;
  phone: string | null;
  vehicle: (typeof VEHICLES)[number] | null;
  last_lat: number | null;
  last_lng: number | null;
  last_recorded_at: number | null;
  ping_count: number;
  /** Added by 006_people: a disabled courier's phone sessions end and it cannot sign in. */
  status: CourierStatus;
  /** Added by 008_planning: the vehicle and shift route plans use (DESIGN §10); null = no limit / no shift. */
  capacity_kg: number | null;
  capacity_packages: number | null;
  /** HH:mm, local to the plan's depot. */
  shift_start: string | null;
  shift_end: string | null;
  start_depot: string | null;
  end_depot: string | null;
  /** 021_constraints: JSON array of skills (`cold`, `large`…); null = none. */
  skills: string | null;
  /** The shift's break: earliest and latest start (HH:mm, the plan's depot's zone) and length; all null = none. */
  break_earliest: string | null;
  break_latest: string | null;
  break_minutes: number | null;
  /** Route limits; null = none. */
  max_route_minutes: number | null;
  max_route_km: number | null;
  max_stops: number | null;
  /** Where a route ends: at the end depot (null, `depot`) or at its last stop. */
  route_end: 'depot' | 'last_stop' | null;
  created_at: number;
  updated_at: number;
  /** 016: customers' ratings of its deliveries: how many, and their sum (average = total / count). */
  rating_count: number;
  rating_total: number;
}
