import type { Selectable } from 'kysely';
import { sql } from 'kysely';
import type { Owner } from '../../shared/auth.js';
import type { Db, Engine, Executor, KeysetCursor, Tx } from '../../shared/db/index.js';
import type {
  Mode,
  OrderImportErrorsTable,
  OrderImportsTable,
  OrderImportWarningsTable,
} from '../../shared/db/schema.js';

export type ImportRow = Selectable<OrderImportsTable>;
/** The import without its file: what lists and progress reads need. */
export type ImportSummary = Omit<ImportRow, 'content'>;
export type ErrorRow = Selectable<OrderImportErrorsTable>;
export type WarningRow = Selectable<OrderImportWarningsTable>;

const SUMMARY = [
  'id',
  'account_id',
  'mode',
  'status',
  'import_mode',
  'duplicates',
  'date_format',
  'content_type',
  'size',
  'total_rows',
  'processed_rows',
  'created_orders',
  'failed_rows',
  'skipped_orders',
  'failure_message',
  'lease_owner',
  'lease_expires_at',
  'created_at',
  'updated_at',
  'completed_at',
] as const satisfies readonly (keyof ImportSummary)[];

export async function insertImport(db: Executor, row: ImportRow): Promise<void> {
  await db.insertInto('order_imports').values(row).execute();
}

export async function findImport(db: Executor, owner: Owner, id: string): Promise<ImportSummary | undefined> {
  return db
    .selectFrom('order_imports')
    .select(SUMMARY)
    .where('id', '=', id)
    .where('account_id', '=', owner.accountId)
    .where('mode', '=', owner.mode)
    .executeTakeFirst();
}

export async function contentOf(db: Executor, id: string): Promise<Buffer> {
  const r = await db.selectFrom('order_imports').select('content').where('id', '=', id).executeTakeFirstOrThrow();
  return Buffer.from(r.content);
}

export async function listImports(
  db: Executor,
  owner: Owner,
  after: KeysetCursor | undefined,
  limit: number,
): Promise<ImportSummary[]> {
  let q = db
    .selectFrom('order_imports')
    .select(SUMMARY)
    .where('account_id', '=', owner.accountId)
    .where('mode', '=', owner.mode);
  if (after) q = q.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(after.created_at, after.id)));
  return q
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit + 1)
    .execute();
}

/** The errors the import object shows: the rows that were wrong (not their order's other rows), in row order. */
export async function shownErrors(db: Executor, importId: string, limit: number): Promise<ErrorRow[]> {
  return db
    .selectFrom('order_import_errors')
    .selectAll()
    .where('import_id', '=', importId)
    .where('cause_row', 'is', null)
    .orderBy('row')
    .orderBy('seq')
    .limit(limit)
    .execute();
}

/** The warnings the import object shows, in row order. */
export async function shownWarnings(db: Executor, importId: string, limit: number): Promise<WarningRow[]> {
  return db
    .selectFrom('order_import_warnings')
    .selectAll()
    .where('import_id', '=', importId)
    .orderBy('row')
    .orderBy('seq')
    .limit(limit)
    .execute();
}

/** Every rejected row's errors, in row order and each row's in its order, for failed_rows.csv. */
export async function allErrors(db: Executor, importId: string): Promise<ErrorRow[]> {
  return db
    .selectFrom('order_import_errors')
    .selectAll()
    .where('import_id', '=', importId)
    .orderBy('row')
    .orderBy('seq')
    .execute();
}

/**
 * Claims one import to run: queued, or processing with a lapsed lease (its worker died). One
 * UPDATE of the row its subquery picks; on PostgreSQL SKIP LOCKED keeps two workers off the same
 * import, and the lease keeps a later one off it until the holder stops renewing. `id`: claim
 * that import only (the CLI runs the one it created).
 */
export async function claimImport(
  db: Db,
  engine: Engine,
  opts: { owner: string; now: number; leaseUntil: number; id?: string },
): Promise<ImportSummary | undefined> {
  let pick = db
    .selectFrom('order_imports')
    .select('id')
    .where('status', 'in', ['queued', 'processing'])
    .where((eb) => eb.or([eb('lease_expires_at', 'is', null), eb('lease_expires_at', '<=', opts.now)]));
  if (opts.id !== undefined) pick = pick.where('id', '=', opts.id);
  pick = pick.orderBy('created_at').limit(1);
  if (engine === 'postgres') pick = pick.forUpdate().skipLocked();
  return db
    .updateTable('order_imports')
    .set({ status: 'processing', lease_owner: opts.owner, lease_expires_at: opts.leaseUntil, updated_at: opts.now })
    .where('id', 'in', pick)
    .returning(SUMMARY)
    .executeTakeFirst();
}

export interface Progress {
  processed: number;
  created: number;
  failed: number;
  skipped: number;
  now: number;
  leaseUntil: number;
  /** Set on the last batch. */
  done?: { status: 'succeeded' | 'failed'; failureMessage?: string };
}

/**
 * Moves the resume point, in the batch's transaction. Guarded by the owner and the previous
 * point: if another worker took the import over (our lease lapsed), nothing matches, the caller
 * throws and the batch's orders roll back with it.
 */
export async function advance(trx: Tx, id: string, owner: string, from: number, p: Progress): Promise<boolean> {
  const r = await trx
    .updateTable('order_imports')
    .set({
      processed_rows: p.processed,
      created_orders: sql`created_orders + ${p.created}`,
      failed_rows: sql`failed_rows + ${p.failed}`,
      skipped_orders: sql`skipped_orders + ${p.skipped}`,
      updated_at: p.now,
      lease_expires_at: p.done ? null : p.leaseUntil,
      lease_owner: p.done ? null : owner,
      ...(p.done ? { status: p.done.status, completed_at: p.now, failure_message: p.done.failureMessage ?? null } : {}),
    })
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .where('processed_rows', '=', from)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Gives the lease back (on a clean stop), so another worker can resume at once. */
export async function release(db: Db, id: string, owner: string): Promise<void> {
  await db
    .updateTable('order_imports')
    .set({ lease_owner: null, lease_expires_at: null })
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .execute();
}

/** The deterministic identity of each created order: (import, first row) is a primary key. */
export async function insertImportOrders(
  trx: Tx,
  rows: { import_id: string; row: number; order_id: string }[],
): Promise<void> {
  // Chunked like insertErrors: an all-or-nothing import writes up to 10 000 at once.
  for (let i = 0; i < rows.length; i += 1000) {
    await trx
      .insertInto('order_import_orders')
      .values(rows.slice(i, i + 1000))
      .execute();
  }
}

/** The orders an import has created so far: a resumed run does not take them for duplicates. */
export async function importedOrderIds(db: Executor, importId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('order_import_orders')
    .select('order_id')
    .where('import_id', '=', importId)
    .execute();
  return rows.map((r) => r.order_id);
}

/**
 * The orders of an account and environment with any of these external ids: one query a batch, on
 * `orders_external` (mode, external_order_id, account_id), every column an equality. Unsorted: an
 * ORDER BY created_at made both engines walk the account's whole list index (orders_list) instead.
 */
export function externalIdsQuery(db: Executor, accountId: string, mode: Mode, externalIds: string[]) {
  return db
    .selectFrom('orders')
    .select(['id', 'external_order_id', 'created_at'])
    .where('mode', '=', mode)
    .where('external_order_id', 'in', externalIds)
    .where('account_id', '=', accountId);
}

/** `externalIdsQuery`'s orders, newest first. */
export async function ordersWithExternalIds(
  db: Executor,
  accountId: string,
  mode: Mode,
  externalIds: string[],
): Promise<{ id: string; external_order_id: string }[]> {
  if (externalIds.length === 0) return [];
  const rows = await externalIdsQuery(db, accountId, mode, externalIds).execute();
  // Ids are unique: two orders of the same millisecond are told apart by theirs.
  rows.sort((a, b) => Number(b.created_at) - Number(a.created_at) || (b.id > a.id ? 1 : -1));
  // Not null: each matched one of the ids.
  return rows as { id: string; external_order_id: string }[];
}

/** Chunked like insertErrors. */
export async function insertWarnings(trx: Tx, rows: WarningRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 500) {
    await trx
      .insertInto('order_import_warnings')
      .values(rows.slice(i, i + 500))
      .execute();
  }
}

export async function insertErrors(trx: Tx, rows: ErrorRow[]): Promise<void> {
  // Chunked: an all-or-nothing failure can reject 10 000 rows at once, and parameters are limited.
  for (let i = 0; i < rows.length; i += 500) {
    await trx
      .insertInto('order_import_errors')
      .values(rows.slice(i, i + 500))
      .execute();
  }
}

/**
 * Refreshes PostgreSQL's statistics of `orders` after a large import. Autovacuum refreshes them a
 * minute or more after a bulk load; until then 10 000 new orders of one account are estimated as
 * one row, and the account's order list (`GET /v1/orders`) chose an index that sorts them all:
 * 40-50 ms a request instead of 1 (BENCHMARKS.md "Other requests during an import"). PostgreSQL's
 * own advice for bulk loads ("Populating a Database": run ANALYZE afterwards). It samples a fixed
 * number of rows, so it costs about the same on a large table. SQLite plans without statistics.
 */
export async function refreshOrderStatistics(db: Db, engine: Engine): Promise<void> {
  if (engine === 'postgres') await sql`ANALYZE orders`.execute(db);
}
