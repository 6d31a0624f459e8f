import type { Selectable } from 'kysely';
import type { Executor } from '../../shared/db/index.js';
import type { CashHandoversTable, CashResolutionsTable, Mode } from '../../shared/db/schema.js';

export type HandoverRow = Selectable<CashHandoversTable>;
export type ResolutionRow = Selectable<CashResolutionsTable>;

/** Cash a courier took at a door: a delivered order whose proof says it was paid in cash. */
export interface CollectionRow {
  order_id: string;
  tracking_code: string;
  courier_id: string;
  currency: string;
  /** minor units: the cash on delivery the order asked for */
  expected: number;
  /** minor units: what the courier recorded collecting */
  collected: number;
  delivered_at: number;
}

interface Who {
  mode: Mode;
  /** One courier, or every courier of the environment. */
  courierId?: string;
}

/**
 * Cash collections delivered in [from, to). Through `orders_courier` for one courier; for every
 * courier (the end-of-day report) through the proofs of the day, joined to their orders.
 */
export async function collections(db: Executor, who: Who, from: number, to: number): Promise<CollectionRow[]> {
  let q = db
    .selectFrom('proofs as p')
    .innerJoin('orders as o', 'o.id', 'p.order_id')
    .select([
      'o.id as order_id',
      'o.tracking_code',
      'o.courier_id',
      'o.currency',
      'o.cash_on_delivery as expected',
      'p.collected_amount as collected',
      'p.delivered_at',
    ])
    .where('o.mode', '=', who.mode)
    .where('p.payment_method', '=', 'cash')
    .where('o.courier_id', 'is not', null)
    .where('p.delivered_at', '>=', from)
    .where('p.delivered_at', '<', to);
  if (who.courierId !== undefined) q = q.where('o.courier_id', '=', who.courierId);
  const rows = await q.orderBy('p.delivered_at').orderBy('o.id').execute();
  return rows.map((r) => ({ ...r, courier_id: r.courier_id as string, collected: r.collected ?? 0 }));
}

/** Per courier and currency, what was collected before `before` (the balance carried into a period). */
export async function collectedBefore(db: Executor, who: Who, before: number) {
  let q = db
    .selectFrom('proofs as p')
    .innerJoin('orders as o', 'o.id', 'p.order_id')
    .select((eb) => ['o.courier_id', 'o.currency', eb.fn.sum<number>('p.collected_amount').as('amount')])
    .where('o.mode', '=', who.mode)
    .where('p.payment_method', '=', 'cash')
    .where('o.courier_id', 'is not', null)
    .where('p.delivered_at', '<', before);
  if (who.courierId !== undefined) q = q.where('o.courier_id', '=', who.courierId);
  const rows = await q.groupBy(['o.courier_id', 'o.currency']).execute();
  return rows.map((r) => ({ courier_id: r.courier_id as string, currency: r.currency, amount: Number(r.amount ?? 0) }));
}

/** Per courier and currency, what was handed over on days before `day` (a voided handover counts for nothing). */
export async function handedBefore(db: Executor, who: Who, day: string) {
  let q = db
    .selectFrom('cash_handovers')
    .select((eb) => ['courier_id', 'currency', eb.fn.sum<number>('amount').as('amount')])
    .where('mode', '=', who.mode)
    .where('day', '<', day)
    .where('voided_at', 'is', null);
  if (who.courierId !== undefined) q = q.where('courier_id', '=', who.courierId);
  const rows = await q.groupBy(['courier_id', 'currency']).execute();
  return rows.map((r) => ({ courier_id: r.courier_id, currency: r.currency, amount: Number(r.amount ?? 0) }));
}

/** Handovers of local days [fromDay, toDay], oldest first: the voided ones too (the lists show them; sums skip them). */
export async function handovers(db: Executor, who: Who, fromDay: string, toDay: string): Promise<HandoverRow[]> {
  let q = db
    .selectFrom('cash_handovers')
    .selectAll()
    .where('mode', '=', who.mode)
    .where('day', '>=', fromDay)
    .where('day', '<=', toDay);
  if (who.courierId !== undefined) q = q.where('courier_id', '=', who.courierId);
  return q.orderBy('created_at').orderBy('id').execute();
}

export async function insertHandover(db: Executor, row: HandoverRow): Promise<void> {
  await db.insertInto('cash_handovers').values(row).execute();
}

/** One handover of the environment, voided or not. */
export async function findHandover(db: Executor, mode: Mode, id: string): Promise<HandoverRow | undefined> {
  return db.selectFrom('cash_handovers').selectAll().where('id', '=', id).where('mode', '=', mode).executeTakeFirst();
}

/**
 * Voids a handover that is not voided yet, in one statement: of two voids at once, one writes and the
 * other finds it voided (false), so the first reason is the one kept.
 */
export async function voidHandover(
  db: Executor,
  id: string,
  v: { voided_at: number; voided_by: string; void_reason: string },
): Promise<boolean> {
  const res = await db
    .updateTable('cash_handovers')
    .set(v)
    .where('id', '=', id)
    .where('voided_at', 'is', null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

export async function resolutions(db: Executor, who: Who, fromDay: string, toDay: string): Promise<ResolutionRow[]> {
  let q = db
    .selectFrom('cash_resolutions')
    .selectAll()
    .where('mode', '=', who.mode)
    .where('day', '>=', fromDay)
    .where('day', '<=', toDay);
  if (who.courierId !== undefined) q = q.where('courier_id', '=', who.courierId);
  return q.execute();
}

/** A new note replaces the old one: the resolution explains the day as it is now. */
export async function saveResolution(db: Executor, row: ResolutionRow): Promise<void> {
  await db
    .deleteFrom('cash_resolutions')
    .where('courier_id', '=', row.courier_id)
    .where('day', '=', row.day)
    .where('currency', '=', row.currency)
    .execute();
  await db.insertInto('cash_resolutions').values(row).execute();
}

/** Names of the environment's couriers, for the end-of-day report. */
export async function courierNames(db: Executor, mode: Mode, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('couriers')
    .select(['id', 'name'])
    .where('mode', '=', mode)
    .where('id', 'in', ids)
    .execute();
  return new Map(rows.map((r) => [r.id, r.name]));
}
