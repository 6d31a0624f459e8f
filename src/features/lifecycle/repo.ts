import type { Executor } from '../../shared/db/index.js';
import type { OrderLifecycleColumns, ProofsTable } from '../../shared/db/schema.js';
import type { OrderRow } from '../orders/repo.js';

export type LifecycleOrderRow = OrderRow & OrderLifecycleColumns;

/**
 * Moves an order only if nobody moved it since it was read: same status and same event sequence
 * (every move bumps event_seq). On PostgreSQL a concurrent writer blocks on the row lock and then
 * re-checks this WHERE against the committed row, so of two racing moves exactly one matches.
 */
export async function advance(
  db: Executor,
  current: Pick<LifecycleOrderRow, 'id' | 'status' | 'event_seq'>,
  set: Partial<LifecycleOrderRow>,
  countsAttempt: boolean,
): Promise<LifecycleOrderRow | undefined> {
  // The move's event takes the next sequence, in this same statement (RETURNING gives it back).
  let q = db
    .updateTable('orders')
    .set(set)
    .set((eb) => ({ event_seq: eb('event_seq', '+', 1) }));
  if (countsAttempt) q = q.set((eb) => ({ attempts: eb('attempts', '+', 1) }));
  return q
    .where('id', '=', current.id)
    .where('status', '=', current.status)
    .where('event_seq', '=', current.event_seq)
    .returningAll()
    .executeTakeFirst();
}

export async function statusOf(db: Executor, id: string): Promise<string | undefined> {
  const row = await db.selectFrom('orders').select('status').where('id', '=', id).executeTakeFirst();
  return row?.status;
}

export async function insertProof(db: Executor, row: ProofsTable): Promise<void> {
  await db.insertInto('proofs').values(row).execute();
}

export async function findProof(db: Executor, orderId: string): Promise<ProofsTable | undefined> {
  return db.selectFrom('proofs').selectAll().where('order_id', '=', orderId).executeTakeFirst();
}
