import { setImmediate as nextTurn } from 'node:timers/promises';
import type { AppContext } from '../../shared/context.js';
import { ApiError } from '../../shared/errors.js';
import { findUnstorable } from '../../shared/input.js';
import { type OrderBatch, type PreparedOrder, prepareOrder } from '../orders/create.js';
import { checkOrderCreate, orderCreateErrors, orderRuleErrors } from '../orders/quote.js';
import type { OrderCreate } from '../orders/schemas.js';
import { type Column, type Group, locate } from './convert.js';
import type * as repo from './repo.js';
import type { RowWarnings } from './warnings.js';

/** A row group once checked: an order to create, rejected rows, or (`duplicates: skip`) left out; and its warnings. */
export type Outcome = { group: Group; warnings: repo.WarningRow[] } & (
  | { prepared: PreparedOrder }
  | { error: repo.ErrorRow[] }
  | { skipped: true }
);

/**
 * The same checks as POST /v1/orders: storable input, the schema, the service's rules. Where the
 * API answers with the first problem, a row reports every cell the reading, the schema or the
 * service's rules on the row alone refused, so one round of fixes is enough; what needs more (a
 * pickup depot that exists, an address the geocoder finds) is asked only of a row that passed
 * those, and reports its first.
 */
async function check(
  ctx: AppContext,
  imp: repo.ImportSummary,
  columns: Column[],
  group: Group,
  batch: OrderBatch,
  watch: RowWarnings,
): Promise<Outcome> {
  const { skip, warnings } = watch.of(group, imp.duplicates);
  // Never created, so not checked either: its order exists already.
  if (skip) return { group, warnings, skipped: true };
  const problems = problemsOf(group);
  if (problems.length === 0) {
    try {
      const prepared = await prepareOrder(ctx, imp.account_id, imp.mode, group.body as OrderCreate, ctx.clock(), batch);
      return { group, warnings, prepared };
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      problems.push(err);
    }
  }
  return { group, warnings, error: errorRows(imp.id, columns, group, problems) };
}

/**
 * Checks a batch's row groups: their external ids looked up in one query, then each group in file
 * order, with a turn of the event loop every CHECKS_PER_TURN.
 */
export async function checkAll(
  ctx: AppContext,
  imp: repo.ImportSummary,
  columns: Column[],
  groups: Group[],
  batch: OrderBatch,
  watch: RowWarnings,
): Promise<Outcome[]> {
  await watch.lookUp(groups);
  const out: Outcome[] = [];
  for (const g of groups) {
    out.push(await check(ctx, imp, columns, g, batch, watch));
    if (out.length % CHECKS_PER_TURN === 0) await nextTurn();
  }
  return out;
}

/**
 * The cells no conversion could read, text that cannot be stored, every field the schema or the
 * row's rules refuse: one error per parameter, the reading's (in the import's own words) first.
 */
function problemsOf(group: Group): ApiError[] {
  const found: ApiError[] = [...group.errors];
  const bad = findUnstorable(group.body);
  if (bad) found.push(new ApiError('parameter_invalid', `Invalid ${bad.param}: ${bad.problem}.`, bad.param));
  // The API's validator first: a valid row (nearly all of them) pays for one check, not two.
  if (checkOrderCreate(group.body)) found.push(...orderCreateErrors(group.body));
  // The service's rules that need nothing but the row (blank text, decimals, the window's order).
  found.push(...orderRuleErrors(group.body));
  const seen = new Set<string>();
  return found.filter((e) => {
    const key = e.param ?? e.message;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * A rejected group's lines: each problem on the row and column it points at, in sheet order (`seq`
 * numbers a row's), and one line on each other row of the order naming the first wrong row.
 */
function errorRows(importId: string, columns: Column[], group: Group, problems: ApiError[]): repo.ErrorRow[] {
  const place = (header: string | null) => columns.find((c) => c.header === header)?.index ?? columns.length;
  const found = problems
    .map((err) => ({ err, at: locate(group, columns, err) }))
    .sort((a, b) => a.at.row - b.at.row || place(a.at.column) - place(b.at.column));
  const seqs = new Map<number, number>();
  const lines: repo.ErrorRow[] = found.map(({ err, at }) => {
    const seq = seqs.get(at.row) ?? 0;
    seqs.set(at.row, seq + 1);
    const { code, message, param } = err;
    return {
      import_id: importId,
      row: at.row,
      seq,
      cause_row: null,
      column: at.column,
      param: param ?? null,
      code,
      message,
    };
  });
  const first = found[0] as (typeof found)[number];
  for (const r of group.rows) {
    if (seqs.has(r.row)) continue;
    lines.push({
      import_id: importId,
      row: r.row,
      seq: 0,
      cause_row: first.at.row,
      column: null,
      param: null,
      code: first.err.code,
      message: `Not imported: row ${first.at.row} of the same order was rejected (${first.err.message})`,
    });
  }
  return lines.sort((a, b) => a.row - b.row || a.seq - b.seq);
}

/**
 * Row groups checked (schema, rules, pricing) between two turns of the event loop (`nextTurn`). On
 * SQLite every statement completes synchronously, so without the turns a whole import would run in
 * one stretch of microtasks and the API in the same process would not answer a request (not even
 * the import's own progress) until it finished. A batch's 200 checks in one turn held other
 * requests up for 50–100 ms on a loaded machine (issue #18, defect 8).
 */
const CHECKS_PER_TURN = 10;
