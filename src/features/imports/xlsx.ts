import { setImmediate as nextTurn } from 'node:timers/promises';
import { ApiError } from '../../shared/errors.js';
import type { Cell, SheetRow } from './cells.js';
import {
  attributes,
  columnOf,
  dateStyles,
  firstIn,
  openTag,
  serialToDate,
  stringItem,
  unescapeXml,
  unescapeXstring,
} from './xlsx-xml.js';
import { inflate, inflateText, readZip, type TooLarge, type ZipEntry } from './zip.js';

/**
 * What an .xlsx may cost before it is refused (issue #18, defect 7). A 10 000-row sheet of 30
 * filled columns, every text cell different, as write-excel-file saves it: 9.8 MiB of sheet XML
 * and 6.6 MiB of shared strings (a 1.5 MB file).
 */
export const XLSX_LIMITS = {
  /** Files in the zip; a workbook has a few dozen. */
  entries: 1000,
  /** The first sheet's XML, inflated: streamed, never held. */
  sheetBytes: 64 * 2 ** 20,
  /**
   * The shared-string table, inflated: held for the whole read (cells point into it), about its
   * size again in memory. Room for as much text as the largest CSV (10 MiB), with its markup.
   */
  sharedStringsBytes: 32 * 2 ** 20,
  /** workbook.xml, its relationships, styles.xml: each read whole. */
  partBytes: 8 * 2 ** 20,
  /** `<c>` elements in the sheet, empty ones included: 10 001 rows of 100 columns. */
  cells: 1_000_000,
  /** The text of one row: a row that does not end within this is no spreadsheet's. */
  rowChars: 2 ** 20,
};
export type XlsxLimits = typeof XLSX_LIMITS;

const MiB = (n: number) => `${Math.round(n / 2 ** 20)} MiB`;
const bigger =
  (what: string): TooLarge =>
  (limit) =>
    new ApiError(
      'parameter_invalid',
      `The .xlsx workbook's ${what} inflates to more than ${MiB(limit)}; a 10 000-row sheet needs far less. Save only the orders sheet, without formatting, and upload it again.`,
    );

const REL = /\/(worksheet|sharedStrings|styles)$/;

/** The first sheet's part, the shared strings and styles parts, and the date system, from the workbook. */
async function workbookParts(zip: Map<string, ZipEntry>, limits: XlsxLimits) {
  const part = async (name: string) => {
    const e = zip.get(name);
    return e ? inflateText(e, limits.partBytes, bigger(name)) : undefined;
  };
  const wb = await part('xl/workbook.xml');
  const rels = await part('xl/_rels/workbook.xml.rels');
  if (wb === undefined || rels === undefined) {
    throw new ApiError('parameter_invalid', 'The file is not an .xlsx workbook (save it as Excel Workbook, .xlsx).');
  }
  const pr = openTag('workbookPr', '').exec(wb);
  const date1904 = pr ? ['1', 'true'].includes(attributes(pr[0]).date1904 ?? '') : false;
  const first = openTag('sheet', '').exec(wb);
  const sheetRel = first ? attributes(first[0]).id : undefined;
  const paths: Record<string, string> = {};
  let sheetPath: string | undefined;
  for (const m of rels.matchAll(openTag('Relationship'))) {
    const a = attributes(m[0]);
    const kind = REL.exec(a.Type ?? '')?.[1];
    if (!kind || a.Target === undefined) continue;
    // Targets are relative to xl/, or absolute from the package root.
    const path = a.Target.startsWith('/') ? a.Target.slice(1) : `xl/${a.Target}`;
    if (kind === 'worksheet') {
      if (a.Id === sheetRel) sheetPath = path;
    } else paths[kind] ??= path;
  }
  const sheet = sheetPath ? zip.get(sheetPath) : undefined;
  if (!sheet) throw new ApiError('parameter_invalid', 'The .xlsx workbook has no sheet; open it and save it again.');
  const styles = await part(paths.styles ?? 'xl/styles.xml');
  return {
    sheet,
    sharedStrings: zip.get(paths.sharedStrings ?? 'xl/sharedStrings.xml'),
    dates: styles === undefined ? [] : dateStyles(styles),
    date1904,
  };
}

/**
 * Complete elements named `tag` from a stream of XML text, each as [open tag, inner text]; the
 * text between them is dropped as it is passed, so whitespace or other elements never pile up,
 * and an element longer than `maxChars` refuses the file. A turn of the event loop between slices.
 */
async function* elements(
  chunks: AsyncIterable<Buffer>,
  tag: string,
  maxChars: number,
  tooLong: () => ApiError,
): AsyncGenerator<[string, string], void> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const open = openTag(tag);
  let text = '';
  const decode = (b?: Buffer) => {
    try {
      return decoder.decode(b, { stream: b !== undefined });
    } catch {
      throw new ApiError('parameter_invalid', 'The .xlsx workbook could not be read (its XML is not UTF-8).');
    }
  };
  for await (const chunk of chunks) {
    text += decode(chunk);
    let from = 0;
    for (;;) {
      open.lastIndex = from;
      const m = open.exec(text);
      if (!m) {
        // Keep a tag the slice's end cut (a long one too: the row limit bounds it); drop the rest.
        const lt = text.lastIndexOf('<');
        from = lt >= 0 && text.indexOf('>', lt) < 0 ? lt : text.length;
        break;
      }
      if (m[2] === '/') {
        yield [m[0], ''];
        from = m.index + m[0].length;
        continue;
      }
      const close = `</${m[1]}>`;
      const end = text.indexOf(close, m.index + m[0].length);
      if (end < 0) {
        from = m.index;
        break;
      }
      yield [m[0], text.slice(m.index + m[0].length, end)];
      from = end + close.length;
    }
    text = text.slice(from);
    if (text.length > maxChars) throw tooLong();
    await nextTurn();
  }
  decode();
}

/** The shared-string table: every `<si>`, in order. */
async function sharedStrings(entry: ZipEntry | undefined, limits: XlsxLimits): Promise<string[]> {
  if (!entry) return [];
  const out: string[] = [];
  const chunks = inflate(entry, limits.sharedStringsBytes, bigger('shared-string table'));
  const tooLong = () => new ApiError('parameter_invalid', 'The .xlsx workbook has a string longer than 1 MiB.');
  for await (const [, inner] of elements(chunks, 'si', limits.rowChars, tooLong)) {
    if (out.length >= limits.cells) throw tooManyCells(limits.cells);
    out.push(stringItem(inner));
  }
  return out;
}

const tooManyCells = (n: number) =>
  new ApiError(
    'parameter_invalid',
    `The .xlsx workbook's sheet has more than ${n.toLocaleString('en')} cells; an import is at most 10 000 rows. Save only the orders, without formatting, and upload it again.`,
  );

interface CellContext {
  strings: string[];
  dates: boolean[];
  date1904: boolean;
}

/** One `<c>` as a value, as read-excel-file read it: strings trimmed (empty ones null), date styles as Dates, errors empty. */
function cellValue(a: Record<string, string>, inner: string, cx: CellContext): Cell {
  const v = firstIn(inner, 'v');
  const str = (s: string): Cell => s.trim() || null;
  switch (a.t || 'n') {
    case 's': {
      if (!v) return null;
      const s = cx.strings[Number(v)];
      if (s === undefined) throw unreadableCell(a.r, 'points to no shared string');
      return str(s);
    }
    case 'inlineStr': {
      const is = firstIn(inner, 'is');
      return is === undefined ? null : str(stringItem(is));
    }
    case 'str':
      return v === undefined ? null : str(unescapeXstring(unescapeXml(v)));
    case 'b':
      if (v === undefined) return null;
      if (v === '1' || v === '0') return v === '1';
      throw unreadableCell(a.r, 'is a boolean that is neither 0 nor 1');
    case 'e':
      return null; // a formula whose result is an error (#DIV/0!): read as empty
    case 'd': {
      if (!v) return null;
      const d = new Date(v);
      if (Number.isNaN(d.getTime())) throw unreadableCell(a.r, 'is not a date');
      return d;
    }
    case 'n': {
      if (!v) return null;
      const n = Number(v);
      if (Number.isNaN(n)) throw unreadableCell(a.r, 'is not a number');
      return a.s !== undefined && cx.dates[Number(a.s)] ? serialToDate(n, cx.date1904) : n;
    }
    default:
      throw unreadableCell(a.r, `has an unknown type "${a.t}"`);
  }
}

const unreadableCell = (ref: string | undefined, why: string) =>
  new ApiError('parameter_invalid', `The .xlsx workbook could not be read: cell ${ref ?? '?'} ${why}.`);

/**
 * The rows of the first sheet of an .xlsx, in order, each with its spreadsheet row number and
 * its cells (index = column; trailing empty cells left off). Rows without values are left out.
 * The zip's declarations and the inflated bytes are both held to `limits`.
 */
export async function* xlsxRows(bytes: Buffer, limits: XlsxLimits = XLSX_LIMITS): AsyncGenerator<SheetRow, void> {
  const zip = readZip(bytes, limits.entries);
  const parts = await workbookParts(zip, limits);
  const cx: CellContext = { strings: await sharedStrings(parts.sharedStrings, limits), ...parts };
  const chunks = inflate(parts.sheet, limits.sheetBytes, bigger('first sheet'));
  const tooLong = () => new ApiError('parameter_invalid', 'The .xlsx workbook has a row longer than 1 MiB of XML.');
  let cellCount = 0;
  let last = 0;
  for await (const [tag, inner] of elements(chunks, 'row', limits.rowChars, tooLong)) {
    const r = Number(attributes(tag).r);
    const row = Number.isInteger(r) && r > last ? r : last + 1;
    last = row;
    const cells: Cell[] = [];
    let col = -1;
    const open = openTag('c');
    for (let m = open.exec(inner); m; m = open.exec(inner)) {
      if (++cellCount > limits.cells) throw tooManyCells(limits.cells);
      const a = attributes(m[0]);
      col = a.r === undefined ? col + 1 : (columnOf(a.r) ?? col + 1);
      let body: string | undefined;
      if (m[2] !== '/') {
        const close = `</${m[1]}>`;
        const end = inner.indexOf(close, open.lastIndex);
        if (end < 0) throw unreadableCell(a.r, 'is not closed');
        body = inner.slice(open.lastIndex, end);
        open.lastIndex = end + close.length;
      }
      const value = body === undefined ? null : cellValue(a, body, cx);
      if (value === null) continue;
      while (cells.length < col) cells.push(null);
      cells[col] = value;
    }
    if (cells.length > 0) yield { row, cells };
  }
}
