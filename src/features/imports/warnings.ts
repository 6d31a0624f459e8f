import type { AppContext } from '../../shared/context.js';
import type { Column, Group } from './convert.js';
import * as repo from './repo.js';
import type { ImportDuplicates } from './schemas.js';

/** The orders of the account and environment that already have an external id: the newest, and how many. */
type Existing = { id: string; count: number } | null;

const externalIdOf = (g: Group): string | undefined => {
  const id = g.body.external_order_id;
  return typeof id === 'string' && id !== '' ? id : undefined;
};

/**
 * What an import says of a row it imports (or skips) that may not be what was meant: its
 * external_order_id already belongs to an order of the account and environment, or to a row above
 * in the file (which starts an order of its own: only rows one after another make one order).
 *
 * The ids of each batch are looked up in one query (`lookUp`), each id once a run. The orders this
 * import made itself are never taken for existing ones, so a run resumed after a crash, which finds
 * its committed batches' orders in the table, decides each row as the first run would have; the
 * rows those batches held are passed over in file order (`passed`), so the rows above are known too.
 */
export class RowWarnings {
  /** external_order_id → the first row of the first order of the file that had it, among the rows read so far. */
  private readonly above = new Map<string, number>();
  /** external_order_id → the orders of the account and environment (not this import's) that have it. */
  private readonly existing = new Map<string, Existing>();

  private constructor(
    private readonly ctx: AppContext,
    private readonly imp: repo.ImportSummary,
    private readonly idColumn: string | null,
    private readonly own: Set<string>,
  ) {}

  static async start(ctx: AppContext, imp: repo.ImportSummary, columns: Column[]): Promise<RowWarnings> {
    const id = columns.find((c) => c.kind === 'field' && c.target.canonical === 'external_order_id');
    // The orders of committed batches (none on a first run): a resumed run must not take them for duplicates.
    const own = new Set(id ? await repo.importedOrderIds(ctx.db, imp.id) : []);
    return new RowWarnings(ctx, imp, id?.header ?? null, own);
  }

  /** A group of a batch committed before a crash, passed over by the resumed run: it is above the rows to come. */
  passed(group: Group): void {
    const id = externalIdOf(group);
    if (id !== undefined && !this.above.has(id)) this.above.set(id, group.rows[0]?.row ?? 0);
  }

  /** Looks up, in one query, the external ids of these groups not asked about before. */
  async lookUp(groups: Group[]): Promise<void> {
    const ids = [...new Set(groups.map(externalIdOf))].filter(
      (id): id is string => id !== undefined && !this.existing.has(id),
    );
    if (ids.length === 0) return;
    for (const id of ids) this.existing.set(id, null);
    const found = await repo.ordersWithExternalIds(this.ctx.db, this.imp.account_id, this.imp.mode, ids);
    // Newest first: the first of each id is the one named.
    for (const o of found) {
      if (this.own.has(o.id)) continue;
      const cur = this.existing.get(o.external_order_id);
      this.existing.set(o.external_order_id, cur ? { id: cur.id, count: cur.count + 1 } : { id: o.id, count: 1 });
    }
  }

  /**
   * The group's warnings (on its first row), and whether `duplicates: skip` leaves it out. Asked of
   * every group in file order, after `lookUp` of its batch.
   */
  of(group: Group, duplicates: ImportDuplicates): { skip: boolean; warnings: repo.WarningRow[] } {
    const id = externalIdOf(group);
    const row = group.rows[0]?.row ?? 0;
    const warnings: repo.WarningRow[] = [];
    const warn = (column: string | null, param: string, code: string, message: string) =>
      warnings.push({ import_id: this.imp.id, row, seq: warnings.length, column, param, code, message });
    let skip = false;
    if (id !== undefined) {
      const existing = this.existing.get(id);
      const earlier = this.above.get(id);
      if (earlier === undefined) this.above.set(id, row);
      const dup = (message: string) => warn(this.idColumn, 'external_order_id', 'duplicate_external_order_id', message);
      if (existing) {
        const which = `order ${existing.id}${existing.count > 1 ? ` (and ${existing.count - 1} more)` : ''}`;
        skip = duplicates === 'skip';
        dup(
          skip
            ? `Skipped: external_order_id "${id}" already belongs to ${which}; no order was created from this row.`
            : `external_order_id "${id}" already belongs to ${which}: this row makes another order with it (upload with duplicates=skip to leave such orders out).`,
        );
      } else if (earlier !== undefined) {
        dup(
          `external_order_id "${id}" is also on row ${earlier}, above: this row starts another order with it (only rows one after another make one order).`,
        );
      }
    }
    return { skip, warnings };
  }
}
