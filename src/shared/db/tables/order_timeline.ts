import type { Generated } from 'kysely';
import type { OrderStatus } from './orders.js';

/** Created by 001_core. */
export interface OrderTimelineTable {
  id: Generated<number>;
  order_id: string;
  status: OrderStatus;
  occurred_at: number;
  lat: number | null;
  lng: number | null;
}
