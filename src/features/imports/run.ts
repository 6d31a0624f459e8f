import { setImmediate as nextTurn } from 'node:timers/promises';
import type { AppContext } from '../../shared/context.js';
import { ApiError } from '../../shared/errors.js';
import { zoneOfScope } from '../accounts/zone.js';
import { settingsFor } from '../messages/queue.js';
import { announceCreated, batchOf, insertPreparedOrders } from '../orders/create.js';
import { checkAll, type Outcome } from './check.js';
import { type Column, type Group, groupsOf, resolveColumns } from './convert.js';
import { type OpenSheet, openSheet } from './parse.js';
import * as repo from './repo.js';
import { RowWarnings } from './warnings.js';

/**
 * Rows per committed batch: the resume granularity, and one transaction's size. On SQLite a
 * transaction runs synchronously on the event loop, and a batch of 200 orders (with their events,
 * deliveries and messages) held it for 90–120 ms of CPU on a quiet machine, which put other
 * requests' p99 over 100 ms during an import; 50 hold it for about a quarter of that
 * (BENCHMARKS.md "Other requests during an import").
 */
export const BATCH_ROWS = 50;
export const LEASE_MS = 60_000;
/** Imports at least this large refresh the planner's statistics when they finish (repo.refreshOrderStatistics). */
const ANALYZE_AFTER_ROWS = 1000;

export interface RunOptions {
  owner: string;
  leaseMs?: number;
  batchRows?: number;
  /** Called after each committed batch (progress bars; tests simulate a crash by throwing). */
  onProgress?: (p: Progress) => void | Promise<void>;
  /** Asked between batches: true stops the run (the lease is given back; another run resumes). */
  stopping?: () => boolean;
}

/** Where an import is, for progress bars: rows handled of the total, orders created and skipped, rows rejected. */
export interface Progress {
  processed: number;
  total: number;
  created: number;
  failed: number;
  skipped: number;
}

class LeaseLost extends Error {}

/**
 * Writes one batch's orders, their identities, the rejected rows, the warnings and the new resume
 * point, together.
 */
async function commit(
  ctx: AppContext,
  imp: repo.ImportSummary,
  opts: RunOptions,
  from: number,
  outcomes: Outcome[],
  done?: repo.Progress['done'],
): Promise<{ processed: number; created: number; failed: number; skipped: number }> {
  // all_or_nothing's failure creates nothing, but records every rejected row and every warning.
  const prepared = done?.status === 'failed' ? [] : outcomes.flatMap((o) => ('prepared' in o ? [o] : []));
  const errors = outcomes.flatMap((o) => ('error' in o ? o.error : []));
  const warnings = outcomes.flatMap((o) => o.warnings);
  // A rejected row may have several errors: `failed` counts rows.
  const failed = new Set(errors.map((e) => e.row)).size;
  const skipped = outcomes.filter((o) => 'skipped' in o).length;
  // all_or_nothing's failure covers the whole file.
  const rows =
    done?.status === 'failed' ? imp.total_rows - from : outcomes.reduce((n, o) => n + o.group.rows.length, 0);
  const now = ctx.clock();
  await ctx.db.transaction().execute(async (trx) => {
    for (let i = 0; i < prepared.length; i += BATCH_ROWS) {
      await insertPreparedOrders(
        ctx,
        trx,
        prepared.slice(i, i + BATCH_ROWS).map((p) => p.prepared),
      );
    }
    await repo.insertImportOrders(
      trx,
      prepared.map((p) => ({ import_id: imp.id, row: p.group.rows[0]?.row ?? 0, order_id: p.prepared.row.id })),
    );
    await repo.insertErrors(trx, errors);
    await repo.insertWarnings(trx, warnings);
    const moved = await repo.advance(trx, imp.id, opts.owner, from, {
      processed: from + rows,
      created: prepared.length,
      failed,
      skipped,
      now,
      leaseUntil: now + (opts.leaseMs ?? LEASE_MS),
      done,
    });
    if (!moved) throw new LeaseLost(`import ${imp.id}: lease lost`);
  });
  announceCreated(
    ctx,
    prepared.map((p) => p.prepared),
  );
  // Progress for the console's progress bar (DESIGN §13); the counts are on GET /v1/order_imports/{id}.
  ctx.live.publish(
    'order_import',
    { mode: imp.mode, accountId: imp.account_id },
    { id: imp.id, status: done?.status ?? 'processing', processed_rows: from + rows, total_rows: imp.total_rows },
  );
  return { processed: from + rows, created: prepared.length, failed, skipped };
}

/**
 * Runs a claimed import from its resume point to the end. Row groups are checked and written in
 * batches; each batch commits its orders with the new resume point, so a crash loses at most the
 * batch in flight and never repeats a committed one. all_or_nothing checks every group first and
 * writes all the orders in one transaction, or none.
 */
export async function runImport(ctx: AppContext, imp: repo.ImportSummary, opts: RunOptions): Promise<void> {
  let sheet: OpenSheet | undefined;
  // The resume point as batches commit: where a file that can no longer be read ends the import.
  const at = { processed: imp.processed_rows };
  try {
    sheet = await openSheet(imp.content_type, await repo.contentOf(ctx.db, imp.id));
    const columns = resolveColumns(sheet.headers, imp.date_format);
    // Dates with a time and no offset are wall-clock times in the zone of the account's orders.
    const tz = await zoneOfScope(ctx, imp.account_id);
    // Built one at a time as the batches take them, from rows read as they are needed: only one
    // batch's rows and order bodies are held at once, never the parsed file.
    // National phone numbers ("987 654 321") are read in the country the account's messages use,
    // and a row without a phone is worth a warning when they go by SMS or WhatsApp.
    const { own: messages } = await settingsFor(ctx.db, imp.account_id);
    const reading = { format: imp.date_format, tz, country: messages.default_country };
    const watch = await RowWarnings.start(ctx, imp, columns, messages);
    await runGroups(ctx, imp, opts, columns, groupsOf(sheet.rows, columns, reading), watch, at);
    if (imp.total_rows >= ANALYZE_AFTER_ROWS) await refreshStatistics(ctx);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    // The file was checked at upload; only a change of the rules between upload and run gets here.
    await ctx.db.transaction().execute(async (trx) => {
      await repo.advance(trx, imp.id, opts.owner, at.processed, {
        processed: at.processed,
        created: 0,
        failed: 0,
        skipped: 0,
        now: ctx.clock(),
        leaseUntil: 0,
        done: { status: 'failed', failureMessage: err.message },
      });
    });
  } finally {
    await sheet?.rows.return();
  }
}

/** Best effort: the import has succeeded; stale statistics only slow reads until autovacuum runs. */
async function refreshStatistics(ctx: AppContext): Promise<void> {
  try {
    await repo.refreshOrderStatistics(ctx.db, ctx.engine);
  } catch (err) {
    ctx.logger.warn({ err }, 'import: refreshing the order statistics failed; autovacuum will');
  }
}

async function runGroups(
  ctx: AppContext,
  imp: repo.ImportSummary,
  opts: RunOptions,
  columns: Column[],
  groups: AsyncGenerator<Group, void>,
  watch: RowWarnings,
  at: { processed: number },
): Promise<void> {
  const total = imp.total_rows;
  const progress = { created: imp.created_orders, failed: imp.failed_rows, skipped: imp.skipped_orders };
  const size = opts.batchRows ?? BATCH_ROWS;
  let next = await groups.next();
  /** The next groups of at least `size` rows (fewer at the end of the file), in file order; `last`: the file ends there. */
  const take = async (): Promise<{ batch: Group[]; last: boolean }> => {
    const batch: Group[] = [];
    let rows = 0;
    while (!next.done && rows < size) {
      batch.push(next.value);
      rows += next.value.rows.length;
      next = await groups.next();
    }
    return { batch, last: next.done === true };
  };

  if (imp.import_mode === 'all_or_nothing') {
    const outcomes: Outcome[] = [];
    const shared = await batchOf(ctx, imp.account_id, imp.mode);
    while (!next.done) outcomes.push(...(await checkAll(ctx, imp, columns, (await take()).batch, shared, watch)));
    const done = outcomes.some((o) => 'error' in o)
      ? {
          status: 'failed' as const,
          failureMessage: 'Some rows were rejected, so no order was created (mode all_or_nothing).',
        }
      : { status: 'succeeded' as const };
    const r = await commit(ctx, imp, opts, 0, outcomes, done);
    // The resume point covers the whole file either way.
    await opts.onProgress?.({ processed: total, total, created: r.created, failed: r.failed, skipped: r.skipped });
    return;
  }

  // Skip what committed batches already did: batches end on group boundaries, so this is exact.
  // Their rows are still above the rows to come (an external id seen there is a repeat below).
  let from = imp.processed_rows;
  let seen = 0;
  while (!next.done && seen < from) {
    seen += next.value.rows.length;
    watch.passed(next.value);
    next = await groups.next();
  }
  while (!next.done) {
    if (opts.stopping?.()) {
      await repo.release(ctx.db, imp.id, opts.owner);
      return;
    }
    // The account's webhook endpoints are read once per batch, not once per order.
    const shared = await batchOf(ctx, imp.account_id, imp.mode);
    const { batch, last } = await take();
    const outcomes = await checkAll(ctx, imp, columns, batch, shared, watch);
    const r = await commit(ctx, imp, opts, from, outcomes, last ? { status: 'succeeded' } : undefined);
    from = r.processed;
    at.processed = from;
    progress.created += r.created;
    progress.failed += r.failed;
    progress.skipped += r.skipped;
    await opts.onProgress?.({ processed: from, total, ...progress });
    await nextTurn();
  }
}

export { LeaseLost };
