import type { Scope } from '../../shared/auth.js';
import type { AppContext } from '../../shared/context.js';
import { ApiError } from '../../shared/errors.js';
import { localDay } from '../../shared/local-time.js';
import { averageRating } from '../../shared/rating.js';
import type { ReportCell } from '../../shared/spreadsheet.js';
import { zoneOfScope } from '../accounts/zone.js';
import { daySpan } from './cash.js';
import type { ReportFigures, ReportQuery, ReportSummary } from './report-schemas.js';
import * as repo from './reports-repo.js';

const ratio = (a: number, b: number) => (b === 0 ? null : Math.round((a / b) * 10_000) / 10_000);

/** The smallest bucket bound under which `p` of the deliveries fall (minutes); null without any. */
export function percentile(hist: { bucket: number; n: number }[], p: number): number | null {
  const total = hist.reduce((s, h) => s + h.n, 0);
  if (total === 0) return null;
  const sorted = [...hist].sort((a, b) => a.bucket - b.bucket);
  let seen = 0;
  for (const h of sorted) {
    seen += h.n;
    if (seen >= p * total) return (h.bucket + 1) * repo.BUCKET_MINUTES;
  }
  return ((sorted.at(-1)?.bucket ?? 0) + 1) * repo.BUCKET_MINUTES;
}

/** The /v1/orders query behind a figure: the same period and filters, plus the figure's own. */
function link(base: Record<string, string | undefined>, extra: Record<string, string> = {}): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries({ ...base, ...extra })) if (v !== undefined) q.set(k, v);
  return `/v1/orders?${q.toString()}`;
}

function figures(
  c: repo.CountRow,
  hist: { bucket: number; n: number }[],
  orders: Record<string, string | undefined>,
): ReportFigures {
  const rated = c.stars.reduce((sum, n) => sum + n, 0);
  return {
    orders: c.orders,
    delivered: c.delivered,
    failed: c.failed,
    cancelled: c.cancelled,
    on_time: c.on_time,
    on_time_rate: ratio(c.on_time, c.delivered),
    first_attempt: c.first_attempt,
    first_attempt_rate: ratio(c.first_attempt, c.delivered),
    delivery_minutes: { p50: percentile(hist, 0.5), p90: percentile(hist, 0.9) },
    // Not measured yet: no per-order distance or working hours are recorded (docs/money.md).
    km: null,
    stops_per_hour: null,
    ratings: {
      count: rated,
      average: averageRating(
        c.stars.reduce((sum, n, i) => sum + n * (i + 1), 0),
        rated,
      ),
      distribution: { '1': c.stars[0], '2': c.stars[1], '3': c.stars[2], '4': c.stars[3], '5': c.stars[4] },
    },
    links: {
      orders: link(orders),
      delivered: link(orders, { outcome: 'delivered' }),
      failed: link(orders, { outcome: 'failed' }),
      cancelled: link(orders, { outcome: 'cancelled' }),
      on_time: link(orders, { on_time: 'true' }),
      first_attempt: link(orders, { first_attempt: 'true' }),
      rated: link(orders, { rated: 'true' }),
    },
  };
}

/** The counts of every row added up (none: all zero). */
function sumRows(rows: repo.CountRow[]): repo.CountRow {
  const total: repo.CountRow = {
    key: null,
    orders: 0,
    delivered: 0,
    failed: 0,
    cancelled: 0,
    on_time: 0,
    first_attempt: 0,
    stars: [0, 0, 0, 0, 0],
  };
  for (const r of rows) {
    total.orders += r.orders;
    total.delivered += r.delivered;
    total.failed += r.failed;
    total.cancelled += r.cancelled;
    total.on_time += r.on_time;
    total.first_attempt += r.first_attempt;
    r.stars.forEach((n, i) => {
      total.stars[i] = (total.stars[i] ?? 0) + n;
    });
  }
  return total;
}

/**
 * GET /v1/reports/summary: the carrier's over every account (or one), a merchant's over its own
 * (its route has answered a merchant's `account` already: shared/access.ts, accountNamed).
 * The period is local days, each order read on its own due day (as the board's filter).
 */
export async function summary(ctx: AppContext, scope: Scope, q: ReportQuery): Promise<ReportSummary> {
  const account = scope.accountId ?? q.account;
  const zone = await zoneOfScope(ctx, scope.accountId);
  const { from, to } = daySpan(q, localDay(ctx.clock(), zone), 30);
  const filter: repo.ReportFilter = { mode: scope.mode, from, to, account, courier: q.courier };
  const by = q.group_by;
  if (by === 'merchant' && scope.accountId !== null) {
    throw new ApiError('parameter_invalid', 'Invalid group_by: a merchant sees its own orders only.', 'group_by');
  }
  // Grouped, the totals are the sum of the groups (every order is in exactly one, and histograms
  // add up), so each of the two queries scans the period once, not twice.
  const [rows, hists] = await repo.reading(ctx.db, ctx.engine, async (db) => [
    await repo.counts(db, ctx.engine, filter, by),
    await repo.durations(db, ctx.engine, filter, by),
  ]);
  // A merchant's links carry no account: its key already limits the orders to its own.
  const orders = {
    due_from: from,
    due_to: to,
    account: scope.accountId === null ? account : undefined,
    courier: q.courier,
  };
  const out: ReportSummary = {
    object: 'report_summary',
    livemode: scope.mode === 'live',
    from,
    to,
    timezone: zone,
    group_by: by ?? null,
    totals: figures(sumRows(rows), hists, orders),
    groups: [],
  };
  if (by === undefined) return out;
  const ids = rows.map((r) => r.key).filter((k): k is string => k !== null);
  const labels =
    by === 'courier'
      ? await repo.names(ctx.db, 'couriers', ids)
      : by === 'merchant'
        ? await repo.names(ctx.db, 'accounts', ids)
        : new Map<string, string>();
  const histOf = new Map<string | null, typeof hists>();
  for (const h of hists) {
    const list = histOf.get(h.key);
    if (list) list.push(h);
    else histOf.set(h.key, [h]);
  }
  out.groups = rows
    .map((r) => {
      const key = r.key;
      const narrowed = { ...orders };
      if (by === 'day') Object.assign(narrowed, { due_from: key, due_to: key });
      if (by === 'courier') Object.assign(narrowed, { courier: key ?? undefined });
      if (by === 'merchant') Object.assign(narrowed, { account: key ?? undefined });
      if (by === 'district' && key !== null) Object.assign(narrowed, { district: key });
      return {
        key,
        label: key === null ? (by === 'courier' ? 'Unassigned' : 'None') : (labels.get(key) ?? key),
        ...figures(r, histOf.get(key) ?? [], narrowed),
      };
    })
    .sort((a, b) => (by === 'day' ? String(a.key).localeCompare(String(b.key)) : b.orders - a.orders));
  return out;
}

const COLUMNS = [
  'orders',
  'delivered',
  'failed',
  'cancelled',
  'on_time_rate',
  'first_attempt_rate',
  'delivery_minutes_p50',
  'delivery_minutes_p90',
  'ratings',
  'rating_average',
] as const;

function cells(f: ReportFigures): ReportCell[] {
  return [
    f.orders,
    f.delivered,
    f.failed,
    f.cancelled,
    f.on_time_rate,
    f.first_attempt_rate,
    f.delivery_minutes.p50,
    f.delivery_minutes.p90,
    f.ratings.count,
    f.ratings.average,
  ];
}

/** The summary as a table: one row per group, then the total. */
export function summaryTable(s: ReportSummary): ReportCell[][] {
  const rows: ReportCell[][] = [[s.group_by ?? 'period', ...COLUMNS]];
  for (const g of s.groups) rows.push([g.label, ...cells(g)]);
  rows.push([`total ${s.from}..${s.to}`, ...cells(s.totals)]);
  return rows;
}
