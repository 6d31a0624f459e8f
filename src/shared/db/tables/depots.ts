import type { Mode } from './columns.js';

/** Created by 008_planning. The carrier's (no account): created by admins and operator keys. */
export interface DepotsTable {
  id: string;
  mode: Mode;
  name: string;
  lat: number;
  lng: number;
  address: string | null;
  /** IANA name: plans read shifts and time windows in it. */
  timezone: string;
  /** Added by 014_local_days: the depot's working day (HH:mm), for couriers without a shift; null: RUTA_DEFAULT_SHIFT. */
  shift_start: string | null;
  shift_end: string | null;
  created_at: number;
  updated_at: number;
}
