import type { AppContext } from '../../shared/context.js';
import { SKIP_DUPLICATES_HINT } from '../../shared/import-messages.js';
import { type MessageSettings, sendsOn } from '../messages/settings.js';
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
 * in the file (which starts an order of its own: only rows one after another make one order); it
 * has no phone, while the account's customer messages go by SMS or WhatsApp.
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
    /** The headers warnings point at: the external_order_id column, the phone's (else the WhatsApp's). */
    private readonly headers: { id: string | null; phone: string | null },
    private readonly own: Set<string>,
    /** The account's customer messages (its settings, else the carrier's) go by SMS or WhatsApp; by email. */
    private readonly sends: { phone: boolean; email: boolean },
  ) {}

  static async start(
    ctx: AppContext,
    imp: repo.ImportSummary,
    columns: Column[],
    messages: MessageSettings,
  ): Promise<RowWarnings> {
    const header = (name: string) =>
      columns.find((c) => c.kind === 'field' && c.target.canonical === name)?.header ?? null;
    const id = header('external_order_id');
    // The orders of committed batches: a resumed run must not take them for duplicates. A run from
    // the first row has none (an import's orders commit with its resume point).
    const resumed = id !== null && imp.processed_rows > 0;
    const own = new Set(resumed ? await repo.importedOrderIds(ctx.db, imp.id) : []);
    const sends = {
      phone: sendsOn(messages, 'sms') || sendsOn(messages, 'whatsapp'),
      email: sendsOn(messages, 'email'),
    };
    const headers = { id, phone: header('customer_phone') ?? header('customer_whatsapp') };
    return new RowWarnings(ctx, imp, headers, own, sends);
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
      const dup = (message: string) =>
        warn(this.headers.id, 'external_order_id', 'duplicate_external_order_id', message);
      if (existing) {
        const which = `order ${existing.id}${existing.count > 1 ? ` (and ${existing.count - 1} more)` : ''}`;
        skip = duplicates === 'skip';
        dup(
          skip
            ? `Skipped: external_order_id "${id}" already belongs to ${which}; no order was created from this row.`
            : `external_order_id "${id}" already belongs to ${which}: this row makes another order with it ${SKIP_DUPLICATES_HINT}.`,
        );
      } else if (earlier !== undefined) {
        dup(
          `external_order_id "${id}" is also on row ${earlier}, above: this row starts another order with it (only rows one after another make one order).`,
        );
      }
    }
    // An order left out sends nothing; one without any phone gets none of the SMS or WhatsApp messages.
    const customer = group.body.customer as Record<string, unknown> | undefined;
    const has = (field: string) => typeof customer?.[field] === 'string' && customer[field] !== '';
    if (!skip && this.sends.phone && !has('phone') && !has('whatsapp')) {
      warn(
        this.headers.phone,
        'customer.phone',
        'no_customer_phone',
        this.sends.email && has('email')
          ? 'no phone: the customer will get delivery messages by email only, no SMS or WhatsApp'
          : 'no phone: the customer will get no delivery messages',
      );
    }
    return { skip, warnings };
  }
}
