import { ApiError } from '../../shared/errors.js';
import { dateFormatClashMessage } from '../../shared/import-messages.js';
import { convert, type Reading, text, unreadable } from './cell-reading.js';
import { aliasesOf, resolveHeader, type Target } from './columns.js';
import type { Cell, SheetRow } from './parse.js';
import type { DateFormat } from './schemas.js';

/** A header cell that means something. */
export type Column =
  | { index: number; header: string; kind: 'field'; target: Target; dateFormat?: DateFormat }
  | { index: number; header: string; kind: 'metadata'; key: string };

/** Rows that become one order: consecutive rows with the same external_order_id, or item-only rows under an order. */
export interface Group {
  rows: SheetRow[];
  /** The body for POST /v1/orders, before validation. */
  body: Record<string, unknown>;
  /** Spreadsheet row of items[i]. */
  itemRows: number[];
  /**
   * Cells no conversion could read (an ambiguous date, a word in a number column), in column order:
   * the group is rejected with them.
   */
  errors: ApiError[];
}

/**
 * Resolves the header row; unknown, duplicate or missing required columns fail the whole import,
 * and so does a `date_format` parameter that contradicts the format a date column's header names.
 */
export function resolveColumns(headers: string[], dateFormat?: DateFormat | null): Column[] {
  const columns: Column[] = [];
  const unknown: string[] = [];
  const seen = new Map<string, string>();
  headers.forEach((header, index) => {
    const r = resolveHeader(header);
    if (r === undefined) unknown.push(header);
    else if (r.kind === 'field')
      columns.push({ index, header, kind: 'field', target: r.target, dateFormat: r.dateFormat });
    else if (r.kind === 'metadata') columns.push({ index, header, kind: 'metadata', key: r.key });
    else if (r.kind === 'bad_date_format') {
      throw new ApiError(
        'parameter_invalid',
        `The column "${header}" is ${r.target.canonical}, but the part in brackets is not a date format it reads: write DD/MM/YYYY, MM/DD/YYYY or YYYY-MM-DD (or dd/mm/aaaa), or leave it out.`,
      );
    }
  });
  if (unknown.length > 0) {
    const names = unknown.map((h) => `"${h}"`).join(', ');
    throw new ApiError(
      'parameter_unknown',
      `Unknown column${unknown.length > 1 ? 's' : ''} ${names}: rename ${unknown.length > 1 ? 'them' : 'it'} to one of the documented columns (see /v1/order_imports/template.csv), or to metadata.<key> to keep the value as metadata.`,
    );
  }
  for (const c of columns) {
    const key = c.kind === 'field' ? c.target.canonical : `metadata.${c.key}`;
    const other = seen.get(key);
    if (other !== undefined) {
      throw new ApiError('parameter_invalid', `The columns "${other}" and "${c.header}" both mean ${key}: keep one.`);
    }
    seen.set(key, c.header);
  }
  for (const c of columns) {
    if (c.kind !== 'field' || !c.dateFormat || !dateFormat || c.dateFormat === dateFormat) continue;
    throw new ApiError(
      'parameter_invalid',
      dateFormatClashMessage({ asked: dateFormat, header: c.header, says: c.dateFormat }),
      'date_format',
    );
  }
  for (const required of ['customer_name', 'address']) {
    if (!seen.has(required)) {
      throw new ApiError(
        'parameter_missing',
        `The file has no ${required} column (accepted names: ${[required, ...aliasesOf(required)].join(', ')}).`,
      );
    }
  }
  return columns;
}

/** `0` → `A`, `27` → `AB`: columns as a spreadsheet names them. */
function columnLetter(index: number): string {
  let out = '';
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) out = String.fromCharCode(65 + ((n - 1) % 26)) + out;
  return out;
}

/** A value under no header (a blank header cell, or past the last one) would be dropped: refuse the file instead. */
export function checkUnnamedCells(headers: string[], r: SheetRow): void {
  r.cells.forEach((c, i) => {
    const header = headers[i];
    if ((header === undefined || header.trim() === '') && !isEmpty(c)) {
      throw new ApiError(
        'parameter_invalid',
        `Row ${r.row} has a value in column ${columnLetter(i)}, which has no header: name the column (or metadata.<key>), or clear it.`,
      );
    }
  });
}

const isEmpty = (c: Cell | undefined): boolean =>
  c === null || c === undefined || (typeof c === 'string' && c.trim() === '');

/** The date format a header names, if any: the one the column's values are read in. */
export function headerDateFormat(columns: Column[]): DateFormat | undefined {
  for (const c of columns) if (c.kind === 'field' && c.dateFormat) return c.dateFormat;
  return undefined;
}

function setPath(obj: Record<string, unknown>, path: string[], value: unknown): void {
  let o = obj;
  for (const key of path.slice(0, -1)) {
    o[key] ??= {};
    o = o[key] as Record<string, unknown>;
  }
  o[path[path.length - 1] as string] = value;
}

function isItemColumn(c: Column): boolean {
  return c.kind === 'field' && c.target.item;
}

/**
 * Rows → order bodies. Consecutive rows with the same external_order_id are one order with one
 * item per row; so is a row that fills only item columns under an order (which is also how
 * vertically merged cells read: the merged value on the first row, blanks below).
 *
 * A generator over the rows as they are read: each group is handed over once the next one starts
 * (it can have no more items), so the runner holds the rows and bodies of one batch, not the file.
 */
export async function* groupsOf(
  rows: AsyncIterable<SheetRow>,
  columns: Column[],
  reading: Reading,
): AsyncGenerator<Group, void> {
  const { format } = reading;
  const idColumn = columns.find((c) => c.kind === 'field' && c.target.canonical === 'external_order_id');
  const orderColumns = columns.filter((c) => !isItemColumn(c));
  const itemColumns = columns.filter(isItemColumn);
  let current: Group | undefined;
  let currentId: string | undefined;
  for await (const r of rows) {
    const id = idColumn ? String(text(r.cells[idColumn.index] ?? null) ?? '') : '';
    const itemOnly = orderColumns.every((c) => isEmpty(r.cells[c.index]));
    const continues = current !== undefined && ((id !== '' && id === currentId) || itemOnly);
    if (!continues) {
      if (current) yield current;
      current = { rows: [], body: { source: 'excel', customer: {}, delivery_address: {} }, itemRows: [], errors: [] };
      currentId = id;
      for (const c of orderColumns) {
        const v = r.cells[c.index];
        if (isEmpty(v)) continue;
        if (c.kind === 'metadata') {
          current.body.metadata ??= {};
          const m = current.body.metadata as Record<string, unknown>;
          // XLSX numbers and booleans stay what they are; CSV text stays text.
          m[c.key] = v instanceof Date ? v.toISOString() : typeof v === 'string' ? v.trim() : v;
          continue;
        }
        try {
          // A format named in the header wins (a contradicting parameter was refused at upload).
          const value = convert(v as Cell, c.target.kind, c.dateFormat ?? format, reading);
          // Kept in the body as read: the checks that follow see the row as the API would.
          setPath(current.body, c.target.path, value);
          const bad = unreadable(c.target.kind, v as Cell, value, c.target.path.join('.'));
          if (bad) current.errors.push(bad);
        } catch (err) {
          if (!(err instanceof ApiError)) throw err;
          current.errors.push(err);
        }
      }
    }
    const g = current as Group;
    g.rows.push(r);
    if (itemColumns.some((c) => !isEmpty(r.cells[c.index]))) {
      const item: Record<string, unknown> = {};
      g.body.items ??= [];
      const items = g.body.items as unknown[];
      for (const c of itemColumns) {
        const v = r.cells[c.index];
        if (!isEmpty(v) && c.kind === 'field') {
          const value = convert(v as Cell, c.target.kind, c.dateFormat ?? format, reading);
          setPath(item, c.target.path, value);
          const bad = unreadable(c.target.kind, v as Cell, value, `items[${items.length}].${c.target.path.join('.')}`);
          if (bad) g.errors.push(bad);
        }
      }
      items.push(item);
      g.itemRows.push(r.row);
    }
  }
  if (current) yield current;
}

/** Where an error of a group's body points in the sheet: the row of the item, the column of the field. */
export function locate(group: Group, columns: Column[], err: ApiError): { row: number; column: string | null } {
  const first = group.rows[0]?.row ?? 0;
  const param = err.param ?? '';
  const item = /^items\[(\d+)\](?:\.(\w+))?/.exec(param);
  if (item) {
    const row = group.itemRows[Number(item[1])] ?? first;
    const field = item[2];
    const col = columns.find((c) => c.kind === 'field' && c.target.item && c.target.path[0] === field);
    return { row, column: col?.header ?? null };
  }
  if (param === 'metadata') {
    const key = /key '([^']+)'/.exec(err.message)?.[1];
    const col = columns.find((c) => c.kind === 'metadata' && (key === undefined || c.key === key));
    return { row: first, column: col?.header ?? null };
  }
  // An error about an address as a whole (`pickup_address`: not located) points at its address
  // column; one about a list's value (`requirements[1]`) at the list's column.
  const bare = param.replace(/\[\d+\]$/, '');
  const col = columns.find(
    (c) =>
      c.kind === 'field' &&
      !c.target.item &&
      (c.target.path.join('.') === bare || c.target.path.join('.') === `${bare}.address`),
  );
  return { row: first, column: col?.header ?? null };
}
