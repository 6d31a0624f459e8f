import type { Mode } from './columns.js';

/** Created by 001_core. */
export interface EventsTable {
  id: string;
  account_id: string;
  mode: Mode;
  type: string;
  order_id: string | null;
  /** The exact JSON envelope sent to receivers; kept as text so every attempt sends the same bytes. */
  payload: string;
  created_at: number;
}
