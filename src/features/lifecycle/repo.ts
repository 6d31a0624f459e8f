import type { Executor } from '../../shared/db/index.js';
import type { ProofsTable } from '../../shared/db/schema.js';
import { fromColumns, type OrderRow, toColumns } from '../orders/repo.js';

/**
 * Moves an order only if nobody moved it since it was read: same status and same event sequence
 * (every move bumps event_seq). On PostgreSQL a concurrent writer blocks on the row lock and then
 * re-checks this WHERE against the committed row, so of two racing moves exactly one matches.
 */
export async function advance(
  db: Executor,
  current: Pick<OrderRow, 'id' | 'status' | 'event_seq'>,
  set: Partial<OrderRow>,
  countsAttempt: boolean,
): Promise<OrderRow | undefined> {
  // The move's event takes the next sequence, in this same statement (RETURNING gives it back).
  let q = db
    .updateTable('orders')
    .set(toColumns(set))
    .set((eb) => ({ event_seq: eb('event_seq', '+', 1) }));
  if (countsAttempt) q = q.set((eb) => ({ attempts: eb('attempts', '+', 1) }));
  const row = await q
    .where('id', '=', current.id)
    .where('status', '=', current.status)
    .where('event_seq', '=', current.event_seq)
    .returningAll()
    .executeTakeFirst();
  return row && fromColumns(row);
}

export async function statusOf(db: Executor, id: string): Promise<string | undefined> {
  const row = await db.selectFrom('orders').select('status').where('id', '=', id).executeTakeFirst();
  return row?.status;
}

/** A proof of delivery, its photo ids parsed. */
export interface ProofRow extends Omit<ProofsTable, 'photo_files'> {
  photo_files: string[];
}

export async function insertProof(db: Executor, row: ProofRow): Promise<void> {
  await db
    .insertInto('proofs')
    .values({ ...row, photo_files: JSON.stringify(row.photo_files) })
    .execute();
}

export async function findProof(db: Executor, orderId: string): Promise<ProofRow | undefined> {
  const row = await db.selectFrom('proofs').selectAll().where('order_id', '=', orderId).executeTakeFirst();
  return row && { ...row, photo_files: JSON.parse(row.photo_files) };
}

/**
 * Counts one wrong PIN, only while the PIN is still `set`: two wrong tries at once are two
 * increments of the row (the UPDATE reads the committed count), never one lost. Undefined when the
 * PIN was locked or overridden meanwhile.
 */
export async function countWrongPin(db: Executor, orderId: string, now: number): Promise<number | undefined> {
  const row = await db
    .updateTable('orders')
    .set((eb) => ({ pin_attempts: eb('pin_attempts', '+', 1), updated_at: now }))
    .where('id', '=', orderId)
    .where('pin_state', '=', 'set')
    .returning('pin_attempts')
    .executeTakeFirst();
  return row?.pin_attempts;
}

/**
 * Moves the PIN from `from` to `to` (the fifth wrong try locks it; a dispatcher's override unlocks
 * it) and takes the next event sequence for the event that says so, in one guarded statement.
 */
export async function setPinState(
  db: Executor,
  orderId: string,
  from: 'set' | 'locked',
  to: 'locked' | 'overridden',
  now: number,
): Promise<OrderRow | undefined> {
  const row = await db
    .updateTable('orders')
    .set((eb) => ({ pin_state: to, updated_at: now, event_seq: eb('event_seq', '+', 1) }))
    .where('id', '=', orderId)
    .where('pin_state', '=', from)
    .returningAll()
    .executeTakeFirst();
  return row && fromColumns(row);
}

export async function pinStateOf(db: Executor, orderId: string): Promise<string | null | undefined> {
  const row = await db.selectFrom('orders').select('pin_state').where('id', '=', orderId).executeTakeFirst();
  return row?.pin_state;
}
