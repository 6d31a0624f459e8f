import type { Mode } from './columns.js';

/** Created by 002_lifecycle. */
export interface RoutesTable {
  id: string;
  account_id: string | null;
  mode: Mode;
  courier_id: string;
  date: string | null;
  created_at: number;
}
