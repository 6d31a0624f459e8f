import { type ExpressionBuilder, sql } from 'kysely';
import type { Owner } from '../../shared/auth.js';
import { compiledInsert } from '../../shared/db/compiled.js';
import type { Executor, KeysetCursor } from '../../shared/db/index.js';
import type { DB, EventsTable, Mode } from '../../shared/db/schema.js';

export type EventRow = EventsTable;
export type { Owner };
export type Cursor = KeysetCursor;

export async function findEvent(db: Executor, owner: Owner, id: string) {
  return db
    .selectFrom('events')
    .selectAll()
    .where('id', '=', id)
    .where('account_id', '=', owner.accountId)
    .where('mode', '=', owner.mode)
    .executeTakeFirst();
}

export const insertEvent: (
  db: Executor,
  row: {
    id: string;
    account_id: string;
    mode: Mode;
    type: string;
    order_id: string | null;
    payload: string;
    created_at: number;
  },
) => Promise<void> = compiledInsert('events', [
  'id',
  'account_id',
  'mode',
  'type',
  'order_id',
  'payload',
  'created_at',
]);

export async function listEvents(
  db: Executor,
  owner: Owner,
  f: { type?: string; order?: string; deliverySuccess?: boolean; after?: Cursor; limit: number },
) {
  let q = db
    .selectFrom('events as e')
    .selectAll('e')
    .where('e.account_id', '=', owner.accountId)
    .where('e.mode', '=', owner.mode);
  if (f.type !== undefined) q = q.where('e.type', '=', f.type);
  if (f.order !== undefined) q = q.where('e.order_id', '=', f.order);
  if (f.deliverySuccess !== undefined) {
    // A delivery is "unsuccessful" once it is exhausted, or pending after at least one failed attempt.
    const failing = (eb: ExpressionBuilder<DB & { e: EventsTable }, 'e'>) =>
      eb.exists(
        eb
          .selectFrom('webhook_deliveries as w')
          .select(sql`1`.as('one'))
          .whereRef('w.event_id', '=', 'e.id')
          .where((w) =>
            w.or([w('w.status', '=', 'failed'), w.and([w('w.status', '=', 'pending'), w('w.attempts', '>', 0)])]),
          ),
      );
    if (f.deliverySuccess === false) q = q.where((eb) => failing(eb));
    else {
      q = q.where((eb) =>
        eb.and([
          eb.not(failing(eb)),
          eb.exists(
            eb
              .selectFrom('webhook_deliveries as s')
              .select(sql`1`.as('one'))
              .whereRef('s.event_id', '=', 'e.id')
              .where('s.status', '=', 'succeeded'),
          ),
        ]),
      );
    }
  }
  if (f.after) {
    const c = f.after;
    // Row-value comparison: an index range on both engines, so deep pages cost what the first does.
    q = q.where((eb) => eb(eb.refTuple('e.created_at', 'e.id'), '<', eb.tuple(c.created_at, c.id)));
  }
  return q
    .orderBy('e.created_at', 'desc')
    .orderBy('e.id', 'desc')
    .limit(f.limit + 1)
    .execute();
}
