import { afterAll, beforeAll, expect, it } from 'vitest';
import { client, describeEach, type Merchant, newMerchant, startApp, type TestApp } from './helpers.js';
import { csv, imported, withImportBefore } from './imports-helpers.js';

/** A row reports every cell that is wrong, so one round of fixes is enough. */
describeEach('order import errors, every one of a row', (engine) => {
  let t: TestApp;
  let m: Merchant;
  beforeAll(async () => {
    t = await startApp(engine);
    m = await newMerchant(t);
  });
  afterAll(async () => t?.close());

  const get = (path: string, key = m.test) => client(t.app, key)('GET', path);
  const run = (body: string) => imported(t, m.test, body);
  type Shown = { row: number; column: string | null; param: string | null; code: string; message: string };
  const HEAD = ['Pedido', 'Fecha', 'COD', 'Nombre', 'Teléfono', 'Email', 'Dirección', 'Producto', 'Cantidad'];

  it('lists every wrong cell of a row in the order of the columns, and counts the row once', async () => {
    const done = await run(
      csv([
        HEAD,
        ['E-1', '31/02/2026', 'abc', '', '12', 'nope', 'Av. 1', 'Caja', 1], // 2: five problems
        ['E-2', '', '', 'Ana', '+51987654321', '', 'Av. 2', 'Caja', 1], // 3: fine
        ['E-3', '', '', 'Eva', '+51987654322', '', 'Av. 3', 'Caja', 1], // 4: its order's row 5 is wrong
        ['E-3', '', '', '', '', '', '', 'Bolsa', 0], // 5
      ]),
    );
    expect(done).toMatchObject({ status: 'succeeded', created: 1, failed: 3 });
    const shown = (done.errors as Shown[]).map((e) => [e.row, e.column, e.param, e.code]);
    expect(shown).toEqual([
      [2, 'Fecha', 'requested_date', 'parameter_invalid'],
      [2, 'COD', 'cash_on_delivery', 'parameter_invalid'],
      [2, 'Nombre', 'customer.name', 'parameter_missing'],
      [2, 'Teléfono', 'customer.phone', 'parameter_invalid'],
      [2, 'Email', 'customer.email', 'parameter_invalid'],
      [5, 'Cantidad', 'items[1].quantity', 'parameter_invalid'],
    ]);
    expect(done.errors[0].message).toBe(
      'Invalid requested_date: "31/02/2026", read as day/month/year, is no day of the calendar.',
    );
    // Each message is the one POST /v1/orders gives when that field alone is wrong.
    const api = client(t.app, m.test);
    const alone = await api('POST', '/v1/orders', {
      customer: { name: 'Ana', email: 'nope' },
      delivery_address: { address: 'Av. 1' },
      items: [{ description: 'Caja' }],
    });
    expect(alone.status).toBe(422);
    expect(done.errors[4]).toMatchObject({ code: alone.body.error.code, message: alone.body.error.message });
    expect((await get('/v1/orders?external_order_id=E-1')).body.data).toHaveLength(0);
    expect((await get('/v1/orders?external_order_id=E-3')).body.data).toHaveLength(0);
  });

  it('failed_rows.csv holds all of a row’s errors in its error cell, and the fixed file imports', async () => {
    const done = await run(
      csv([
        HEAD,
        ['F-1', '', 'abc', '', '+51987654321', 'nope', 'Av. 1', 'Caja', 1],
        ['F-2', '', '', 'Luis', '+51987654321', '', 'Av. 2', 'Caja', 'two'],
      ]),
    );
    expect(done).toMatchObject({ created: 0, failed: 2 });
    expect(done.errors).toHaveLength(4);
    const text: string = (await get(`/v1/order_imports/${done.id}/failed_rows.csv`)).raw.body;
    expect(text.slice(1)).toContain(
      [
        '"Row 2 (column COD): Invalid cash_on_delivery: must be a number (got ""abc"").',
        'Row 2 (column Nombre): Missing required parameter: customer.name.',
        'Row 2 (column Email): Invalid customer.email',
      ].join('\n'),
    );
    expect(text).toContain('Row 3 (column Cantidad): Invalid items[0].quantity');
    const fixed = text.replace(',abc,,', ',,Ana,').replace(',nope,', ',ana@example.com,').replace(',two,', ',2,');
    const again = await run(fixed);
    expect(again, JSON.stringify(again.errors)).toMatchObject({ status: 'succeeded', created: 2, failed: 0 });
  });

  it('lists the service’s rules on the row alone too; what needs more is asked only of a row without other problems', async () => {
    const done = await run(
      csv([
        ['Nombre', 'Dirección', 'COD', 'Desde', 'Hasta', 'Producto', 'Valor', 'Recojo'],
        ['Ana', 'Av. 1', '1.234', '14:00', '10:00', 'Caja', '1.001', ''], // 2: three rules broken
        ['Eva', 'Av. 2', '1.234', '', '', 'Caja', '', 'Jr. Sin Coordenadas 9'], // 3: the decimals only
        ['Luz', 'Av. 3', '', '', '', 'Caja', '', 'Jr. Sin Coordenadas 9'], // 4: the pickup
      ]),
    );
    expect(done).toMatchObject({ created: 0, failed: 3 });
    const shown = (done.errors as Shown[]).map((e) => [e.row, e.column, e.param]);
    expect(shown).toEqual([
      [2, 'COD', 'cash_on_delivery'],
      [2, 'Hasta', 'time_window.end'],
      [2, 'Valor', 'items[0].declared_value'],
      [3, 'COD', 'cash_on_delivery'],
      [4, 'Recojo', 'pickup_address'],
    ]);
    // Each as POST /v1/orders words it when that field alone is wrong.
    const api = client(t.app, m.test);
    const alone = async (extra: Record<string, unknown>, items = [{ description: 'Caja' }]) =>
      (
        await api('POST', '/v1/orders', {
          customer: { name: 'Ana' },
          delivery_address: { address: 'Av. 1' },
          items,
          ...extra,
        })
      ).body.error;
    const expected = [
      await alone({ cash_on_delivery: 1.234 }),
      await alone({ time_window: { start: '14:00', end: '10:00' } }),
      await alone({}, [{ description: 'Caja', declared_value: 1.001 } as never]),
      await alone({ cash_on_delivery: 1.234 }),
      await alone({ pickup_address: { address: 'Jr. Sin Coordenadas 9' } }),
    ];
    expected.forEach((e, i) => {
      expect(done.errors[i]).toMatchObject({ code: e.code, param: e.param, message: e.message });
    });
  });

  it('says what a cell it could not read must be, with what it got; the codes and params are the API’s, whose own words stay', async () => {
    const head = [
      'Nombre',
      'Dirección',
      'Latitud',
      'Prioridad',
      'Urgente',
      'Fecha',
      'Desde',
      'Hasta',
      'Producto',
      'Cantidad',
      'Peso',
    ];
    const done = await run(
      csv([
        head,
        ['Ana', 'Av. 1', 'abc', 'two', 'maybe', 'tomorrow', '9am', '10:00', 'Caja', '1.5', 'x'], // 2
        ['Eva', 'Av. 2', '', '1.5', '2', '2026-02-30', '25:00', '12:00', 'Caja', '', ''], // 3
        ['Luz', 'Av. 3', '', '', '', '', '', '', 'Caja', 'dos', ''], // 4
      ]),
    );
    expect(done).toMatchObject({ created: 0, failed: 3 });
    expect((done.errors as Shown[]).map((e) => [e.row, e.column, e.param, e.code, e.message])).toEqual([
      [
        2,
        'Latitud',
        'delivery_address.lat',
        'parameter_invalid',
        'Invalid delivery_address.lat: must be a number (got "abc").',
      ],
      [2, 'Prioridad', 'priority', 'parameter_invalid', 'Invalid priority: must be a whole number (got "two").'],
      [2, 'Urgente', 'is_urgent', 'parameter_invalid', 'Invalid is_urgent: must be true or false (got "maybe").'],
      [
        2,
        'Fecha',
        'requested_date',
        'parameter_invalid',
        'Invalid requested_date: must be a date like 2026-12-24 (got "tomorrow").',
      ],
      // The end is a fine time: no "must be after time_window.start (9am)" beside the start's error.
      [
        2,
        'Desde',
        'time_window.start',
        'parameter_invalid',
        'Invalid time_window.start: must be a time like 09:30 (got "9am").',
      ],
      [
        2,
        'Cantidad',
        'items[0].quantity',
        'parameter_invalid',
        'Invalid items[0].quantity: must be a whole number (got "1.5").',
      ],
      [2, 'Peso', 'items[0].weight_kg', 'parameter_invalid', 'Invalid items[0].weight_kg: must be a number (got "x").'],
      [3, 'Prioridad', 'priority', 'parameter_invalid', 'Invalid priority: must be a whole number (got "1.5").'],
      [3, 'Urgente', 'is_urgent', 'parameter_invalid', 'Invalid is_urgent: must be true or false (got "2").'],
      [
        3,
        'Fecha',
        'requested_date',
        'parameter_invalid',
        'Invalid requested_date: must be a date like 2026-12-24 (got "2026-02-30").',
      ],
      [
        3,
        'Desde',
        'time_window.start',
        'parameter_invalid',
        'Invalid time_window.start: must be a time like 09:30 (got "25:00").',
      ],
      [
        4,
        'Cantidad',
        'items[0].quantity',
        'parameter_invalid',
        'Invalid items[0].quantity: must be a whole number (got "dos").',
      ],
    ]);

    // POST /v1/orders with the same values: the same code and param, in the API's own words, unchanged.
    const api = client(t.app, m.test);
    const alone = async (extra: Record<string, unknown>, item: Record<string, unknown> = {}) =>
      (
        await api('POST', '/v1/orders', {
          customer: { name: 'Ana' },
          delivery_address: { address: 'Av. 1' },
          items: [{ description: 'Caja', ...item }],
          ...extra,
        })
      ).body.error;
    const viaApi = [
      await alone({ delivery_address: { address: 'Av. 1', lat: 'abc' } }),
      await alone({ priority: 'two' }),
      await alone({ is_urgent: 'maybe' }),
      await alone({ requested_date: 'tomorrow' }),
      await alone({ time_window: { start: '9am', end: '10:00' } }),
      await alone({}, { quantity: 1.5 }),
      await alone({}, { weight_kg: 'x' }),
    ];
    expect(viaApi.map((e) => [e.code, e.param, e.message])).toEqual([
      ['parameter_invalid', 'delivery_address.lat', 'Invalid delivery_address.lat: must be of type number.'],
      ['parameter_invalid', 'priority', 'Invalid priority: must be of type integer.'],
      ['parameter_invalid', 'is_urgent', 'Invalid is_urgent: must be of type boolean.'],
      [
        'parameter_invalid',
        'requested_date',
        'Invalid requested_date: must be a date-time with offset (an instant, e.g. 2026-11-25T09:00:00-05:00) or a date YYYY-MM-DD (a calendar day in the order’s time zone).',
      ],
      [
        'parameter_invalid',
        'time_window.start',
        'Invalid time_window.start: must be a time of day, HH:mm from 00:00 to 23:59.',
      ],
      ['parameter_invalid', 'items[0].quantity', 'Invalid items[0].quantity: must be of type integer.'],
      ['parameter_invalid', 'items[0].weight_kg', 'Invalid items[0].weight_kg: must be of type number.'],
    ]);
    viaApi.forEach((e, i) => {
      expect(done.errors[i]).toMatchObject({ code: e.code, param: e.param });
    });
    // The API still checks a window's order once both ends are times.
    expect(await alone({ time_window: { start: '14:00', end: '10:00' } })).toMatchObject({
      param: 'time_window.end',
      message: 'Invalid time_window.end: must be after time_window.start (14:00).',
    });
  });

  it('an import from before the upgrade keeps its errors, each the first of its row', async () => {
    await withImportBefore(engine, '035_orders_courier_updated', { failed_rows: 1 }, async (db, upgrade) => {
      await db
        .insertInto('order_import_errors')
        .values({ import_id: 'imp_1', row: 2, code: 'parameter_missing', message: 'Missing.' } as never)
        .execute();
      expect(await upgrade()).toContain('036_import_errors_per_field');
      const rows = await db.selectFrom('order_import_errors').selectAll().execute();
      expect(rows).toEqual([
        {
          import_id: 'imp_1',
          row: 2,
          seq: 0,
          cause_row: null,
          column: null,
          param: null,
          code: 'parameter_missing',
          message: 'Missing.',
        },
      ]);
      // The key is now (import, row, seq): a second error of the same row is stored beside the first.
      await db
        .insertInto('order_import_errors')
        .values({ import_id: 'imp_1', row: 2, seq: 1, code: 'parameter_invalid', message: 'Bad.' })
        .execute();
      await expect(
        db
          .insertInto('order_import_errors')
          .values({ import_id: 'imp_1', row: 2, seq: 1, code: 'x', message: 'y' })
          .execute(),
      ).rejects.toThrow();
    });
  });
});
