import type { Scope } from '../../shared/auth.js';
import type { Executor } from '../../shared/db/index.js';
import type { OrderStatus } from '../../shared/db/schema.js';
import { FINISHED_STATUSES } from '../../shared/db/tables/orders.js';

export interface FinishedRow {
  id: string;
  tracking_code: string;
  status: OrderStatus;
  route_id: string | null;
  timezone: string;
  /** JSON Customer and Address: only the name and the district or city are shown. */
  customer: string;
  delivery_address: string;
  delivered_at: number | null;
  returned_at: number | null;
  updated_at: number;
}

/**
 * The courier's finished orders last written at or after `since`. Every finishing move writes
 * updated_at, so a finish at or after `since` is among them; the service keeps today's. Found by
 * `orders_courier` (courier_id, updated_at; migration 035): the last day's rows only, however long
 * the courier's history.
 */
export async function finishedSince(
  db: Executor,
  scope: Scope,
  courierId: string,
  since: number,
): Promise<FinishedRow[]> {
  let q = db
    .selectFrom('orders')
    .select([
      'id',
      'tracking_code',
      'status',
      'route_id',
      'timezone',
      'customer',
      'delivery_address',
      'delivered_at',
      'returned_at',
      'updated_at',
    ])
    .where('courier_id', '=', courierId)
    .where('mode', '=', scope.mode)
    .where('status', 'in', [...FINISHED_STATUSES])
    .where('updated_at', '>=', since);
  if (scope.accountId !== null) q = q.where('account_id', '=', scope.accountId);
  return q.execute();
}
