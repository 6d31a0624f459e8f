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
  created_at: number;
  updated_at: number;
}
