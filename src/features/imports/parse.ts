import { isUtf8 } from 'node:buffer';
import { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { parse as csvParser } from 'csv-parse';
import { ApiError } from '../../shared/errors.js';
import { unmarkFormula } from '../../shared/spreadsheet.js';
import type { Cell, SheetRow } from './cells.js';
import type { ImportType } from './schemas.js';
import { xlsxRows } from './xlsx.js';

export const MAX_IMPORT_ROWS = 10_000;
/**
 * CSV bytes parsed in one turn of the event loop: csv-parse reads 5–10 MB/s on a loaded 2-core
 * machine, so a slice costs a few milliseconds (BENCHMARKS.md, "Imports and the event loop").
 */
const CSV_SLICE_BYTES = 16 * 1024;
/** Rows handed on between two turns, whatever their size. */
const ROWS_PER_TURN = 256;
export const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

export type { Cell, SheetRow };

/**
 * A file being read: the header row, and the non-blank data rows in file order as they are read.
 * `rows` must be run to its end or closed (`rows.return()`), which stops the reading.
 */
export interface OpenSheet {
  headers: string[];
  rows: AsyncGenerator<SheetRow, void>;
  /** The CSV's separator, as read from its header row (`,` for a workbook): what failed_rows.csv writes back. */
  delimiter: Delimiter;
}

export type Delimiter = ',' | ';';

export const isBlank = (c: Cell | undefined): boolean =>
  c === null || c === undefined || (typeof c === 'string' && c.trim() === '');

/** `,` or `;` (Excel in Spanish, Portuguese or German locales writes `;`): whichever the header row has more of, outside quotes. */
export function detectDelimiter(text: string): Delimiter {
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

const notUtf8 = () =>
  new ApiError(
    'parameter_invalid',
    'The file is not valid UTF-8 (it looks like Latin-1 / Windows-1252). Save it as "CSV UTF-8" and upload it again.',
  );

/**
 * The bytes in slices of about 16 KiB, each cut where no UTF-8 character is split, so each is
 * checked strictly on its own: a Latin-1 or Windows-1252 file is refused, never read as mojibake.
 * A turn of the event loop between slices.
 */
async function* utf8Slices(bytes: Buffer): AsyncGenerator<Buffer, void> {
  let at = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0; // a byte-order mark
  while (at < bytes.length) {
    let end = Math.min(at + CSV_SLICE_BYTES, bytes.length);
    // Back up over continuation bytes (10xxxxxx) to the start of a character; at most 3.
    for (let i = 0; i < 3 && end < bytes.length && ((bytes[end] as number) & 0xc0) === 0x80; i++) end--;
    const slice = bytes.subarray(at, end);
    if (!isUtf8(slice)) throw notUtf8();
    yield slice;
    at = end;
    if (at < bytes.length) await nextTurn();
  }
}

/**
 * Every CSV record (blank lines included, so that record i is spreadsheet row i + 1), read in slices.
 * `found.delimiter` is set to the separator once the first slice is read.
 */
async function* csvRows(bytes: Buffer, found: { delimiter: Delimiter }): AsyncGenerator<SheetRow, void> {
  const slices = utf8Slices(bytes);
  const head = await slices.next();
  if (head.done) return;
  found.delimiter = detectDelimiter(head.value.toString('utf8'));
  const parser = csvParser({
    delimiter: found.delimiter,
    relax_column_count: true,
    skip_empty_lines: false,
  });
  const source = Readable.from(
    (async function* () {
      yield head.value;
      yield* slices;
    })(),
    { objectMode: false },
  );
  source.on('error', (err) => parser.destroy(err));
  source.pipe(parser);
  let row = 0;
  try {
    for await (const record of parser as AsyncIterable<string[]>) {
      row++;
      yield { row, cells: record.map(unmarkFormula) };
    }
  } catch (err) {
    if (err instanceof ApiError) throw err;
    const where = (err as { lines?: number }).lines;
    throw new ApiError(
      'parameter_invalid',
      `The CSV file could not be read${where ? ` (near line ${where})` : ''}: ${(err as Error).message.split('\n')[0]}`,
    );
  } finally {
    source.destroy();
    parser.destroy();
  }
}

/** XLSX text cells lose the formula marker as CSV cells do; other cells are what the workbook says. */
async function* xlsxCells(bytes: Buffer): AsyncGenerator<SheetRow, void> {
  // An .xlsx is a zip: anything else (an old .xls, a renamed CSV) is refused before it is read.
  if (bytes.length < 4 || bytes.readUInt32LE(0) !== 0x04034b50) {
    throw new ApiError('parameter_invalid', 'The file is not an .xlsx workbook (save it as Excel Workbook, .xlsx).');
  }
  for await (const r of xlsxRows(bytes)) {
    yield { row: r.row, cells: r.cells.map((c) => (typeof c === 'string' ? unmarkFormula(c) : c)) };
  }
}

/** The non-blank data rows after the header; refused as soon as there is one more than the limit. */
async function* dataRows(records: AsyncGenerator<SheetRow, void>): AsyncGenerator<SheetRow, void> {
  let count = 0;
  let read = 0;
  try {
    for await (const r of records) {
      if (++read % ROWS_PER_TURN === 0) await nextTurn();
      if (r.cells.every((c) => isBlank(c))) continue;
      if (++count > MAX_IMPORT_ROWS) {
        throw new ApiError(
          'parameter_invalid',
          `The file has more than ${MAX_IMPORT_ROWS} rows (row ${r.row} is the ${MAX_IMPORT_ROWS + 1}st with data); at most ${MAX_IMPORT_ROWS} can be imported at once. Split it.`,
        );
      }
      yield r;
    }
  } finally {
    await records.return();
  }
}

/**
 * Opens a file for reading: the header row now, the data rows as they are taken. The file is
 * read a slice at a time (16 KiB of CSV, 64 KiB of inflated XML, at most 256 rows) with a turn of
 * the event loop between slices, and reading
 * stops at the first row over the limit, so no file holds the API up while it is read (issue #18).
 */
export async function openSheet(type: ImportType, bytes: Buffer): Promise<OpenSheet> {
  const found: { delimiter: Delimiter } = { delimiter: ',' };
  const records = type === XLSX_TYPE ? xlsxCells(bytes) : csvRows(bytes, found);
  const first = await records.next().catch(async (err) => {
    await records.return();
    throw err;
  });
  if (first.done || first.value.row !== 1 || first.value.cells.every((c) => isBlank(c))) {
    await records.return();
    throw new ApiError('parameter_invalid', 'The file has no header row: row 1 must name the columns.');
  }
  const headers = first.value.cells.map((c) => (c === null ? '' : c instanceof Date ? c.toISOString() : String(c)));
  return { headers, rows: dataRows(records), delimiter: found.delimiter };
}

/** A cell as text, for failed_rows.csv: what the merchant typed, as near as the file lets us say. */
export function cellText(c: Cell | undefined): string {
  if (c === null || c === undefined) return '';
  if (c instanceof Date) return c.toISOString();
  return String(c);
}
