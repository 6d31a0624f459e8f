import type { Executor } from '../../shared/db/index.js';
import { fromColumns, type OrderRow } from '../orders/repo.js';

export type PublicOrderRow = OrderRow & { account_name: string };

/**
 * The one lookup that ignores account and environment: a tracking code is globally unique
 * (unique index) and is itself the credential of the public page, so both test and live orders
 * resolve. The caller decides what of the row may be shown.
 */
export async function findOrderByTrackingCode(db: Executor, code: string): Promise<PublicOrderRow | undefined> {
  const row = await db
    .selectFrom('orders')
    .innerJoin('accounts', 'accounts.id', 'orders.account_id')
    .selectAll('orders')
    .select('accounts.name as account_name')
    .where('orders.tracking_code', '=', code)
    .executeTakeFirst();
  return row && { ...fromColumns(row), account_name: row.account_name };
}
