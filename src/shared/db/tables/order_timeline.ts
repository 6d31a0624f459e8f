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
  /** 024: the fix's accuracy radius in metres, when the phone sent one. */
  accuracy_m: number | null;
  /** 024: when the fix was taken (the courier's tap; an offline-queued move arrives later). */
  recorded_at: number | null;
}
