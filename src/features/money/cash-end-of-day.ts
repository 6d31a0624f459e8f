import type { Scope } from '../../shared/auth.js';
import type { AppContext } from '../../shared/context.js';
import { localDay } from '../../shared/local-time.js';
import type { ReportCell } from '../../shared/spreadsheet.js';
import {
  carrierZone,
  dayLine,
  dayParam,
  differenceOf,
  everyCourier,
  exceptionId,
  notAfterToday,
  presentHandover,
} from './cash.js';
import * as repo from './cash-repo.js';
import type { EndOfDay } from './schemas.js';

// The end of day (every courier's line of one day, and its handovers) and its export as a table.

/** GET /v1/cash/end_of_day: every courier's expected, collected and handed amounts of one day. */
export async function endOfDay(ctx: AppContext, scope: Scope, q: { day?: string }): Promise<EndOfDay> {
  const zone = await carrierZone(ctx);
  const today = localDay(ctx.clock(), zone);
  const day = notAfterToday(dayParam(q.day, 'day', today), 'day', today, zone);
  const { rows, names, running, hands } = await everyCourier(ctx, scope.mode, day, day, zone);
  const lines = rows.map(({ f, balance }) => ({
    courier: { id: f.courier_id, name: names.get(f.courier_id) ?? '' },
    // Named only once it is one (as GET /v1/cash/exceptions counts it): today's cash still held, with
    // nothing handed over yet, is no exception, and its id would answer 404 to a resolve.
    exception:
      differenceOf(f) !== 0 && (f.day < today || f.handed > 0) ? exceptionId(f.courier_id, f.day, f.currency) : null,
    ...dayLine(f, balance),
  }));
  // A courier still holding cash from earlier days, with nothing on this one, is listed too.
  const seen = new Set(rows.map((r) => `${r.f.courier_id}\u0000${r.f.currency}`));
  const idle = [...running.entries()].filter(([k, v]) => v !== 0 && !seen.has(k));
  const idleNames = await repo.courierNames(
    ctx.db,
    scope.mode,
    idle.map(([k]) => k.split('\u0000')[0] as string),
  );
  for (const [k, v] of idle) {
    const [courier, currency] = k.split('\u0000') as [string, string];
    const f = { courier_id: courier, day, currency, deliveries: 0, expected: 0, collected: 0, handed: 0 };
    lines.push({ courier: { id: courier, name: idleNames.get(courier) ?? '' }, exception: null, ...dayLine(f, v) });
  }
  lines.sort((a, b) => a.courier.name.localeCompare(b.courier.name) || a.currency.localeCompare(b.currency));
  const handovers = hands
    .map((h) => ({ ...presentHandover(h), courier_name: names.get(h.courier_id) ?? '' }))
    .reverse();
  return { object: 'cash_end_of_day', day, timezone: zone, lines, handovers };
}

const EOD_COLUMNS = [
  'courier',
  'courier_id',
  'currency',
  'deliveries',
  'expected',
  'collected',
  'handed_over',
  'difference',
  'balance',
  'status',
  'exception',
];

/** The end of day as a table (GET /v1/cash/end_of_day/export): a header, then one row per line, as the console shows them. */
export function endOfDayTable(eod: EndOfDay): ReportCell[][] {
  return [
    EOD_COLUMNS,
    ...eod.lines.map((l) => [
      l.courier.name,
      l.courier.id,
      l.currency,
      l.deliveries,
      l.expected,
      l.collected,
      l.handed_over,
      l.difference,
      l.balance,
      l.status,
      l.exception,
    ]),
  ];
}
