import type { Selectable } from 'kysely';
import type { Scope } from '../../shared/auth.js';
import type { Executor } from '../../shared/db/index.js';
import type { Mode, SettlementLinesTable, SettlementStatus, SettlementsTable } from '../../shared/db/schema.js';

export type SettlementRow = Selectable<SettlementsTable>;
export type LineRow = Selectable<SettlementLinesTable>;

const DELIVERED = ['delivered', 'partially_delivered'] as const;

/** An order as a settlement counts it now: its cash on delivery collected and its shipping cost. */
export interface SettleableOrder {
  id: string;
  tracking_code: string;
  external_order_id: string | null;
  status: string;
  delivered_at: number | null;
  currency: string;
  shipping_cost: number;
  collected: number | null;
}

function orderColumns(db: Executor) {
  return db
    .selectFrom('orders as o')
    .leftJoin('proofs as p', 'p.order_id', 'o.id')
    .select([
      'o.id',
      'o.tracking_code',
      'o.external_order_id',
      'o.status',
      'o.delivered_at',
      'o.currency',
      'o.shipping_cost',
      'p.collected_amount as collected',
    ]);
}

/**
 * One account's orders delivered in [from, to) that no settlement holds yet, oldest first
 * (`orders_delivered`; the anti-join probes `settlement_lines_order`).
 */
export async function unsettled(db: Executor, account: string, mode: Mode, from: number, to: number) {
  return orderColumns(db)
    .where('o.account_id', '=', account)
    .where('o.mode', '=', mode)
    .where('o.delivered_at', '>=', from)
    .where('o.delivered_at', '<', to)
    .where('o.status', 'in', [...DELIVERED])
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('settlement_lines as l')
            .select('l.id')
            .whereRef('l.order_id', '=', 'o.id')
            .where('l.kind', '=', 'order'),
        ),
      ),
    )
    .orderBy('o.delivered_at')
    .orderBy('o.id')
    .execute() as Promise<SettleableOrder[]>;
}

/** Per order settled in an issued or paid settlement of the account: the sums of all its lines so far. */
export async function settledSums(db: Executor, account: string, mode: Mode) {
  const rows = await db
    .selectFrom('settlement_lines as l')
    .innerJoin('settlements as s', 's.id', 'l.settlement_id')
    .select((eb) => [
      'l.order_id',
      eb.fn.sum<number>('l.cod_collected').as('cod'),
      eb.fn.sum<number>('l.shipping_cost').as('shipping'),
    ])
    .where('s.account_id', '=', account)
    .where('s.mode', '=', mode)
    .where('l.order_id', 'in', (eb) =>
      eb
        .selectFrom('settlement_lines as k')
        .innerJoin('settlements as t', 't.id', 'k.settlement_id')
        .select('k.order_id')
        .where('t.account_id', '=', account)
        .where('t.mode', '=', mode)
        .where('t.status', 'in', ['issued', 'paid'])
        .where('k.kind', '=', 'order'),
    )
    .groupBy('l.order_id')
    .execute();
  return rows.map((r) => ({ order_id: r.order_id, cod: Number(r.cod ?? 0), shipping: Number(r.shipping ?? 0) }));
}

/** The orders of `ids`, as they are now. */
export async function ordersNow(db: Executor, ids: string[]): Promise<SettleableOrder[]> {
  if (ids.length === 0) return [];
  return orderColumns(db).where('o.id', 'in', ids).orderBy('o.id').execute() as Promise<SettleableOrder[]>;
}

export async function insertSettlement(db: Executor, row: SettlementRow, lines: LineRow[]): Promise<void> {
  await db.insertInto('settlements').values(row).execute();
  // In slices: PostgreSQL takes at most 65 535 parameters a statement, SQLite 32 766.
  for (let i = 0; i < lines.length; i += 500) {
    await db
      .insertInto('settlement_lines')
      .values(lines.slice(i, i + 500))
      .execute();
  }
}

export async function findSettlement(db: Executor, scope: Scope, id: string): Promise<SettlementRow | undefined> {
  let q = db.selectFrom('settlements').selectAll().where('id', '=', id).where('mode', '=', scope.mode);
  if (scope.accountId !== null) q = q.where('account_id', '=', scope.accountId);
  return q.executeTakeFirst();
}

export async function linesOf(db: Executor, ids: string[]): Promise<LineRow[]> {
  if (ids.length === 0) return [];
  return db
    .selectFrom('settlement_lines')
    .selectAll()
    .where('settlement_id', 'in', ids)
    .orderBy('settlement_id')
    .orderBy('position')
    .execute();
}

export async function listSettlements(
  db: Executor,
  scope: Scope,
  f: { account?: string; status?: SettlementStatus; after?: string; limit: number },
): Promise<SettlementRow[]> {
  let q = db.selectFrom('settlements').selectAll().where('mode', '=', scope.mode);
  const account = scope.accountId ?? f.account;
  if (account !== undefined) q = q.where('account_id', '=', account);
  if (f.status !== undefined) q = q.where('status', '=', f.status);
  if (f.after !== undefined) q = q.where('id', '<', f.after);
  return q
    .orderBy('id', 'desc')
    .limit(f.limit + 1)
    .execute();
}

/** A guarded move: only from `from`, so two racing requests cannot both issue (or pay) it. */
export async function moveSettlement(
  db: Executor,
  id: string,
  from: SettlementStatus,
  set: Partial<Pick<SettlementRow, 'status' | 'issued_at' | 'paid_at' | 'updated_at'>>,
): Promise<boolean> {
  const r = await db
    .updateTable('settlements')
    .set(set)
    .where('id', '=', id)
    .where('status', '=', from)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** A draft deleted frees its orders for the next draft (inside the caller's transaction). */
export async function deleteDraft(db: Executor, id: string): Promise<boolean> {
  await db.deleteFrom('settlement_lines').where('settlement_id', '=', id).execute();
  const r = await db.deleteFrom('settlements').where('id', '=', id).where('status', '=', 'draft').executeTakeFirst();
  return Number(r.numDeletedRows) === 1;
}
