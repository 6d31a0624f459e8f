import { afterAll, beforeAll, expect, it } from 'vitest';
import { MESSAGE_TRIGGERS } from '../src/shared/db/tables/messages.js';
import { client, describeEach, newMerchant, startApp, type TestApp } from './helpers.js';
import { csv, imported } from './imports-helpers.js';

/** A row without any phone gets a warning when the account's customer messages go by SMS or WhatsApp (docs/imports.md). */
describeEach('order imports: rows without a phone', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(engine);
  });
  afterAll(async () => t?.close());

  type Line = { row: number; column: string | null; param: string | null; code: string; message: string };
  const lines = (imp: { warnings: Line[] }) => imp.warnings.map((w) => [w.row, w.column, w.param, w.code, w.message]);
  const NONE = 'no phone: the customer will get no delivery messages';
  const EMAIL = 'no phone: the customer will get delivery messages by email only, no SMS or WhatsApp';

  it('warns of a row with neither phone nor WhatsApp, out of the box (WhatsApp messages on), saying whether email still reaches the customer', async () => {
    const m = await newMerchant(t, 'Sin Teléfono');
    const head = ['Pedido', 'Nombre', 'Teléfono', 'WhatsApp', 'Email', 'Dirección', 'Producto'];
    const file = csv([
      head,
      ['NP-1', 'Ana', '', '', '', 'Av. 1', 'Caja'], // 2: nothing reaches her
      ['NP-2', 'Eva', '', '', 'eva@example.com', 'Av. 2', 'Caja'], // 3: email only
      ['NP-3', 'Luz', '', '+51987654321', '', 'Av. 3', 'Caja'], // 4: WhatsApp: fine
      ['NP-4', 'Sol', '+51987654322', '', '', 'Av. 4', 'Caja'], // 5: fine
      ['NP-5', 'Rai', '', '', '', 'Av. 5', 'Caja'], // 6: one order with row 7, one warning
      ['NP-5', '', '', '', '', '', 'Bolsa'], // 7
      ['NP-1', 'Ana', '', '', '', 'Av. 1', 'Caja'], // 8: two warnings
    ]);
    for (const key of [m.test, m.live]) {
      const done = await imported(t, key, file);
      expect(done).toMatchObject({ status: 'succeeded', created: 6, failed: 0 });
      expect(lines(done)).toEqual([
        [2, 'Teléfono', 'customer.phone', 'no_customer_phone', NONE],
        [3, 'Teléfono', 'customer.phone', 'no_customer_phone', EMAIL],
        [6, 'Teléfono', 'customer.phone', 'no_customer_phone', NONE],
        [
          8,
          'Pedido',
          'external_order_id',
          'duplicate_external_order_id',
          'external_order_id "NP-1" is also on row 2, above: this row starts another order with it (only rows one after another make one order).',
        ],
        [8, 'Teléfono', 'customer.phone', 'no_customer_phone', NONE],
      ]);
    }
  });

  it('warns of none when no moment sends SMS or WhatsApp, and again once one does; never of an order left out', async () => {
    const m = await newMerchant(t, 'Solo Email');
    const api = client(t.app, m.test);
    const off = Object.fromEntries(MESSAGE_TRIGGERS.map((tr) => [tr, { sms: false, whatsapp: false }]));
    expect((await api('PUT', '/v1/notification_settings', { triggers: off })).status).toBe(200);
    // No phone column at all.
    const file = csv([
      ['external_order_id', 'customer_name', 'address', 'item_description'],
      ['NE-1', 'Ana', 'Av. 1', 'Caja'],
    ]);
    const quiet = await imported(t, m.test, file);
    expect(quiet).toMatchObject({ created: 1, warnings: [] });

    // One moment by SMS: the row is warned of, with no column to point at.
    expect((await api('PUT', '/v1/notification_settings', { triggers: { failed: { sms: true } } })).status).toBe(200);
    const warned = await imported(t, m.test, file.replace('NE-1', 'NE-2'));
    expect(lines(warned)).toEqual([[2, null, 'customer.phone', 'no_customer_phone', NONE]]);

    // Left out with duplicates=skip: only the skip is told.
    const skipped = await imported(t, m.test, file, 'text/csv', 'duplicates=skip');
    expect(skipped).toMatchObject({ created: 0, skipped: 1 });
    expect(skipped.warnings.map((w: Line) => w.code)).toEqual(['duplicate_external_order_id']);
  });
});
