import { expect, it } from 'vitest';
import { client, describeEach, useApp, useMerchant, useOperator, validOrder } from './helpers.js';
import { tinyPng, upload } from './lifecycle-helpers.js';
import { decodeBarcodes, readPdf } from './pdf-reader.js';
import { courierSession, sessionClient } from './people-helpers.js';

const PDF_TYPE = 'application/pdf';

describeEach('labels and the loading scan', (engine) => {
  const t = useApp(engine);
  const m = useMerchant(t, 'Tienda Sol');
  const other = useMerchant(t, 'Other');
  const op = useOperator(t);

  /** Two orders of the merchant on a new route of a new carrier courier, and that courier's phone. */
  async function routed() {
    const call = client(t.app, op.key);
    const first = (await client(t.app, m.test)('POST', '/v1/orders', validOrder())).body;
    const second = (
      await client(t.app, m.test)(
        'POST',
        '/v1/orders',
        validOrder({
          customer: { name: 'Zoë Łukasz Šťastný 王', phone: '+51987000222' },
          delivery_address: { address: 'Jr. Unión 45', city: 'Lima', reference: 'Puerta azul' },
          cash_on_delivery: 0,
        }),
      )
    ).body;
    const courier = (await call('POST', '/v1/couriers', { name: 'Luis' })).body;
    const route = (await call('POST', '/v1/routes', { courier_id: courier.id, order_ids: [first.id, second.id] })).body;
    expect(route.id).toMatch(/^rte_/);
    const phone = sessionClient(t, await courierSession(t, op.key, courier.id));
    return { first, second, courier, route, phone };
  }

  it('prints an order label: 10 × 15 cm, name, address, COD, merchant, QR and Code 128 of the tracking code', async () => {
    const order = (await client(t.app, m.test)('POST', '/v1/orders', validOrder())).body;
    const res = await client(t.app, m.test)('GET', `/v1/orders/${order.id}/label.pdf`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(PDF_TYPE);
    expect(res.headers['content-disposition']).toBe(`inline; filename="label-${order.tracking_code}.pdf"`);
    const pages = readPdf(res.raw.rawPayload);
    expect(pages).toHaveLength(1);
    const [page] = pages;
    expect(page?.width).toBeCloseTo(283.46, 2);
    expect(page?.height).toBeCloseTo(425.2, 2);
    for (const text of ['Tienda Sol', 'Ana Torres', 'Av. Larco 123', 'Miraflores, Lima', 'Collect USD 120.50']) {
      expect(page?.text).toContain(text);
    }
    expect(page?.text).toContain(order.tracking_code);
    expect(page?.text).not.toContain('STOP');
    const codes = await decodeBarcodes(page!);
    expect(codes).toEqual(
      expect.arrayContaining([
        { format: 'QRCode', text: order.tracking_code },
        { format: 'Code128', text: order.tracking_code },
      ]),
    );
    // By tracking code too, as GET /v1/orders/{id} reads it.
    expect((await client(t.app, m.test)('GET', `/v1/orders/${order.tracking_code}/label.pdf`)).status).toBe(200);
    // Another merchant's key: the order does not exist for it.
    const foreign = await client(t.app, other.test)('GET', `/v1/orders/${order.id}/label.pdf`);
    expect(foreign.status).toBe(404);
    expect(foreign.headers['content-type']).toMatch(/^application\/json/);
    expect((await client(t.app, m.live)('GET', `/v1/orders/${order.id}/label.pdf`)).status).toBe(404);
  });

  it("prints a route's labels in stop order with stop numbers; the route's courier may, another may not", async () => {
    const { first, second, courier, route, phone } = await routed();
    for (const call of [client(t.app, op.key), phone]) {
      const res = await call('GET', `/v1/routes/${route.id}/labels.pdf`);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe(PDF_TYPE);
      expect(res.headers['content-disposition']).toBe(`inline; filename="labels-${route.id}.pdf"`);
    }
    const pages = readPdf((await phone('GET', `/v1/routes/${route.id}/labels.pdf`)).raw.rawPayload);
    expect(pages.map((p) => [p.width.toFixed(2), p.height.toFixed(2)])).toEqual([
      ['283.46', '425.20'],
      ['283.46', '425.20'],
    ]);
    expect(pages[0]?.text).toMatch(/STOP 1\nof 2/);
    expect(pages[0]?.text).toContain(first.tracking_code);
    expect(pages[1]?.text).toMatch(/STOP 2\nof 2/);
    // Outside Latin-1 the standard fonts have no glyph: accents lose their mark, the rest is '?'.
    expect(pages[1]?.text).toContain('Zoë Lukasz Stastný ?');
    expect(pages[1]?.text).toContain('Ref: Puerta azul');
    expect(pages[1]?.text).toContain('No cash to collect');
    expect((await decodeBarcodes(pages[1]!)).map((c) => c.text)).toEqual([second.tracking_code, second.tracking_code]);

    // Another courier's phone, merchants (the route is the carrier's), a live merchant key.
    expect((await client(t.app, m.test)('GET', `/v1/routes/${route.id}/labels.pdf`)).status).toBe(404);
    const stranger = (await client(t.app, op.key)('POST', '/v1/couriers', { name: 'Rosa' })).body;
    const strangerPhone = sessionClient(t, await courierSession(t, op.key, stranger.id));
    expect((await strangerPhone('GET', `/v1/routes/${route.id}/labels.pdf`)).status).toBe(404);
    expect((await strangerPhone('GET', `/v1/orders/${first.id}/label.pdf`)).status).toBe(404);
    expect((await client(t.app, other.test)('GET', `/v1/routes/${route.id}/labels.pdf`)).status).toBe(404);
    expect((await client(t.app, m.live)('GET', `/v1/routes/${route.id}/labels.pdf`)).status).toBe(403);
    expect((await client(t.app, op.key)('GET', '/v1/routes/rte_nope/labels.pdf')).status).toBe(404);
    expect(courier.id).toMatch(/^cou_/);
  });

  it('a reprint mid-day leaves out delivered parcels and keeps the stop numbers; with none left, 409', async () => {
    const { first, second, route } = await routed();
    const call = client(t.app, op.key);
    const signature = (await upload(t, op.key, 'signature', tinyPng(4))).body.id;
    for (const move of ['pickup', 'depart', 'deliver']) {
      const body =
        move === 'deliver'
          ? { receiver_name: 'Ana', signature_file: signature, collected_amount: 120.5, payment_method: 'cash' }
          : {};
      const res = await call('POST', `/v1/orders/${first.id}/${move}`, body);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
    const pages = readPdf((await call('GET', `/v1/routes/${route.id}/labels.pdf`)).raw.rawPayload);
    expect(pages).toHaveLength(1);
    expect(pages[0]?.text).toContain(second.tracking_code);
    expect(pages[0]?.text).toMatch(/STOP 2\nof 2/);
    expect((await call('POST', `/v1/orders/${second.id}/cancel`, {})).status).toBe(200);
    const none = await call('GET', `/v1/routes/${route.id}/labels.pdf`);
    expect(none.status).toBe(409);
    expect(none.body.error.message).toContain('no parcels left to deliver');
  });

  it('a scan loads the parcel once, leaves its status, and shows on the route as loaded or missing', async () => {
    const { first, second, route, phone } = await routed();
    const loaded = await phone('POST', `/v1/orders/${first.id}/load`);
    expect(loaded.status).toBe(200);
    expect(loaded.body).toMatchObject({ object: 'order', id: first.id, status: 'assigned', route: route.id });
    expect(loaded.body.loaded_at).toMatch(/^\d{4}-/);
    // A second scan (or the phone's queue resending) keeps the first time.
    expect((await phone('POST', `/v1/orders/${first.id}/load`)).body.loaded_at).toBe(loaded.body.loaded_at);
    const read = (await client(t.app, op.key)('GET', `/v1/routes/${route.id}`)).body;
    expect(read.stops.map((s: { loaded_at: string | null }) => s.loaded_at)).toEqual([loaded.body.loaded_at, null]);
    expect((await client(t.app, m.test)('GET', `/v1/orders/${second.id}`)).body.loaded_at).toBeNull();

    // A pending order is no courier's to load; another courier's phone does not see the order.
    const pending = (await client(t.app, m.test)('POST', '/v1/orders', validOrder())).body;
    const refused = await client(t.app, op.key)('POST', `/v1/orders/${pending.id}/load`);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('invalid_transition');
    const stranger = (await client(t.app, op.key)('POST', '/v1/couriers', { name: 'Rosa' })).body;
    const strangerPhone = sessionClient(t, await courierSession(t, op.key, stranger.id));
    expect((await strangerPhone('POST', `/v1/orders/${second.id}/load`)).status).toBe(404);
    expect((await client(t.app, other.test)('POST', `/v1/orders/${second.id}/load`)).status).toBe(404);
    expect((await client(t.app, m.live)('POST', `/v1/orders/${second.id}/load`)).status).toBe(403);
  });
});
