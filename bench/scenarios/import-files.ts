import writeXlsxFile from 'write-excel-file/node';
import { deflateRepeated, rowXml, SHEET_HEAD, SHEET_TAIL, workbook } from '../../test/xlsx-build.js';

// The files the import scenario uploads: valid 10 000-row imports (CSV and XLSX), files refused by
// the 10 000-row cap (issue #18 defect 8: a 200 000-row CSV under 10 MiB, and the same as XLSX),
// and XLSX zip bombs (defect 7: under 1 MB, a sheet that inflates to 770 MiB).

export const IMPORT_ROWS = 10_000;
const HEAD = [
  'external_order_id',
  'customer_name',
  'customer_phone',
  'address',
  'district',
  'city',
  'lat',
  'lng',
  'time_window_start',
  'time_window_end',
  'cash_on_delivery',
  'item_sku',
  'item_description',
  'item_quantity',
  'item_weight_kg',
];

/** Row i of the valid import: one order with phone, coordinates, a time window, an item and COD on a third. */
function orderRow(i: number): (string | number)[] {
  return [
    `BULK-${i}`,
    `Cliente ${i}`,
    `+5198765${String(i % 10000).padStart(4, '0')}`,
    `Av. Arequipa ${i}`,
    'Miraflores',
    'Lima',
    Number((-12.05 - (i % 100) * 0.001).toFixed(5)),
    Number((-77.04 + (i % 37) * 0.001).toFixed(5)),
    '09:00',
    '13:00',
    i % 3 === 0 ? 25.5 : 0,
    `SKU-${i % 50}`,
    `Caja ${i}`,
    1,
    1.5,
  ];
}

/** A 10 000-row CSV: one order per row. `prefix` keeps the external ids of two imports apart. */
export function importCsv(rows = IMPORT_ROWS, prefix = 'BULK'): string {
  const lines = [HEAD.join(',')];
  for (let i = 0; i < rows; i++) {
    lines.push(
      orderRow(i)
        .map((v, c) => (c === 0 ? `${prefix}-${i}` : typeof v === 'number' && c === 10 ? v.toFixed(2) : String(v)))
        .join(','),
    );
  }
  return `${lines.join('\n')}\n`;
}

/** The same orders as an .xlsx written by write-excel-file (shared strings, number cells), as a spreadsheet would. */
export async function importXlsx(rows = IMPORT_ROWS, prefix = 'XBULK'): Promise<Buffer> {
  const data = [HEAD, ...Array.from({ length: rows }, (_, i) => [`${prefix}-${i}`, ...orderRow(i).slice(1)])];
  return writeXlsxFile(data.map((r) => r.map((v) => ({ value: v }))) as never).toBuffer();
}

/** 10 000 orders in just under 10 MiB (the upload limit): a 480-character note and reference on each. */
export function wideCsv(rows = IMPORT_ROWS, prefix = 'WIDE'): string {
  const note = 'n'.repeat(480);
  const ref = 'r'.repeat(480);
  const lines = [
    'external_order_id,customer_name,customer_phone,address,city,customer_notes,reference,item_description',
  ];
  for (let i = 0; i < rows; i++)
    lines.push(`${prefix}-${i},Cliente ${i},+51987654321,Av. ${i},Lima,${note},${ref},Caja`);
  return `${lines.join('\n')}\n`;
}

export const REFUSED_ROWS = 200_000;
const SHORT_HEAD = 'external_order_id,customer_name,address';
const shortRow = (i: number) => [`R-${i}`, `Cliente ${i}`, `Av. ${i}`];

/** 200 000 short rows: under the 10 MiB body limit, twenty times the row limit. */
export function refusedCsv(): string {
  const lines = [SHORT_HEAD];
  for (let i = 0; i < REFUSED_ROWS; i++) lines.push(shortRow(i).join(','));
  return `${lines.join('\n')}\n`;
}

/** The same 200 000 rows as a workbook (inline strings, compressed to a few MB). */
export function refusedXlsx(): Buffer {
  const parts: string[] = [SHEET_HEAD, rowXml(1, SHORT_HEAD.split(','))];
  for (let i = 0; i < REFUSED_ROWS; i++) parts.push(rowXml(i + 2, shortRow(i)));
  parts.push(SHEET_TAIL);
  return workbook(parts.join(''));
}

export const BOMB_MIB = 770;

/**
 * A workbook under 1 MB whose sheet inflates to 770 MiB: a header and one good row, then 770 MiB
 * of whitespace between elements (valid XML). `lying`: the zip declares 1 KiB for the sheet, so
 * only counting the inflated bytes can stop it.
 */
export function bombXlsx(lying: boolean): Buffer {
  const sheet = deflateRepeated([
    { text: SHEET_HEAD + rowXml(1, SHORT_HEAD.split(',')) + rowXml(2, shortRow(0)) },
    { text: ' '.repeat(1 << 20), times: BOMB_MIB },
    { text: SHEET_TAIL },
  ]);
  return workbook(sheet, lying ? { sheetSize: 1024 } : {});
}
