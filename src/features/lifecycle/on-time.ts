import { atLocalTime, dayRange } from '../../shared/local-time.js';
import { dueOf, type OrderRow } from '../orders/repo.js';

/**
 * Whether a delivery at `at` is on time (DESIGN §17 "on-time rate: delivered inside the window"),
 * fixed once, when the order is delivered, so the reports count it from an index: inside its time
 * window on its due day, read in the order's zone; an order without a window is on time on or
 * before its due day. 1 or 0, the column `orders.on_time`.
 */
export function onTime(
  order: Pick<OrderRow, 'requested_date' | 'created_at' | 'time_window' | 'timezone'>,
  at: number,
): 0 | 1 {
  const day = dueOf(order.requested_date, order.created_at, order.timezone).due_day;
  const tw = order.time_window;
  if (tw) {
    const start = atLocalTime(day, tw.start, order.timezone);
    const end = atLocalTime(day, tw.end, order.timezone);
    return at >= start && at <= end ? 1 : 0;
  }
  return at < dayRange(day, order.timezone).end ? 1 : 0;
}
