import { constants, crc32, deflateRawSync } from 'node:zlib';

// Hand-built .xlsx files for the import tests and the bench: workbooks whose sheet XML a library
// would never write (zip bombs, lying sizes, odd markup), so the reader's limits can be tried.

/** A zip entry's compressed bytes with its true length and CRC, built without holding the inflated data. */
export interface Deflated {
  data: Buffer;
  size: number;
  crc: number;
}

export interface ZipEntry {
  name: string;
  content: string | Buffer | Deflated;
  /** Written in both headers instead of the true uncompressed size: a zip that lies about itself. */
  declaredSize?: number;
}

const isDeflated = (c: ZipEntry['content']): c is Deflated => typeof c === 'object' && !Buffer.isBuffer(c);

/** Deflates `parts`, each part repeated `times` (default 1), without ever holding the inflated whole. */
export function deflateRepeated(parts: { text: string | Buffer; times?: number }[]): Deflated {
  const out: Buffer[] = [];
  let size = 0;
  let crc = 0;
  for (const p of parts) {
    const bytes = Buffer.isBuffer(p.text) ? p.text : Buffer.from(p.text);
    // A full flush ends the blocks on a byte boundary with a fresh dictionary: copies of it concatenate.
    const piece = deflateRawSync(bytes, { finishFlush: constants.Z_FULL_FLUSH });
    for (let i = 0; i < (p.times ?? 1); i++) {
      out.push(piece);
      crc = crc32(bytes, crc);
      size += bytes.length;
    }
  }
  out.push(Buffer.from([0x03, 0x00])); // a final, empty, fixed-Huffman block
  return { data: Buffer.concat(out), size, crc };
}

/** A zip archive (deflate, no data descriptors) of `entries`. */
export function zip(entries: ZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const d = isDeflated(e.content) ? e.content : deflateRepeated([{ text: e.content }]);
    const name = Buffer.from(e.name);
    const size = e.declaredSize ?? d.size;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4); // version needed
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(8, 8); // deflate
    local.writeUInt32LE(d.crc >>> 0, 14);
    local.writeUInt32LE(d.data.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(d.crc >>> 0, 16);
    central.writeUInt32LE(d.data.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, d.data);
    centrals.push(central, name);
    offset += local.length + name.length + d.data.length;
  }
  const dir = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(dir.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, dir, end]);
}

const NS = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

/** `0` → `A`: a column's letters. */
export const colName = (i: number): string =>
  (i < 26 ? '' : colName(Math.floor(i / 26) - 1)) + String.fromCharCode(65 + (i % 26));

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** One `<row>` of inline strings and numbers (null: no cell). */
export function rowXml(r: number, cells: (string | number | null)[]): string {
  const cs = cells
    .map((v, i) => {
      if (v === null) return '';
      const ref = `${colName(i)}${r}`;
      return typeof v === 'number'
        ? `<c r="${ref}"><v>${v}</v></c>`
        : `<c r="${ref}" t="inlineStr"><is><t>${esc(v)}</t></is></c>`;
    })
    .join('');
  return `<row r="${r}">${cs}</row>`;
}

export const SHEET_HEAD = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<worksheet xmlns="${NS}"><sheetData>`;
export const SHEET_TAIL = '</sheetData></worksheet>';

/** The sheet XML of `rows` (row 1 first). */
export function sheetXml(rows: (string | number | null)[][]): string {
  return SHEET_HEAD + rows.map((cells, i) => rowXml(i + 1, cells)).join('') + SHEET_TAIL;
}

/**
 * A one-sheet workbook around `sheet` (its XML, or already deflated). `sheetSize` is what the zip
 * says the sheet inflates to, when it should lie.
 */
export function workbook(
  sheet: string | Deflated,
  opts: { sharedStrings?: string; styles?: string; date1904?: boolean; sheetSize?: number } = {},
): Buffer {
  const rels = [
    `<Relationship Id="rId1" Type="${REL}/worksheet" Target="worksheets/sheet1.xml"/>`,
    opts.sharedStrings ? `<Relationship Id="rId2" Type="${REL}/sharedStrings" Target="sharedStrings.xml"/>` : '',
    opts.styles ? `<Relationship Id="rId3" Type="${REL}/styles" Target="styles.xml"/>` : '',
  ].join('');
  return zip([
    {
      name: '[Content_Types].xml',
      content:
        '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/></Types>',
    },
    {
      name: 'xl/workbook.xml',
      content: `<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="${NS}" xmlns:r="${REL}">${opts.date1904 ? '<workbookPr date1904="1"/>' : ''}<sheets><sheet name="Orders" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    },
    {
      name: 'xl/_rels/workbook.xml.rels',
      content: `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${rels}</Relationships>`,
    },
    ...(opts.sharedStrings ? [{ name: 'xl/sharedStrings.xml', content: opts.sharedStrings }] : []),
    ...(opts.styles ? [{ name: 'xl/styles.xml', content: opts.styles }] : []),
    { name: 'xl/worksheets/sheet1.xml', content: sheet, declaredSize: opts.sheetSize },
  ]);
}
