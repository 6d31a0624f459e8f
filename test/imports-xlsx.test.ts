import { readFileSync } from 'node:fs';
import { readSheet } from 'read-excel-file/node';
import { describe, expect, it } from 'vitest';
import writeXlsxFile from 'write-excel-file/node';
import { XLSX_LIMITS, type XlsxLimits, xlsxRows } from '../src/features/imports/xlsx.js';
import { deflateRepeated, rowXml, SHEET_HEAD, SHEET_TAIL, sheetXml, workbook, zip } from './xlsx-build.js';

// The streaming .xlsx reader (src/features/imports/xlsx.ts): it must read what read-excel-file,
// the library it replaces, read; and it must refuse zip bombs without inflating them (issue #18,
// defect 7). No database: these are the reader's own tests.

async function ours(bytes: Buffer, limits: XlsxLimits = XLSX_LIMITS) {
  const out: { row: number; cells: unknown[] }[] = [];
  for await (const r of xlsxRows(bytes, limits)) out.push(r);
  return out;
}

/** read-excel-file's rows, in the same shape: non-empty rows with their numbers, trailing nulls off. */
async function theirs(bytes: Buffer) {
  const rows = (await readSheet(bytes, 1)) as unknown[][];
  return rows
    .map((cells, i) => {
      const c = [...cells];
      while (c.length > 0 && c[c.length - 1] === null) c.pop();
      return { row: i + 1, cells: c };
    })
    .filter((r) => r.cells.length > 0);
}

const STYLES = `<?xml version="1.0" encoding="UTF-8"?><styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">
<numFmts count="2"><numFmt numFmtId="164" formatCode="dd/mm/yyyy;@"/><numFmt numFmtId="165" formatCode="&quot;S/&quot; #,##0.00"/></numFmts>
<cellStyleXfs count="2"><xf numFmtId="0"/><xf numFmtId="22"/></cellStyleXfs>
<cellXfs count="6"><xf numFmtId="0" xfId="0"/><xf numFmtId="14" xfId="0"/><xf numFmtId="164" xfId="0"><alignment/></xf><xf numFmtId="165" xfId="0"/><xf xfId="1"/><xf numFmtId="20"/></cellXfs>
</styleSheet>`;

describe('the .xlsx reader reads what read-excel-file read', () => {
  it('files written by write-excel-file: text, numbers, booleans, dates, blanks, merged cells, accents, entities', async () => {
    const file = await writeXlsxFile([
      ['external_order_id', 'customer_name', 'lat', 'is_urgent', 'requested_date', 'notes'],
      [
        'A-1',
        '  Núñez & <Hijos> "SAC"  ',
        -12.1211,
        true,
        { value: new Date(Date.UTC(2026, 5, 30, 9, 30)), format: 'yyyy-mm-dd hh:mm' },
        'línea 1\nlínea 2',
      ],
      [{ value: 'A-2', rowSpan: 2 }, 'Ana', 0, false, { value: 46351, format: '0.00' }, null],
      [null, null, null, null, null, '   '],
      [],
      ['A-3', '=1+2', -5, null, '2026-07-01', '_x000D_ escaped?'],
    ] as never).toBuffer();
    expect(await ours(file)).toEqual(await theirs(file));
  });

  it('the formulas fixture: cached values of formula cells', async () => {
    const file = readFileSync(new URL('./fixtures/formulas.xlsx', import.meta.url));
    const rows = await ours(file);
    expect(rows).toEqual(await theirs(file));
    expect(rows[1]?.cells).toContain(3); // =1+2
  });

  it('hand-written markup: shared and rich strings, phonetic runs, styles by number format and by cell style, the 1904 date system, errors, gaps', async () => {
    const sst =
      '<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><si><t>name</t></si><si><t xml:space="preserve"> address </t></si>' +
      '<si><r><rPr><b/></rPr><t>Av. </t></r><r><t>Larco &amp; 1</t></r><rPh sb="0" eb="1"><t>ルビ</t></rPh></si><si><t>a_x000D_b</t></si><si><t/></si></sst>';
    const sheet = `${SHEET_HEAD}<row r="1" spans="1:7"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c><c r="C1" t="inlineStr"><is><t>date</t></is></c></row>
<row r="2"><c r="A2" t="s"><v>2</v></c><c r="B2" t="s"><v>3</v></c><c r="C2" s="1"><v>46351</v></c><c r="D2" s="2"><v>46351.5</v></c><c r="E2" s="3"><v>12.5</v></c><c r="F2" s="4"><v>45000.25</v></c><c r="G2" s="5"><v>0.375</v></c></row>
<row r="5"><c r="B5" t="e"><f>1/0</f><v>#DIV/0!</v></c><c r="C5" t="str"><f>A1&amp;"x"</f><v>namex</v></c><c r="E5" t="b"><v>0</v></c><c r="F5" t="s"><v>4</v></c></row>
<row r="6"><c r="A6"/><c r="B6" s="1"/></row>${SHEET_TAIL}`;
    for (const date1904 of [false, true]) {
      const file = workbook(sheet, { sharedStrings: sst, styles: STYLES, date1904 });
      const rows = await ours(file);
      expect(rows).toEqual(await theirs(file));
      expect(rows.map((r) => r.row)).toEqual([1, 2, 5]);
    }
  });

  it('reads namespace-prefixed markup, as some writers produce it', async () => {
    const sheet =
      '<x:worksheet xmlns:x="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><x:sheetData>' +
      '<x:row r="1"><x:c r="A1" t="inlineStr"><x:is><x:t>name</x:t></x:is></x:c><x:c r="B1"><x:v>7</x:v></x:c></x:row>' +
      '</x:sheetData></x:worksheet>';
    expect(await ours(workbook(sheet))).toEqual([{ row: 1, cells: ['name', 7] }]);
  });
});

const small = (over: Partial<XlsxLimits>): XlsxLimits => ({ ...XLSX_LIMITS, ...over });
const refusal = async (bytes: Buffer, limits?: XlsxLimits) => {
  const err = await ours(bytes, limits).then(
    () => undefined,
    (e: Error & { code?: string }) => e,
  );
  expect(err, 'refused').toBeDefined();
  expect(err?.code).toBe('parameter_invalid');
  return err?.message ?? '';
};

describe('the .xlsx reader refuses zip bombs (issue #18, defect 7)', () => {
  const head = SHEET_HEAD + rowXml(1, ['name', 'address']) + rowXml(2, ['Ana', 'Av. 1']);

  it('refuses a sheet that declares more than the cap before inflating a byte of it', async () => {
    const bomb = deflateRepeated([{ text: head }, { text: ' '.repeat(1 << 20), times: 65 }, { text: SHEET_TAIL }]);
    // Damage every byte after the first row: had the reader inflated the sheet, zlib would fail first.
    const damaged = Buffer.from(bomb.data);
    damaged.fill(0xff, 200);
    const message = await refusal(workbook({ ...bomb, data: damaged }));
    expect(message).toContain('first sheet inflates to more than 64 MiB');
  });

  it('stops inflating at the cap when the zip lies about the size', async () => {
    const bomb = deflateRepeated([{ text: head }, { text: ' '.repeat(1 << 20), times: 65 }, { text: SHEET_TAIL }]);
    const message = await refusal(workbook(bomb, { sheetSize: 1024 }));
    expect(message).toContain('first sheet inflates to more than 64 MiB');
    // Below the cap the same sheet reads.
    const fine = deflateRepeated([{ text: head }, { text: ' '.repeat(1 << 20), times: 8 }, { text: SHEET_TAIL }]);
    expect(await ours(workbook(fine, { sheetSize: 1024 }))).toHaveLength(2);
  });

  it('caps the shared strings, the cells, a row, the workbook parts and the number of files', async () => {
    const sst = `<sst>${'<si><t>x</t></si>'.repeat(5000)}</sst>`;
    const withStrings = workbook(sheetXml([['name']]), { sharedStrings: sst });
    expect(await refusal(withStrings, small({ sharedStringsBytes: 40_000 }))).toContain('shared-string table');
    expect(await refusal(withStrings, small({ cells: 4000 }))).toContain('more than 4,000 cells');

    const cells = SHEET_HEAD + rowXml(1, ['name']) + `<row r="2">${'<c r="A2"/>'.repeat(101)}</row>` + SHEET_TAIL;
    expect(await refusal(workbook(cells), small({ cells: 100 }))).toContain('more than 100 cells');

    const wide = SHEET_HEAD + rowXml(1, ['name', 'x'.repeat(200_000)]) + SHEET_TAIL;
    expect(await refusal(workbook(wide), small({ rowChars: 4096 }))).toContain('row longer than');

    expect(await refusal(workbook(sheetXml([['name']])), small({ partBytes: 100 }))).toContain('xl/workbook.xml');

    const many = zip(Array.from({ length: 11 }, (_, i) => ({ name: `f${i}.xml`, content: '<a/>' })));
    expect(await refusal(many, small({ entries: 10 }))).toContain('holds 11 files');
  });

  it('reads crafted markup in time linear in its size: unclosed cells, tags and strings, long names, odd format codes', async () => {
    // Each of these made a lazy pattern retry from every position (the first alone took 9.6 s of CPU, and read on).
    const unclosedCells = `${SHEET_HEAD}<row r="1">${'<c r="A1" t="inlineStr">'.repeat(30_000)}</row>${SHEET_TAIL}`;
    expect(await refusal(workbook(unclosedCells))).toContain('cell A1 is not closed');
    const openRows = `${SHEET_HEAD}${'<row r="1" '.repeat(80_000)}${SHEET_TAIL}`;
    expect(await ours(workbook(openRows))).toEqual([]);
    const longName = `${SHEET_HEAD}<row ${'a'.repeat(500_000)}>${rowXml(1, ['name']).slice(4)}${SHEET_TAIL}`;
    expect(await ours(workbook(longName))).toHaveLength(1);
    const sst = `<sst><si>${'<t>x'.repeat(100_000)}</si><si><r><t>ok</t></r>${'<rPh>'.repeat(50_000)}</si></sst>`;
    const strings = workbook(`${SHEET_HEAD}<row r="1"><c r="A1" t="s"><v>1</v></c></row>${SHEET_TAIL}`, {
      sharedStrings: sst,
      styles: `<styleSheet><numFmts><numFmt numFmtId="164" formatCode="${'['.repeat(200_000)}"/></numFmts><cellXfs>${'<xf '.repeat(50_000)}</cellXfs></styleSheet>`,
    });
    expect(await ours(strings)).toEqual([{ row: 1, cells: ['ok'] }]);
  });

  it('refuses what no workbook needs: encryption, duplicate names, methods other than deflate, damaged directories', async () => {
    const good = workbook(sheetXml([['name']]));
    const dir = good.lastIndexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02])); // the last central entry
    const encrypted = Buffer.from(good);
    encrypted.writeUInt16LE(1, dir + 8);
    expect(await refusal(encrypted)).toContain('encrypted');
    const bzip = Buffer.from(good);
    bzip.writeUInt16LE(12, dir + 10);
    expect(await refusal(bzip)).toContain('zip method 12');
    const twice = zip([
      { name: 'xl/workbook.xml', content: '<a/>' },
      { name: 'xl/workbook.xml', content: '<b/>' },
    ]);
    expect(await refusal(twice)).toContain('two files named');
    expect(await refusal(good.subarray(0, good.length - 10))).toContain('could not be read');
  });
});
