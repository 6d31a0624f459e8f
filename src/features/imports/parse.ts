import { parse as parseCsv } from 'csv-parse/sync';
import { readSheet } from 'read-excel-file/node';
import { ApiError } from '../../shared/errors.js';
import type { ImportType } from './schemas.js';

export const MAX_IMPORT_ROWS = 10_000;
export const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** A cell as the file gives it: CSV cells are text; XLSX cells keep their type (formulas: their cached value). */
export type Cell = string | number | boolean | Date | null;

/** A data row and its spreadsheet row number (1-based, the header is row 1). */
export interface SheetRow {
  row: number;
  cells: Cell[];
}

export interface Sheet {
  headers: string[];
  /** Non-blank data rows, in file order. */
  rows: SheetRow[];
}

const isBlank = (c: Cell | undefined): boolean =>
  c === null || c === undefined || (typeof c === 'string' && c.trim() === '');

/** Decodes strictly: a Latin-1 or Windows-1252 file is refused, never read as mojibake. */
function decodeUtf8(bytes: Buffer): string {
  try {
    // fatal: invalid sequences throw; the default ignoreBOM=false strips a leading UTF-8 BOM.
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new ApiError(
      'parameter_invalid',
      'The file is not valid UTF-8 (it looks like Latin-1 / Windows-1252). Save it as "CSV UTF-8" and upload it again.',
    );
  }
}

/** `,` or `;` (Excel in Spanish, Portuguese or German locales writes `;`): whichever the header row has more of, outside quotes. */
export function detectDelimiter(text: string): ',' | ';' {
  let commas = 0;
  let semicolons = 0;
  let quoted = false;
  for (const ch of text) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && (ch === '\n' || ch === '\r')) break;
    else if (!quoted && ch === ',') commas++;
    else if (!quoted && ch === ';') semicolons++;
  }
  return semicolons > commas ? ';' : ',';
}

function readCsv(bytes: Buffer): Cell[][] {
  const text = decodeUtf8(bytes);
  try {
    // Blank lines stay records so that record i is spreadsheet row i + 1, as a spreadsheet shows it.
    return parseCsv(text, {
      delimiter: detectDelimiter(text),
      relax_column_count: true,
      skip_empty_lines: false,
      bom: true,
    }) as string[][];
  } catch (err) {
    const where = (err as { lines?: number }).lines;
    throw new ApiError(
      'parameter_invalid',
      `The CSV file could not be read${where ? ` (near line ${where})` : ''}: ${(err as Error).message.split('\n')[0]}`,
    );
  }
}

async function readXlsx(bytes: Buffer): Promise<Cell[][]> {
  // An .xlsx is a zip: anything else (an old .xls, a renamed CSV) is refused before the reader sees it.
  if (bytes.length < 4 || bytes.readUInt32LE(0) !== 0x04034b50) {
    throw new ApiError('parameter_invalid', 'The file is not an .xlsx workbook (save it as Excel Workbook, .xlsx).');
  }
  try {
    // The first sheet; formulas come back as the value the spreadsheet application last computed.
    return (await readSheet(bytes, 1)) as unknown as Cell[][];
  } catch {
    throw new ApiError('parameter_invalid', 'The .xlsx workbook could not be read; open it and save it again.');
  }
}

/** Bytes → header and rows; refuses what no row-by-row report could explain (encoding, size, no header). */
export async function readSheetOf(type: ImportType, bytes: Buffer): Promise<Sheet> {
  const records = type === XLSX_TYPE ? await readXlsx(bytes) : readCsv(bytes);
  const [head, ...body] = records;
  if (!head || head.every((c) => isBlank(c))) {
    throw new ApiError('parameter_invalid', 'The file has no header row: row 1 must name the columns.');
  }
  const headers = head.map((c) => (c === null ? '' : c instanceof Date ? c.toISOString() : String(c)));
  const rows: SheetRow[] = [];
  body.forEach((cells, i) => {
    if (!cells.every((c) => isBlank(c))) rows.push({ row: i + 2, cells });
  });
  if (rows.length === 0) throw new ApiError('parameter_invalid', 'The file has a header row but no data rows.');
  if (rows.length > MAX_IMPORT_ROWS) {
    throw new ApiError(
      'parameter_invalid',
      `The file has ${rows.length} rows; at most ${MAX_IMPORT_ROWS} can be imported at once. Split it.`,
    );
  }
  return { headers, rows };
}

/** A cell as text, for failed_rows.csv: what the merchant typed, as near as the file lets us say. */
export function cellText(c: Cell | undefined): string {
  if (c === null || c === undefined) return '';
  if (c instanceof Date) return c.toISOString();
  return String(c);
}

/** RFC 4180 output (quotes where needed, CRLF), as spreadsheets expect. */
export function toCsv(rows: string[][]): string {
  const quote = (v: string) => (/[",\r\n;]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
  return rows.map((r) => r.map(quote).join(',')).join('\r\n') + '\r\n';
}
