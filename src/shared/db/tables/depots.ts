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
  created_at: number;
  updated_at: number;
}
