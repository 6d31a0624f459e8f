import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { client, describeEach, type Merchant, newMerchant, newOperator, startApp, type TestApp } from './helpers.js';
import { csv, drain, good, HEADER, imported, upload, XLSX, xlsx } from './imports-helpers.js';
import { openStream } from './stream-client.js';

describeEach('order imports', (engine) => {
  let t: TestApp;
  let m: Merchant;
  beforeAll(async () => {
    t = await startApp(engine, { RUTA_WEBHOOK_ALLOW_INSECURE: '1' });
    m = await newMerchant(t);
  });
  afterAll(async () => t?.close());

  const get = (path: string, key = m.test) => client(t.app, key)('GET', path);
  const run = (body: string | Buffer, type = 'text/csv', qs = '', key = m.test) => imported(t, key, body, type, qs);
  const orderBy = async (ext: string, key = m.test) =>
    (await get(`/v1/orders?external_order_id=${encodeURIComponent(ext)}`, key)).body.data;

  it('imports a CSV in the background: 202 queued, then orders with source excel and order.created', async () => {
    const res = await upload(t, m.test, csv([HEADER, good(1), good(2)]));
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body).toMatchObject({
      object: 'order_import',
      status: 'queued',
      mode: 'valid_rows',
      livemode: false,
      total_rows: 2,
      processed_rows: 0,
      created: 0,
      failed: 0,
      errors: [],
    });
    expect(res.body.id).toMatch(/^imp_/);
    await drain(t);
    const done = (await get(`/v1/order_imports/${res.body.id}`)).body;
    expect(done).toMatchObject({ status: 'succeeded', processed_rows: 2, created: 2, failed: 0, errors: [] });
    expect(done.completed_at).toBeTypeOf('string');
    const [order] = await orderBy('EXT-2');
    expect(order).toMatchObject({
      source: 'excel',
      status: 'pending',
      customer: { name: 'Cliente 2', phone: '+51987654321' },
      delivery_address: { address: 'Av. Uno 2', city: 'Lima' },
      items: [{ description: 'Box', quantity: 1 }],
    });
    expect(order.shipping_cost).toBeGreaterThan(0);
    expect(order.tracking_code).toMatch(/\S/);
    const events = (await get(`/v1/events?order=${order.id}`)).body.data;
    expect(events.map((e: { event: string }) => e.event)).toEqual(['order.created']);
  });

  it('sends its progress on the live stream of its account, and of no other account', async () => {
    const other = await newMerchant(t, 'Watcher');
    const mine = await openStream(t.app, m.test);
    const theirs = await openStream(t.app, other.test);
    try {
      const res = await upload(t, m.test, csv([HEADER, good(11), good(12)]));
      await drain(t);
      const last = await mine.next((x) => x.event === 'order_import' && x.data.status === 'succeeded', 'import done');
      expect(last.data).toMatchObject({ id: res.body.id, processed_rows: 2, total_rows: 2 });
      // Both streams are fed by the same hub in the same turn: the other account's got nothing.
      expect(theirs.messages.filter((x) => x.event === 'order_import')).toEqual([]);
    } finally {
      mine.close();
      theirs.close();
    }
  });

  it("queues order.created deliveries for the account's webhook endpoints, as POST /v1/orders does", async () => {
    const w = await newMerchant(t, 'Hooked');
    const ep = await client(t.app, w.test)('POST', '/v1/webhook_endpoints', {
      url: 'http://127.0.0.1:9/h',
      events: ['order.created'],
    });
    expect(ep.status).toBe(201);
    const done = await run(csv([HEADER, good(501), good(502), good(503)]), 'text/csv', '', w.test);
    expect(done.created).toBe(3);
    // Queued, not sent: no dispatcher runs in this test.
    const deliveries = await t.ctx.db
      .selectFrom('webhook_deliveries')
      .select(['status', 'kind'])
      .where('endpoint_id', '=', ep.body.id)
      .execute();
    expect(deliveries).toEqual(Array.from({ length: 3 }, () => ({ status: 'pending', kind: 'event' })));
  });

  it('reads `;` CSVs with a BOM, Spanish headers, decimal commas, sí/no and DD/MM/YYYY dates', async () => {
    const rows = [
      [
        'Pedido',
        'Nombre',
        'Teléfono',
        'Dirección',
        'Latitud',
        'Longitud',
        'Urgente',
        'Firma',
        'Fecha',
        'Desde',
        'Hasta',
        'Producto',
        'Peso',
        'Contra entrega',
        'metadata.canal',
      ],
      [
        'ES-1',
        'José Núñez',
        '+51911222333',
        'Jr. Cañete 5, Lima',
        '-12,05',
        '-77,04',
        'sí',
        'no',
        '03/02/2026',
        '9:00',
        '13:30',
        'Caja',
        '2,5',
        '10,5',
        'tienda',
      ],
    ];
    const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(csv(rows, ';'))]);
    const done = await run(body, 'text/csv', 'date_format=DMY');
    expect(done, JSON.stringify(done.errors)).toMatchObject({ status: 'succeeded', created: 1, failed: 0 });
    const [o] = await orderBy('ES-1');
    expect(o).toMatchObject({
      customer: { name: 'José Núñez', phone: '+51911222333' },
      delivery_address: { address: 'Jr. Cañete 5, Lima', lat: -12.05, lng: -77.04 },
      is_urgent: true,
      requires_signature: false,
      requested_date: '2026-02-03T00:00:00Z',
      time_window: { start: '09:00', end: '13:30' },
      items: [{ description: 'Caja', weight_kg: 2.5 }],
      cash_on_delivery: 10.5,
      metadata: { canal: 'tienda' },
    });
  });

  it('reads dates in the order a header names: (DD/MM/YYYY), [MM/DD/YYYY], (dd/mm/aaaa), (YYYY-MM-DD)', async () => {
    const head = (date: string) => ['external_order_id', 'customer_name', 'address', date];
    // 03/02/2026 is ambiguous: without a format it is rejected (see the bad-rows test); here the header decides.
    const cases: [string, string, string | null][] = [
      ['requested_date (DD/MM/YYYY)', 'HD-1', '2026-02-03T00:00:00Z'],
      ['requested_date [MM/DD/YYYY]', 'HD-2', '2026-03-02T00:00:00Z'],
      ['fecha (dd/mm/aaaa)', 'HD-3', '2026-02-03T00:00:00Z'],
      ['  Requested Date ( dd / mm / yyyy hh:mm ) ', 'HD-4', '2026-02-03T00:00:00Z'],
      ['Fecha_Entrega [TT.MM.JJJJ]', 'HD-5', '2026-02-03T00:00:00Z'],
      ['requested_date (YYYY-MM-DD)', 'HD-6', null],
    ];
    for (const [header, ext, expected] of cases) {
      const date = header.includes('TT.MM') ? '03.02.2026' : '03/02/2026';
      const done = await run(csv([head(header), [ext, 'Ana', 'Av. 1', date]]));
      const fmt = header.includes('YYYY-MM-DD') ? 'ISO' : header.includes('[MM') ? 'MDY' : 'DMY';
      // The import says how its dates were read, though no parameter was passed.
      expect(done.date_format, header).toBe(fmt);
      if (expected === null) {
        // ISO only: a slashed date is refused, as with ?date_format=ISO.
        expect(done, header).toMatchObject({ created: 0, failed: 1 });
        expect(done.errors[0], header).toMatchObject({ row: 2, column: header, param: 'requested_date' });
      } else {
        expect(done, `${header}: ${JSON.stringify(done.errors)}`).toMatchObject({ created: 1, failed: 0 });
        expect((await orderBy(ext))[0].requested_date, header).toBe(expected);
      }
    }
    // The same header with a parameter that agrees is fine; one that contradicts it is a 422 naming date_format.
    const dmy = csv([head('fecha (dd/mm/aaaa)'), ['HD-7', 'Ana', 'Av. 1', '03/02/2026']]);
    expect((await upload(t, m.test, dmy, 'text/csv', 'date_format=DMY')).status).toBe(202);
    for (const qs of ['date_format=MDY', 'date_format=ISO']) {
      const res = await upload(t, m.test, dmy, 'text/csv', qs);
      expect([res.status, res.body.error?.code, res.body.error?.param], qs).toEqual([
        422,
        'parameter_invalid',
        'date_format',
      ]);
      expect(res.body.error.message).toContain('fecha (dd/mm/aaaa)');
    }
    // Brackets after a date column that are no format we read; a format after a column that is no date.
    const bad = await upload(t, m.test, csv([head('requested_date (YY/DD/MM)'), ['HD-8', 'Ana', 'Av. 1', '1']]));
    expect([bad.status, bad.body.error?.code]).toEqual([422, 'parameter_invalid']);
    expect(bad.body.error.message).toContain('"requested_date (YY/DD/MM)"');
    const notDate = await upload(t, m.test, csv([head('city (DD/MM/YYYY)'), ['HD-9', 'Ana', 'Av. 1', 'Lima']]));
    expect([notDate.status, notDate.body.error?.code]).toEqual([422, 'parameter_unknown']);
    await drain(t);
    // A day the calendar has not (31 February) says so, in the order it was read.
    const feb = await run(csv([head('fecha (dd/mm/aaaa)'), ['HD-10', 'Ana', 'Av. 1', '31/02/2026']]));
    expect(feb).toMatchObject({ created: 0, failed: 1 });
    expect(feb.errors[0]).toMatchObject({
      row: 2,
      column: 'fecha (dd/mm/aaaa)',
      code: 'parameter_invalid',
      param: 'requested_date',
      message: 'Invalid requested_date: "31/02/2026", read as day/month/year, is no day of the calendar.',
    });
  });

  it('reads a plain number in an XLSX date column as an Excel serial date, and rejects serials that are no date', async () => {
    const file = await xlsx([
      ['external_order_id', 'customer_name', 'address', 'requested_date'],
      ['SN-1', 'Ana', 'Av. 1', 46351], // 2
      ['SN-2', 'Ana', 'Av. 1', 46351.375], // 3: 09:00
      ['SN-3', 'Ana', 'Av. 1', 61], // 4: the first day after Excel's 29 February 1900
      ['SN-4', 'Ana', 'Av. 1', 59], // 5: before it, no day is skipped
      ['SN-5', 'Ana', 'Av. 1', 60], // 6: the 29 February 1900 that never was
      ['SN-6', 'Ana', 'Av. 1', 0], // 7
      ['SN-7', 'Ana', 'Av. 1', 20261125], // 8: a date typed as digits, far past 9999-12-31
      ['SN-8', 'Ana', 'Av. 1', -3], // 9
    ]);
    const done = await run(file, XLSX);
    expect(done).toMatchObject({ status: 'succeeded', created: 4, failed: 4 });
    const dates: [string, string][] = [
      ['SN-1', '2026-11-25T00:00:00Z'],
      ['SN-2', '2026-11-25T09:00:00Z'],
      ['SN-3', '1900-03-01T00:00:00Z'],
      ['SN-4', '1900-02-28T00:00:00Z'],
    ];
    for (const [ext, date] of dates) expect((await orderBy(ext))[0]?.requested_date, ext).toBe(date);
    expect(done.errors.map((e: { row: number }) => e.row)).toEqual([6, 7, 8, 9]);
    for (const e of done.errors) {
      expect(e).toMatchObject({ column: 'requested_date', param: 'requested_date', code: 'parameter_invalid' });
      expect(e.message).toContain('Excel serial date');
    }
    for (const ext of ['SN-5', 'SN-6', 'SN-7', 'SN-8']) expect(await orderBy(ext), ext).toHaveLength(0);
  });

  it('accepts text/csv with a charset parameter, and replays an upload sent again with the same Idempotency-Key', async () => {
    const body = csv([HEADER, good(601)]);
    const headers = { 'content-type': 'text/csv; charset=utf-8', 'idempotency-key': 'imp-key-1' };
    const first = await client(t.app, m.test)('POST', '/v1/order_imports', body, headers);
    expect(first.status, JSON.stringify(first.body)).toBe(202);
    const again = await client(t.app, m.test)('POST', '/v1/order_imports', body, headers);
    expect([again.status, again.body.id]).toEqual([202, first.body.id]);
    const other = await client(t.app, m.test)('POST', '/v1/order_imports', csv([HEADER, good(602)]), headers);
    expect([other.status, other.body.error?.code]).toEqual([422, 'idempotency_key_reused']);
    await drain(t);
    expect(await orderBy('EXT-601')).toHaveLength(1);
  });

  it('refuses Latin-1 with a 422 that says to save as UTF-8', async () => {
    const latin1 = Buffer.from('customer_name,address\r\nJos\xe9,Ca\xf1ete 5\r\n', 'latin1');
    const res = await upload(t, m.test, latin1);
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('parameter_invalid');
    expect(res.body.error.message).toContain('UTF-8');
  });

  it('refuses unknown columns (naming them), duplicate meanings, missing required columns, empty and oversized files', async () => {
    const cases: [string | Buffer, number, string, string][] = [
      [
        csv([
          ['name', 'address', 'colour', 'Talla'],
          ['A', 'B', 'red', 'M'],
        ]),
        422,
        'parameter_unknown',
        '"colour", "Talla"',
      ],
      [
        csv([
          ['name', 'customer_name', 'address'],
          ['A', 'A', 'B'],
        ]),
        422,
        'parameter_invalid',
        'customer_name',
      ],
      [
        csv([
          ['name', 'city'],
          ['A', 'Lima'],
        ]),
        422,
        'parameter_missing',
        'address',
      ],
      [
        csv([
          ['name', 'address', ''],
          ['A', 'B', ''],
          ['A', 'B', 'lost'],
        ]),
        422,
        'parameter_invalid',
        'Row 3 has a value in column C',
      ],
      [
        csv([
          ['name', 'address'],
          ['A', 'B', 'extra'],
        ]),
        422,
        'parameter_invalid',
        'Row 2 has a value in column C',
      ],
      [csv([['name', 'address']]), 422, 'parameter_invalid', 'no data rows'],
      ['', 422, 'parameter_invalid', 'empty'],
      [
        csv([['name', 'address'], ...Array.from({ length: 10_001 }, (_, i) => [`n${i}`, 'a'])]),
        422,
        'parameter_invalid',
        '10000',
      ],
      [Buffer.alloc(10 * 1024 * 1024 + 1, 0x61), 413, 'request_too_large', ''],
    ];
    for (const [body, status, code, text] of cases) {
      const res = await upload(t, m.test, body);
      expect(res.status, `${code}: ${JSON.stringify(res.body)}`).toBe(status);
      expect(res.body.error.code).toBe(code);
      expect(res.body.error.message).toContain(text);
    }
    // Not an xlsx, a wrong media type, a bad mode.
    const notXlsx = await upload(t, m.test, 'name,address\r\n', XLSX);
    expect([notXlsx.status, notXlsx.body.error.code]).toEqual([422, 'parameter_invalid']);
    const json = await client(t.app, m.test)('POST', '/v1/order_imports', { rows: [] });
    expect([json.status, json.body.error.code]).toEqual([415, 'unsupported_media_type']);
    const png = await upload(t, m.test, Buffer.from([0x89, 0x50, 0x4e, 0x47]), 'image/png');
    expect(png.status).toBe(415);
    const mode = await upload(t, m.test, csv([HEADER, good(1)]), 'text/csv', 'mode=some');
    expect([mode.status, mode.body.error.param]).toEqual([422, 'mode']);
    const fmt = await upload(t, m.test, csv([HEADER, good(1)]), 'text/csv', 'date_format=YMD');
    expect([fmt.status, fmt.body.error.param]).toEqual([422, 'date_format']);
  });

  it('reports every kind of bad row with its row, column as written, param and code, and imports the rest', async () => {
    const head = [
      'Order',
      'Name',
      'Phone',
      'E-mail',
      'Street',
      'Lat',
      'Urgent',
      'Date',
      'From',
      'To',
      'COD',
      'Qty',
      'Product',
      'metadata.note',
    ];
    const row = (over: Record<string, string | number>) =>
      head.map((h) =>
        h in over
          ? over[h]
          : (({ Name: 'Ana', Street: 'Av. Larco 1', Product: 'Box' } as Record<string, string>)[h] ?? ''),
      ) as (string | number)[];
    const rows = [
      row({ Order: 'OK-1' }), // 2
      row({ Order: 'B-3', Phone: '987654321' }), // 3
      row({ Order: 'B-4', Name: '' }), // 4
      row({ Order: 'B-5', Lat: 'north' }), // 5
      row({ Order: 'B-6', Lat: 100 }), // 6
      row({ Order: 'B-7', Qty: 0 }), // 7
      row({ Order: 'B-8', From: '14:00', To: '10:00' }), // 8
      row({ Order: 'B-9', COD: '1.234' }), // 9
      row({ Order: 'B-10', 'E-mail': 'nope' }), // 10
      row({ Order: 'B-11', Urgent: 'maybe' }), // 11
      row({ Order: 'B-12', Date: '01/02/2026' }), // 12
      row({ Order: 'B-13', 'metadata.note': 'x'.repeat(501) }), // 13
      row({ Order: 'G-14' }), // 14: rejected with row 15, its order's second item
      row({ Order: 'G-14', Qty: 'two' }), // 15
      row({ Order: 'B-16', Name: 'A\u0000B' }), // 16
      row({ Order: 'B-17', Name: ' ' }), // 17
    ];
    const done = await run(csv([head, ...rows]));
    expect(done).toMatchObject({ status: 'succeeded', total_rows: 16, processed_rows: 16, created: 1, failed: 15 });
    const err = (r: number) => done.errors.find((e: { row: number }) => e.row === r);
    const expected: [number, string | null, string, string][] = [
      [3, 'Phone', 'customer.phone', 'parameter_invalid'],
      [4, 'Name', 'customer.name', 'parameter_missing'],
      [5, 'Lat', 'delivery_address.lat', 'parameter_invalid'],
      [6, 'Lat', 'delivery_address.lat', 'parameter_invalid'],
      [7, 'Qty', 'items[0].quantity', 'parameter_invalid'],
      [8, 'To', 'time_window.end', 'parameter_invalid'],
      [9, 'COD', 'cash_on_delivery', 'parameter_invalid'],
      [10, 'E-mail', 'customer.email', 'parameter_invalid'],
      [11, 'Urgent', 'is_urgent', 'parameter_invalid'],
      [12, 'Date', 'requested_date', 'parameter_invalid'],
      [13, 'metadata.note', 'metadata', 'parameter_invalid'],
      [15, 'Qty', 'items[1].quantity', 'parameter_invalid'],
      [16, 'Name', 'customer.name', 'parameter_invalid'],
      [17, 'Name', 'customer.name', 'parameter_missing'],
    ];
    for (const [r, column, param, code] of expected) {
      expect(err(r), `row ${r}`).toMatchObject({ row: r, column, param, code });
    }
    // Row 14 is rejected (counted in failed) but the error listed is its order's row 15.
    expect(err(14)).toBeUndefined();
    expect(done.errors).toHaveLength(expected.length);
    expect(err(12).message).toContain('date_format=DMY');
    expect(err(5).message).toBe('Invalid delivery_address.lat: must be a number (got "north").');
    expect(err(11).message).toBe('Invalid is_urgent: must be true or false (got "maybe").');
    expect(err(15).message).toBe('Invalid items[1].quantity: must be a whole number (got "two").');
    expect(await orderBy('OK-1')).toHaveLength(1);
    expect(await orderBy('G-14')).toHaveLength(0);
  });

  it('reads a pickup address (pickup-and-delivery pairs) from pickup columns; blank ones leave a plain delivery', async () => {
    const head = [
      'Pedido',
      'Nombre',
      'Dirección',
      'Latitud',
      'Longitud',
      'Recojo',
      'pickup_lat',
      'Pickup Lng',
      'Producto',
    ];
    const done = await run(
      csv([
        head,
        ['PK-1', 'Ana', 'Av. Uno 1', '-12.12', '-77.03', 'Almacén Tienda, Surquillo', '-12.11', '-77.01', 'Caja'],
        ['PK-2', 'Luis', 'Av. Dos 2', '-12.13', '-77.02', '', '', '', 'Caja'],
        ['PK-3', 'Eva', 'Av. Tres 3', '-12.14', '-77.02', 'Calle Mala 9', '95', '-77.01', 'Caja'],
        ['PK-4', 'Rosa', 'Av. Cuatro 4', '-12.14', '-77.02', '', '-12.11', '', 'Caja'],
      ]),
    );
    expect(done).toMatchObject({ status: 'succeeded', created: 2, failed: 2 });
    const [pair] = await orderBy('PK-1');
    expect(pair.pickup_address).toMatchObject({
      address: 'Almacén Tienda, Surquillo',
      lat: -12.11,
      lng: -77.01,
      depot: null,
    });
    expect((await orderBy('PK-2'))[0].pickup_address).toBeNull();
    // Each refused row points at its own pickup column, with what POST /v1/orders says.
    const err = (r: number) => done.errors.find((e: { row: number }) => e.row === r);
    expect(err(4)).toMatchObject({ column: 'Recojo', param: 'pickup_address' });
    expect(err(5)).toMatchObject({ column: 'Recojo', param: 'pickup_address.address' });
    const direct = await client(t.app, m.test)('POST', '/v1/orders', {
      customer: { name: 'Eva' },
      delivery_address: { address: 'Av. Tres 3', lat: -12.14, lng: -77.02 },
      pickup_address: { address: 'Calle Mala 9', lat: 95, lng: -77.01 },
      items: [{ description: 'Caja' }],
    });
    expect(direct.status).toBe(422);
    expect(err(4)).toMatchObject({ code: direct.body.error.code, message: direct.body.error.message });
  });

  it('reads requirements (skills) as a list in one cell; a bad one points at its column as the API words it', async () => {
    const head = ['Pedido', 'Nombre', 'Dirección', 'Requisitos', 'Producto'];
    const done = await run(
      csv([
        head,
        ['RQ-1', 'Ana', 'Av. Uno 1', 'Cold, LARGE; ', 'Caja'],
        ['RQ-2', 'Luis', 'Av. Dos 2', '', 'Caja'],
        ['RQ-3', 'Eva', 'Av. Tres 3', 'cold, frío', 'Caja'],
      ]),
    );
    expect(done).toMatchObject({ status: 'succeeded', created: 2, failed: 1 });
    expect((await orderBy('RQ-1'))[0].requirements).toEqual(['cold', 'large']);
    expect((await orderBy('RQ-2'))[0].requirements).toEqual([]);
    const direct = await client(t.app, m.test)('POST', '/v1/orders', {
      customer: { name: 'Eva' },
      delivery_address: { address: 'Av. Tres 3' },
      requirements: ['cold', 'frío'],
      items: [{ description: 'Caja' }],
    });
    expect(direct.status).toBe(422);
    expect(done.errors[0]).toMatchObject({
      row: 4,
      column: 'Requisitos',
      param: direct.body.error.param,
      message: direct.body.error.message,
    });
  });

  it("reads phone numbers as spreadsheets write them: spacing dropped; without a country code, in the account's default_country", async () => {
    const own = await newMerchant(t, 'Phones');
    const head = [
      'external_order_id',
      'customer_name',
      'customer_phone',
      'customer_whatsapp',
      'address',
      'item_description',
    ];
    const national = [
      ['PH-2', 'Beto', '987 654 321', '', 'Av. 2', 'Box'],
      // The digits of a number cell whose "+" Excel dropped.
      ['PH-3', 'Ciro', '51987111222', '', 'Av. 3', 'Box'],
      ['PH-4', 'Dora', '0051 987 111 333', '', 'Av. 4', 'Box'],
    ];
    const spaced = ['PH-1', 'Ana', '+51 987 654 321', '+51-911-222-333', 'Av. 1', 'Box'];
    // No country yet: the international numbers read; the national ones are refused as the API refuses them.
    const before = await run(csv([head, spaced, ...national]), 'text/csv', '', own.test);
    expect(before).toMatchObject({ created: 1, failed: 3 });
    expect(before.errors.map((e: { row: number; param: string }) => [e.row, e.param])).toEqual([
      [3, 'customer.phone'],
      [4, 'customer.phone'],
      [5, 'customer.phone'],
    ]);
    const [a] = await orderBy('PH-1', own.test);
    expect(a.customer).toMatchObject({ phone: '+51987654321', whatsapp: '+51911222333' });

    const api = client(t.app, own.test);
    const wrong = await api('PUT', '/v1/notification_settings', { default_country: 'XX' });
    expect(wrong.status).toBe(422);
    expect(wrong.body.error).toMatchObject({ code: 'parameter_invalid', param: 'default_country' });
    expect((await api('PUT', '/v1/notification_settings', { default_country: 'PE' })).status).toBe(200);
    const after = await run(csv([head, ...national]), 'text/csv', '', own.test);
    expect(after, JSON.stringify(after.errors)).toMatchObject({ created: 3, failed: 0 });
    const phones = await Promise.all(
      ['PH-2', 'PH-3', 'PH-4'].map(async (x) => (await orderBy(x, own.test))[0].customer.phone),
    );
    expect(phones).toEqual(['+51987654321', '+51987111222', '+51987111333']);
    // Another account's country is its own: the first account still reads none.
    expect((await client(t.app, m.test)('GET', '/v1/notification_settings')).body.default_country).toBeNull();
  });

  it('rejects a row exactly as POST /v1/orders rejects the same order (same code, param, message)', async () => {
    const head = ['customer_name', 'address', 'customer_phone', 'item_description', 'item_declared_value'];
    const done = await run(
      csv([head, ['Ana', 'Av. 1', '+51abc', 'Box', 1], ['Ana', 'Av. 1', '+51987654321', 'Box', '1.001']]),
    );
    const api = client(t.app, m.test);
    const viaApi = [
      await api('POST', '/v1/orders', {
        customer: { name: 'Ana', phone: '+51abc' },
        delivery_address: { address: 'Av. 1' },
        items: [{ description: 'Box', declared_value: 1 }],
      }),
      await api('POST', '/v1/orders', {
        customer: { name: 'Ana', phone: '+51987654321' },
        delivery_address: { address: 'Av. 1' },
        items: [{ description: 'Box', declared_value: 1.001 }],
      }),
    ];
    viaApi.forEach((res, i) => {
      expect(res.status).toBe(422);
      const { code, param, message } = res.body.error;
      expect(done.errors[i]).toMatchObject({ row: i + 2, code, param, message });
    });
  });

  it('groups consecutive rows with the same external_order_id into one order with several items', async () => {
    const head = [
      'external_order_id',
      'customer_name',
      'address',
      'item_sku',
      'item_description',
      'item_quantity',
      'item_weight_kg',
    ];
    const done = await run(
      csv([
        head,
        ['M-1', 'Ana', 'Av. 1', 'S1', 'Shoes', 2, 1.25],
        ['M-1', '', '', 'S2', 'Socks', 1, 0.1],
        ['M-1', '', '', 'S3', 'Hat', 1, 0.3],
        ['M-2', 'Luis', 'Av. 2', 'S1', 'Shoes', 1, 1.25],
        ['M-1', 'Ana', 'Av. 1', 'S9', 'Later', 1, 1],
      ]),
    );
    expect(done).toMatchObject({ status: 'succeeded', total_rows: 5, created: 3, failed: 0 });
    const m1 = (await orderBy('M-1')).sort(
      (a: { items: unknown[] }, b: { items: unknown[] }) => b.items.length - a.items.length,
    );
    // Not consecutive: the last M-1 row is an order of its own.
    expect(m1).toHaveLength(2);
    expect(m1[0]).toMatchObject({
      items: [{ sku: 'S1', quantity: 2 }, { sku: 'S2' }, { sku: 'S3' }],
      weight_kg: 2.9,
      packages: 4,
      customer: { name: 'Ana' },
    });
  });

  it('reads XLSX written by a library: numbers, booleans, date cells, the first sheet', async () => {
    const file = await xlsx([
      [
        'external_order_id',
        'customer.name',
        'delivery_address.address',
        'lat',
        'lng',
        'is_urgent',
        'requested_date',
        'priority',
        'item_description',
        'item_quantity',
      ],
      [
        'X-1',
        'Ana',
        'Av. 1',
        -12.1,
        -77.03,
        true,
        { value: new Date(Date.UTC(2026, 5, 30)), format: 'yyyy-mm-dd' },
        3,
        'Box',
        2,
      ],
      ['X-2', 'Luis', 'Av. 2', null, null, false, '2026-07-01', 1, 'Bag', 1],
    ]);
    const done = await run(file, XLSX);
    expect(done, JSON.stringify(done.errors)).toMatchObject({ status: 'succeeded', created: 2, failed: 0 });
    expect((await orderBy('X-1'))[0]).toMatchObject({
      delivery_address: { lat: -12.1, lng: -77.03 },
      is_urgent: true,
      priority: 3,
      requested_date: '2026-06-30T00:00:00Z',
      items: [{ description: 'Box', quantity: 2 }],
    });
    expect((await orderBy('X-2'))[0]).toMatchObject({ is_urgent: false, requested_date: '2026-07-01T00:00:00Z' });
  });

  it('reads merged order cells as one order, and formulas as their computed values', async () => {
    const merged = await xlsx([
      ['external_order_id', 'customer_name', 'address', 'item_description', 'item_quantity'],
      [{ value: 'MG-1', rowSpan: 2 }, { value: 'Ana', rowSpan: 2 }, { value: 'Av. 1', rowSpan: 2 }, 'Shoes', 1],
      [null, null, null, 'Socks', 3],
    ]);
    const done = await run(merged, XLSX);
    expect(done, JSON.stringify(done.errors)).toMatchObject({ status: 'succeeded', created: 1, total_rows: 2 });
    expect((await orderBy('MG-1'))[0].items).toEqual([
      { description: 'Shoes', quantity: 1 },
      { description: 'Socks', quantity: 3 },
    ]);
    // test/fixtures/formulas.xlsx: quantity =1+2, weight =0.5*3, cash on delivery =E2*10. Written by
    // write-excel-file, whose formula cells carry no computed value, with the <v> a spreadsheet
    // application would store added to sheet1.xml by hand (what Excel saves, and all a reader sees).
    const formulas = await run(readFileSync(new URL('./fixtures/formulas.xlsx', import.meta.url)), XLSX);
    expect(formulas, JSON.stringify(formulas.errors)).toMatchObject({ status: 'succeeded', created: 1 });
    expect((await orderBy('F-1'))[0]).toMatchObject({
      items: [{ description: 'Box', quantity: 3, weight_kg: 1.5 }],
      cash_on_delivery: 30,
    });
  });

  it('all_or_nothing: one bad row and nothing is created; all good and everything is', async () => {
    const bad = await run(
      csv([HEADER, good(101), good(102), [...good(103).slice(0, 2), 'bad-phone', ...good(103).slice(3)]]),
      'text/csv',
      'mode=all_or_nothing',
    );
    expect(bad).toMatchObject({ status: 'failed', mode: 'all_or_nothing', created: 0, failed: 1, processed_rows: 3 });
    expect(bad.errors).toEqual([
      {
        row: 4,
        column: 'customer_phone',
        param: 'customer.phone',
        code: 'parameter_invalid',
        message: expect.any(String),
      },
    ]);
    expect(bad.failure_message).toContain('all_or_nothing');
    for (const ext of ['EXT-101', 'EXT-102', 'EXT-103']) expect(await orderBy(ext)).toHaveLength(0);
    const ok = await run(csv([HEADER, good(104), good(105)]), 'text/csv', 'mode=all_or_nothing');
    expect(ok).toMatchObject({ status: 'succeeded', created: 2, failed: 0 });
    expect(await orderBy('EXT-105')).toHaveLength(1);
  });

  it('failed_rows.csv: the rejected rows as uploaded plus an error column, and it uploads again once fixed', async () => {
    const head = ['Order', 'Name', 'Phone', 'Street'];
    const done = await run(
      csv([
        head,
        ['FR-1', 'Ana', '+51987654321', 'Av. 1'],
        ['FR-2', 'Núñez, José', '12', 'Av. 2'],
        ['FR-3', '', '', 'Av. 3'],
      ]),
    );
    expect(done).toMatchObject({ created: 1, failed: 2 });
    const res = await get(`/v1/order_imports/${done.id}/failed_rows.csv`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toContain('text/csv');
    expect(res.headers['content-disposition']).toContain('attachment');
    const text = res.raw.body;
    expect(text.charCodeAt(0)).toBe(0xfeff);
    const lines = text.slice(1).trimEnd().split('\r\n');
    expect(lines[0]).toBe('Order,Name,Phone,Street,error');
    expect(lines[1]).toMatch(/^FR-2,"Núñez, José",12,Av\. 2,"?Row 3 \(column Phone\): Invalid customer\.phone/);
    expect(lines[2]).toMatch(/^FR-3,,,Av\. 3,"?Row 4 \(column Name\): Missing required parameter: customer\.name/);
    expect(lines).toHaveLength(3);
    // Fixed in a spreadsheet and uploaded as it is, error column included.
    const fixed = text.replace(',12,', ',+51911111111,').replace('FR-3,,', 'FR-3,Eva,');
    const again = await run(fixed);
    expect(again, JSON.stringify(again.errors)).toMatchObject({ status: 'succeeded', created: 2, failed: 0 });
  });

  it('failed_rows.csv of a `;` file is `;`-separated (BOM, error column, decimal commas) and uploads again as it is; an .xlsx one is comma-separated', async () => {
    const head = ['Pedido', 'Nombre', 'Dirección', 'Latitud', 'Longitud', 'Producto', 'Peso', 'Contra entrega'];
    const rows = [
      head,
      ['SC-1', 'Ana', 'Av. 1', '-12,05', '-77,04', 'Caja', '2,5', '10,5'],
      ['SC-2', '', 'Jr. Cañete 5; Lima', '-12,06', '-77,03', 'Caja', '1,25', '99,90'],
    ];
    const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(csv(rows, ';'))]);
    const done = await run(body);
    expect(done).toMatchObject({ created: 1, failed: 1 });
    const text: string = (await get(`/v1/order_imports/${done.id}/failed_rows.csv`)).raw.body;
    expect(text.charCodeAt(0)).toBe(0xfeff);
    const lines = text.slice(1).trimEnd().split('\r\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toBe('Pedido;Nombre;Dirección;Latitud;Longitud;Producto;Peso;Contra entrega;error');
    // A cell holding either separator is quoted: a decimal comma too, which spreadsheets still read as a number.
    expect(lines[1]).toBe(
      'SC-2;;"Jr. Cañete 5; Lima";"-12,06";"-77,03";Caja;"1,25";"99,90";Row 3 (column Nombre): Missing required parameter: customer.name.',
    );
    // Fixed in a spreadsheet (the name filled in) and uploaded as it is, error column included.
    const again = await run(text.replace('SC-2;;', 'SC-2;Eva;'));
    expect(again, JSON.stringify(again.errors)).toMatchObject({ status: 'succeeded', created: 1, failed: 0 });
    const [o] = await orderBy('SC-2');
    expect(o).toMatchObject({
      customer: { name: 'Eva' },
      delivery_address: { address: 'Jr. Cañete 5; Lima', lat: -12.06, lng: -77.03 },
      items: [{ description: 'Caja', weight_kg: 1.25 }],
      cash_on_delivery: 99.9,
    });

    // A workbook has no separator of its own: its failed rows come back with commas.
    const book = await xlsx([head, ['SC-3', '', 'Av. 3', -12.07, -77.02, 'Caja', 2.5, 10.5]]);
    const fromBook = await run(book, XLSX);
    expect(fromBook).toMatchObject({ created: 0, failed: 1 });
    const bookText: string = (await get(`/v1/order_imports/${fromBook.id}/failed_rows.csv`)).raw.body;
    expect(bookText.slice(1).split('\r\n').slice(0, 2)).toEqual([
      'Pedido,Nombre,Dirección,Latitud,Longitud,Producto,Peso,Contra entrega,error',
      'SC-3,,Av. 3,-12.07,-77.02,Caja,2.5,10.5,Row 2 (column Nombre): Missing required parameter: customer.name.',
    ]);
  });

  it('templates: CSV and XLSX with every column, and each imports as one order with two items', async () => {
    const tcsv = await get('/v1/order_imports/template.csv');
    expect(tcsv.status).toBe(200);
    expect(tcsv.headers['content-type']).toContain('text/csv');
    const header = tcsv.raw.body.slice(1).split('\r\n')[0];
    expect(header.split(',')).toContain('item_declared_value');
    expect(header.split(',')).toHaveLength(43);
    const txlsx = await get('/v1/order_imports/template.xlsx');
    expect(txlsx.status).toBe(200);
    expect(txlsx.headers['content-type']).toBe(XLSX);
    for (const [body, type] of [
      [tcsv.raw.body, 'text/csv'],
      [txlsx.raw.rawPayload, XLSX],
    ] as const) {
      const done = await run(body, type);
      expect(done, JSON.stringify(done.errors)).toMatchObject({ status: 'succeeded', created: 1, total_rows: 2 });
    }
    const orders = await orderBy('ORD-1001');
    expect(orders).toHaveLength(2);
    expect(orders[0].items).toHaveLength(2);
  });

  it('lists imports newest first with keyset pages; an unknown cursor is 422', async () => {
    const n = await newMerchant(t, 'Lister');
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await upload(t, n.test, csv([HEADER, good(200 + i)]))).body.id);
    const p1 = await get('/v1/order_imports?limit=2', n.test);
    expect(p1.body.data.map((x: { id: string }) => x.id)).toEqual([ids[2], ids[1]]);
    expect(p1.body.has_more).toBe(true);
    const p2 = await get(`/v1/order_imports?limit=2&starting_after=${ids[1]}`, n.test);
    expect(p2.body.data.map((x: { id: string }) => x.id)).toEqual([ids[0]]);
    expect(p2.body.has_more).toBe(false);
    const bad = await get('/v1/order_imports?starting_after=imp_nope', n.test);
    expect([bad.status, bad.body.error.param]).toEqual([422, 'starting_after']);
    await drain(t);
  });

  it('isolation: another account and the other environment never see an import; operator keys must name the account; no key 401', async () => {
    const b = await newMerchant(t, 'B');
    const op = await newOperator(t, 'test');
    const mine = await run(csv([HEADER, good(300), ['EXT-301', '', '', '', '', '', '']]));
    for (const key of [b.test, b.live, m.live]) {
      for (const path of [`/v1/order_imports/${mine.id}`, `/v1/order_imports/${mine.id}/failed_rows.csv`]) {
        const res = await get(path, key);
        expect([res.status, res.body.error?.code], path).toEqual([404, 'resource_missing']);
      }
      const list = await get('/v1/order_imports?limit=100', key);
      expect(list.status).toBe(200);
      expect(list.body.data.map((x: { id: string }) => x.id)).not.toContain(mine.id);
    }
    // B's orders: none of A's imported orders.
    expect(await orderBy('EXT-300', b.test)).toHaveLength(0);
    expect(await orderBy('EXT-300', m.live)).toHaveLength(0);
    for (const [method, path] of [
      ['POST', '/v1/order_imports'],
      ['GET', '/v1/order_imports'],
      ['GET', `/v1/order_imports/${mine.id}`],
      ['GET', `/v1/order_imports/${mine.id}/failed_rows.csv`],
      ['GET', '/v1/order_imports/template.csv'],
      ['GET', '/v1/order_imports/template.xlsx'],
    ] as const) {
      const body = method === 'POST' ? csv([HEADER, good(1)]) : undefined;
      const headers = method === 'POST' ? { 'content-type': 'text/csv' } : undefined;
      // Operator keys import on behalf of a merchant they name (test/imports-on-behalf.test.ts):
      // without `account`, only the templates answer.
      const res = await client(t.app, op)(method, path, body, headers);
      if (path.includes('template')) expect(res.status, path).toBe(200);
      else expect([res.status, res.body.error?.code], path).toEqual([422, 'parameter_missing']);
      const anon = await client(t.app)(method, path, body, headers);
      expect(anon.status, path).toBe(401);
    }
    // A live import makes live orders, invisible to the test key.
    const live = await run(csv([HEADER, good(310)]), 'text/csv', '', m.live);
    expect(live).toMatchObject({ livemode: true, created: 1 });
    expect(await orderBy('EXT-310', m.live)).toHaveLength(1);
    expect(await orderBy('EXT-310', m.test)).toHaveLength(0);
  });

  it('resumes after a crash mid-import without creating any order twice', async () => {
    const rows = Array.from({ length: 7 }, (_, i) => good(400 + i));
    const res = await upload(t, m.test, csv([HEADER, ...rows]));
    // The first worker dies right after committing its first batch (2 rows), holding its lease.
    await expect(
      drain(t, {
        batchRows: 2,
        onProgress: () => {
          throw new Error('kill -9');
        },
      }),
    ).rejects.toThrow('kill -9');
    const mid = (await get(`/v1/order_imports/${res.body.id}`)).body;
    expect(mid).toMatchObject({ status: 'processing', processed_rows: 2, created: 2 });
    // A second worker cannot take it while the lease is live…
    const second = await drain(t, { batchRows: 2 });
    expect(second).toBeDefined();
    expect((await get(`/v1/order_imports/${res.body.id}`)).body.processed_rows).toBe(2);
    // …and finishes it once the lease has lapsed.
    const later = { ctx: { ...t.ctx, clock: () => Date.now() + 120_000 } };
    await drain(later, { batchRows: 2 });
    const done = (await get(`/v1/order_imports/${res.body.id}`)).body;
    expect(done).toMatchObject({ status: 'succeeded', processed_rows: 7, created: 7, failed: 0 });
    for (let i = 0; i < 7; i++) expect(await orderBy(`EXT-${400 + i}`), `EXT-${400 + i}`).toHaveLength(1);
  });
});
