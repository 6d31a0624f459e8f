import type { Owner } from '../../shared/auth.js';
import type { AppContext } from '../../shared/context.js';
import { ApiError, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { neutraliseFormula, toCsv } from '../../shared/spreadsheet.js';
import { iso } from '../../shared/time.js';
import { CANONICAL_COLUMNS } from './columns.js';
import { type Column, checkUnnamedCells, headerDateFormat, resolveColumns } from './convert.js';
import { cellText, openSheet } from './parse.js';
import * as repo from './repo.js';
import {
  type DateFormat,
  type ImportDuplicates,
  type ImportMode,
  type ImportType,
  MAX_SHOWN_ERRORS,
} from './schemas.js';

/** A row's error or warning as the import object shows it. */
const line = (e: repo.ErrorRow | repo.WarningRow) => ({
  row: e.row,
  column: e.column,
  param: e.param,
  code: e.code,
  message: e.message,
});

export function presentImport(r: repo.ImportSummary, errors: repo.ErrorRow[], warnings: repo.WarningRow[]) {
  return {
    id: r.id,
    object: 'order_import' as const,
    livemode: r.mode === 'live',
    status: r.status,
    mode: r.import_mode,
    duplicates: r.duplicates,
    date_format: r.date_format,
    content_type: r.content_type,
    size: r.size,
    total_rows: r.total_rows,
    processed_rows: r.processed_rows,
    created: r.created_orders,
    failed: r.failed_rows,
    skipped: r.skipped_orders,
    errors: errors.map(line),
    warnings: warnings.map(line),
    failure_message: r.failure_message,
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
    completed_at: r.completed_at === null ? null : iso(r.completed_at),
  };
}
export type PresentedImport = ReturnType<typeof presentImport>;

async function present(ctx: AppContext, r: repo.ImportSummary): Promise<PresentedImport> {
  return presentImport(
    r,
    await repo.shownErrors(ctx.db, r.id, MAX_SHOWN_ERRORS),
    await repo.shownWarnings(ctx.db, r.id, MAX_SHOWN_ERRORS),
  );
}

/**
 * Reads the whole file now, a slice at a time, so what no row-by-row report could explain
 * (encoding, unknown columns, too many rows) is a 422 to the upload itself; the rows are run in
 * the background. Nothing of the file is kept but the bytes and the row count.
 */
export async function createImport(
  ctx: AppContext,
  owner: Owner,
  opts: { type: ImportType; bytes: Buffer; mode?: ImportMode; duplicates?: ImportDuplicates; dateFormat?: DateFormat },
): Promise<PresentedImport> {
  if (opts.bytes.length === 0) throw new ApiError('parameter_invalid', 'The file is empty.');
  const sheet = await openSheet(opts.type, opts.bytes);
  let columns: Column[];
  let total = 0;
  try {
    // The header first: an unknown column is refused before the rest of the file is read.
    columns = resolveColumns(sheet.headers, opts.dateFormat);
    for await (const r of sheet.rows) {
      checkUnnamedCells(sheet.headers, r);
      total++;
    }
  } finally {
    await sheet.rows.return();
  }
  if (total === 0) throw new ApiError('parameter_invalid', 'The file has a header row but no data rows.');
  const now = ctx.clock();
  const row: repo.ImportRow = {
    id: newId('imp', now),
    account_id: owner.accountId,
    mode: owner.mode,
    status: 'queued',
    import_mode: opts.mode ?? 'valid_rows',
    duplicates: opts.duplicates ?? 'create',
    // The parameter, or the format the date column's header names: how the dates are read.
    date_format: opts.dateFormat ?? headerDateFormat(columns) ?? null,
    content_type: opts.type,
    content: opts.bytes,
    size: opts.bytes.length,
    total_rows: total,
    processed_rows: 0,
    created_orders: 0,
    failed_rows: 0,
    skipped_orders: 0,
    failure_message: null,
    lease_owner: null,
    lease_expires_at: null,
    created_at: now,
    updated_at: now,
    completed_at: null,
  };
  await repo.insertImport(ctx.db, row);
  const { content: _bytes, ...summary } = row;
  return presentImport(summary, [], []);
}

async function importOrThrow(ctx: AppContext, owner: Owner, id: string): Promise<repo.ImportSummary> {
  const r = id.startsWith('imp_') ? await repo.findImport(ctx.db, owner, id) : undefined;
  if (!r) throw notFound('order import', id);
  return r;
}

export async function getImport(ctx: AppContext, owner: Owner, id: string): Promise<PresentedImport> {
  return present(ctx, await importOrThrow(ctx, owner, id));
}

export async function listImports(ctx: AppContext, owner: Owner, q: { limit?: number; starting_after?: string }) {
  const limit = q.limit ?? 20;
  let after: repo.ImportSummary | undefined;
  if (q.starting_after !== undefined) {
    after = q.starting_after.startsWith('imp_') ? await repo.findImport(ctx.db, owner, q.starting_after) : undefined;
    if (!after) {
      throw new ApiError(
        'parameter_invalid',
        `Invalid starting_after: no such order import '${q.starting_after}'.`,
        'starting_after',
      );
    }
  }
  const rows = await repo.listImports(ctx.db, owner, after, limit);
  const data: PresentedImport[] = [];
  for (const r of rows.slice(0, limit)) data.push(await present(ctx, r));
  return { object: 'list' as const, data, has_more: rows.length > limit };
}

/** The rejected rows as uploaded (same header, same cells) plus an `error` column: fix and upload again. */
export async function failedRowsCsv(ctx: AppContext, owner: Owner, id: string): Promise<string> {
  const imp = await importOrThrow(ctx, owner, id);
  const errors = await repo.allErrors(ctx.db, imp.id);
  // A row's errors, one line each in its cell (Excel shows them as lines of one cell).
  const byRow = new Map<number, string[]>();
  for (const e of errors) {
    const where = e.column ? ` (column ${e.column})` : '';
    byRow.set(e.row, [...(byRow.get(e.row) ?? []), `Row ${e.row}${where}: ${e.message}`]);
  }
  const sheet = await openSheet(imp.content_type, await repo.contentOf(ctx.db, imp.id));
  const lines: string[][] = [[...sheet.headers, 'error']];
  for await (const r of sheet.rows) {
    const said = byRow.get(r.row);
    if (!said) continue;
    const cells = sheet.headers.map((_, i) => cellText(r.cells[i]));
    lines.push([...cells, said.join('\n')]);
  }
  // A BOM, so Excel opens the file as UTF-8 (accents intact); the import strips it again. toCsv
  // neutralises cells that a spreadsheet would take for formulas (docs/imports.md). The upload's own
  // separator: Excel where `;` is the list separator opens a `,` file as one column.
  return `\uFEFF${toCsv(lines, sheet.delimiter)}`;
}

const EXAMPLE: Record<string, string | number | boolean> = {
  external_order_id: 'ORD-1001',
  customer_name: 'Ana Torres',
  customer_phone: '+51987654321',
  customer_email: 'ana@example.com',
  address: 'Av. Larco 123',
  district: 'Miraflores',
  city: 'Lima',
  lat: -12.1211,
  lng: -77.0297,
  requested_date: '2026-07-01',
  time_window_start: '09:00',
  time_window_end: '13:00',
  priority: 2,
  cash_on_delivery: 120.5,
  item_sku: 'SKU-1',
  item_description: 'Shoes',
  item_quantity: 2,
  item_weight_kg: 1.25,
  item_declared_value: 59.9,
};
const SECOND_ITEM: Record<string, string | number> = {
  external_order_id: 'ORD-1001',
  item_sku: 'SKU-2',
  item_description: 'Socks',
  item_quantity: 1,
  item_weight_kg: 0.1,
};

/** Every canonical column, and one order with two items (two rows sharing external_order_id). */
export function templateCsv(): string {
  const rows = [EXAMPLE, SECOND_ITEM].map((r) =>
    CANONICAL_COLUMNS.map((c) => (r[c] === undefined ? '' : String(r[c]))),
  );
  return `\uFEFF${toCsv([[...CANONICAL_COLUMNS], ...rows])}`;
}

export async function templateXlsx(): Promise<Buffer> {
  // Loaded on first use, as reportXlsx does: most processes never write a workbook.
  const { default: writeXlsxFile } = await import('write-excel-file/node');
  const head = CANONICAL_COLUMNS.map((c) => ({ value: c, fontWeight: 'bold' as const }));
  const rows = [EXAMPLE, SECOND_ITEM].map((r) =>
    CANONICAL_COLUMNS.map((c) => {
      const v = r[c];
      if (v === undefined) return null;
      // Numbers stay number cells; text goes through the same neutralising as every CSV cell.
      return typeof v === 'number' ? { type: Number, value: v } : { type: String, value: neutraliseFormula(String(v)) };
    }),
  );
  return writeXlsxFile([head, ...rows]).toBuffer();
}
