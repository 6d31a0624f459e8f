import type { Scope } from '../../shared/auth.js';
import type { AppContext } from '../../shared/context.js';
import type { SettlementStatus } from '../../shared/db/schema.js';
import { ApiError, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { dayRange, localIso, startOfDay } from '../../shared/local-time.js';
import { Totals, toMajor } from '../../shared/money.js';
import { type ReportCell, reportCsv, reportXlsx } from '../../shared/spreadsheet.js';
import { iso } from '../../shared/time.js';
import { accountById } from '../accounts/service.js';
import { zoneOfAccount } from '../accounts/zone.js';
import { announce, recordAccountEvent } from '../webhooks/outbox.js';
import type { Settlement, SettlementCreate, SettlementListQuery } from './settlement-schemas.js';
import * as repo from './settlements-repo.js';

const DELIVERED = new Set(['delivered', 'partially_delivered']);

/**
 * What an order counts for now: the cash on delivery collected while it stands delivered (a late
 * failure or a return gives it back: 0), and its shipping cost, which the carrier earned either way.
 */
function countNow(o: repo.SettleableOrder) {
  const cod = DELIVERED.has(o.status) ? (o.collected ?? 0) : 0;
  return { cod, shipping: o.shipping_cost };
}

function line(
  settlementId: string,
  position: number,
  kind: repo.LineRow['kind'],
  o: repo.SettleableOrder,
  cod: number,
  shipping: number,
  now: number,
): repo.LineRow {
  return {
    id: newId('sli', now),
    settlement_id: settlementId,
    position,
    kind,
    order_id: o.id,
    tracking_code: o.tracking_code,
    external_order_id: o.external_order_id,
    order_status: o.status,
    delivered_at: o.delivered_at,
    currency: o.currency,
    cod_collected: cod,
    shipping_cost: shipping,
    net_payable: cod - shipping,
  };
}

export function present(s: repo.SettlementRow, lines: repo.LineRow[]): Settlement {
  const cod = new Totals();
  const ship = new Totals();
  const adj = new Totals();
  const net = new Totals();
  const count = new Totals();
  for (const l of lines) {
    cod.add({ amount: l.cod_collected, currency: l.currency });
    ship.add({ amount: l.shipping_cost, currency: l.currency });
    adj.add({ amount: l.kind === 'adjustment' ? l.net_payable : 0, currency: l.currency });
    net.add({ amount: l.net_payable, currency: l.currency });
    count.add({ amount: 1, currency: l.currency });
  }
  return {
    id: s.id,
    object: 'settlement',
    account: s.account_id,
    livemode: s.mode === 'live',
    status: s.status,
    period_start: s.period_start,
    period_end: s.period_end,
    timezone: s.timezone,
    totals: net.currencies().map((c) => ({
      currency: c,
      lines: count.get(c).amount,
      cod_collected: toMajor(cod.get(c).amount),
      shipping_costs: toMajor(ship.get(c).amount),
      adjustments: toMajor(adj.get(c).amount),
      net_payable: toMajor(net.get(c).amount),
    })),
    lines: lines.map((l) => ({
      kind: l.kind,
      order: l.order_id,
      tracking_code: l.tracking_code,
      external_order_id: l.external_order_id,
      order_status: l.order_status,
      delivered_at: l.delivered_at === null ? null : iso(l.delivered_at),
      currency: l.currency,
      cod_collected: toMajor(l.cod_collected),
      shipping_cost: toMajor(l.shipping_cost),
      net_payable: toMajor(l.net_payable),
    })),
    created_at: iso(s.created_at),
    issued_at: s.issued_at === null ? null : iso(s.issued_at),
    paid_at: s.paid_at === null ? null : iso(s.paid_at),
  };
}

/**
 * POST /v1/settlements: a draft of the period's delivered orders not yet settled, one line each,
 * then one adjustment line per order settled before (issued or paid) whose amounts changed since.
 */
export async function createDraft(ctx: AppContext, scope: Scope, body: SettlementCreate): Promise<Settlement> {
  const account = await accountById(ctx, body.account_id);
  // A body field naming nothing is 422 naming the field, as for every reference in a body
  // (a key's account, a route's courier_id); 404 is for the resource in the path.
  if (!account) {
    throw new ApiError('parameter_invalid', `Invalid account_id: no such account '${body.account_id}'.`, 'account_id');
  }
  if (body.period_start > body.period_end) {
    throw new ApiError('parameter_invalid', 'Invalid period_start: after period_end.', 'period_start');
  }
  const zone = zoneOfAccount(account, ctx.config);
  const from = startOfDay(body.period_start, zone);
  const to = dayRange(body.period_end, zone).end;
  const now = ctx.clock();
  const id = newId('stl', now);
  const row: repo.SettlementRow = {
    id,
    mode: scope.mode,
    account_id: account.id,
    status: 'draft',
    period_start: body.period_start,
    period_end: body.period_end,
    timezone: zone,
    created_at: now,
    issued_at: null,
    paid_at: null,
    updated_at: now,
  };
  try {
    const lines = await ctx.db.transaction().execute(async (trx) => {
      const fresh = await repo.unsettled(trx, account.id, scope.mode, from, to);
      const out = fresh.map((o, i) => {
        const c = countNow(o);
        return line(id, i, 'order', o, c.cod, c.shipping, now);
      });
      const sums = await repo.settledSums(trx, account.id, scope.mode);
      const orders = new Map(
        (
          await repo.ordersNow(
            trx,
            sums.map((s) => s.order_id),
          )
        ).map((o) => [o.id, o]),
      );
      for (const s of sums) {
        const o = orders.get(s.order_id);
        if (!o) continue;
        const c = countNow(o);
        if (c.cod !== s.cod || c.shipping !== s.shipping) {
          out.push(line(id, out.length, 'adjustment', o, c.cod - s.cod, c.shipping - s.shipping, now));
        }
      }
      if (out.length === 0) {
        throw new ApiError(
          'nothing_to_settle',
          `Nothing to settle: no delivered order of ${body.period_start}..${body.period_end} is unsettled, and no settled order changed.`,
        );
      }
      await repo.insertSettlement(trx, row, out);
      return out;
    });
    return present(row, lines);
  } catch (err) {
    // Two drafts racing for one order: the unique index (settlement_lines_order) lets one win.
    if (err instanceof ApiError) throw err;
    if (/unique|duplicate/i.test(String((err as Error).message))) {
      throw new ApiError(
        'settlement_not_editable',
        'Another draft took some of these orders at the same time; try again.',
      );
    }
    throw err;
  }
}

async function load(ctx: AppContext, scope: Scope, id: string) {
  const s = await repo.findSettlement(ctx.db, scope, id);
  if (!s) throw notFound('settlement', id);
  return s;
}

export async function getSettlement(ctx: AppContext, scope: Scope, id: string): Promise<Settlement> {
  const s = await load(ctx, scope, id);
  return present(s, await repo.linesOf(ctx.db, [s.id]));
}

export async function listSettlements(ctx: AppContext, scope: Scope, q: SettlementListQuery) {
  const limit = q.limit ?? 20;
  const rows = await repo.listSettlements(ctx.db, scope, {
    account: q.account,
    status: q.status,
    after: q.starting_after,
    limit,
  });
  const page = rows.slice(0, limit);
  const lines = await repo.linesOf(
    ctx.db,
    page.map((s) => s.id),
  );
  return {
    object: 'list' as const,
    data: page.map((s) =>
      present(
        s,
        lines.filter((l) => l.settlement_id === s.id),
      ),
    ),
    has_more: rows.length > limit,
  };
}

/**
 * `s` as read before the move: when another request moved it in between, its status still reads
 * `wanted`, and the message says it is no longer so.
 */
const stateError = (s: repo.SettlementRow, wanted: string, action: 'issued' | 'paid' | 'deleted') =>
  new ApiError(
    'settlement_not_editable',
    `Settlement ${s.id} cannot be ${action}: it is ${s.status === wanted ? `no longer ${wanted}` : s.status}, and only a ${wanted} settlement can be.`,
  );

/** draft → issued, with `settlement.issued` written to the outbox in the same transaction. */
export async function issue(ctx: AppContext, scope: Scope, id: string): Promise<Settlement> {
  const s = await load(ctx, scope, id);
  const now = ctx.clock();
  const lines = await repo.linesOf(ctx.db, [s.id]);
  const issued = { ...s, status: 'issued' as SettlementStatus, issued_at: now, updated_at: now };
  const shown = present(issued, lines);
  const event = await ctx.db.transaction().execute(async (trx) => {
    if (!(await repo.moveSettlement(trx, s.id, 'draft', { status: 'issued', issued_at: now, updated_at: now }))) {
      throw stateError(s, 'draft', 'issued');
    }
    const { lines: _lines, ...data } = shown;
    return recordAccountEvent(trx, 'settlement.issued', { accountId: s.account_id, mode: s.mode }, data, now);
  });
  announce(ctx, event);
  return shown;
}

/** issued → paid. */
export async function markPaid(ctx: AppContext, scope: Scope, id: string): Promise<Settlement> {
  const s = await load(ctx, scope, id);
  const now = ctx.clock();
  if (!(await repo.moveSettlement(ctx.db, s.id, 'issued', { status: 'paid', paid_at: now, updated_at: now }))) {
    throw stateError(s, 'issued', 'paid');
  }
  return present({ ...s, status: 'paid', paid_at: now, updated_at: now }, await repo.linesOf(ctx.db, [s.id]));
}

/** DELETE a draft: its orders go back to the unsettled. */
export async function deleteDraft(ctx: AppContext, scope: Scope, id: string) {
  const s = await load(ctx, scope, id);
  await ctx.db.transaction().execute(async (trx) => {
    if (!(await repo.deleteDraft(trx, s.id))) throw stateError(s, 'draft', 'deleted');
  });
  return { id: s.id, object: 'settlement' as const, deleted: true as const };
}

const HEADER = [
  'kind',
  'order',
  'tracking_code',
  'external_order_id',
  'order_status',
  'delivered_at',
  'currency',
  'cod_collected',
  'shipping_cost',
  'net_payable',
];

/**
 * The settlement's lines, then one total row per currency: what the CSV and the XLSX hold. A
 * delivery's time is written in the settlement's zone with its offset (2026-11-20T18:30:00-05:00):
 * in UTC an evening delivery in Lima read as the next day in a merchant's spreadsheet.
 */
function table(s: Settlement): ReportCell[][] {
  const rows: ReportCell[][] = [HEADER];
  for (const l of s.lines) {
    rows.push([
      l.kind,
      l.order,
      l.tracking_code,
      l.external_order_id,
      l.order_status,
      l.delivered_at === null ? null : localIso(Date.parse(l.delivered_at), s.timezone),
      l.currency,
      l.cod_collected,
      l.shipping_cost,
      l.net_payable,
    ]);
  }
  for (const t of s.totals) {
    rows.push(['total', null, null, null, null, null, t.currency, t.cod_collected, t.shipping_costs, t.net_payable]);
  }
  return rows;
}

export async function exportSettlement(ctx: AppContext, scope: Scope, id: string, format: 'csv' | 'xlsx') {
  const s = await getSettlement(ctx, scope, id);
  const rows = table(s);
  return format === 'csv' ? reportCsv(rows) : reportXlsx(rows);
}
