import { afterAll, beforeAll, expect, it } from 'vitest';
import { client, describeEach, type Merchant, newMerchant, startApp, type TestApp, validOrder } from './helpers.js';

describeEach('orders', (engine) => {
  let t: TestApp;
  let m: Merchant;
  let other: Merchant;

  beforeAll(async () => {
    t = await startApp(engine);
    m = await newMerchant(t, 'Acme', { originLat: -12.0464, originLng: -77.0428 });
    other = await newMerchant(t, 'Other');
  });
  afterAll(async () => t?.close());

  it('creates an order with computed fields and defaults', async () => {
    const res = await client(t.app, m.test)('POST', '/v1/orders', validOrder());
    expect(res.status).toBe(201);
    const o = res.body;
    expect(o.id).toMatch(/^ord_[0-9A-Z]{26}$/);
    expect(o.object).toBe('order');
    expect(o.tracking_code).toMatch(/^[0-9A-HJKMNP-TV-Z]{12}$/);
    expect(o.status).toBe('pending');
    expect(o.livemode).toBe(false);
    expect(o.weight_kg).toBe(2.6);
    expect(o.packages).toBe(3);
    expect(o.cash_on_delivery).toBe(120.5);
    expect(o.priority).toBe(1);
    expect(o.is_urgent).toBe(false);
    expect(o.requires_signature).toBe(true);
    expect(o.requires_photo).toBe(false);
    expect(o.currency).toBe('USD');
    expect(o.courier).toBeNull();
    expect(o.attempts).toBe(0);
    expect(o.items[1].quantity).toBe(1);
    // Default pricing, worked out by hand: great-circle distance from the account's origin
    // (-12.0464, -77.0428) to (-12.1211, -77.0297) is 8.4275 km; × 1.3 road factor = 10.9558 km;
    // × 0.50/km = 5.48. Base 5.00; weight 2.6 kg is within the 5 kg included; COD fee 1% of
    // 120.50 = 1.205 → 1.21. Total 5.00 + 5.48 + 1.21 = 11.69.
    expect(o.shipping_cost).toBe(11.69);
    expect(res.headers['request-id']).toMatch(/^req_/);
    expect(res.headers['service-version']).toBe('2025-07-01');
  });

  it('reads an order by id and by tracking code, case-insensitively', async () => {
    const call = client(t.app, m.test);
    const created = (await call('POST', '/v1/orders', validOrder())).body;
    const byId = await call('GET', `/v1/orders/${created.id}`);
    expect(byId.status).toBe(200);
    expect(byId.body).toEqual(created);
    const byCode = await call('GET', `/v1/orders/${created.tracking_code.toLowerCase()}`);
    expect(byCode.status).toBe(200);
    expect(byCode.body.id).toBe(created.id);
  });

  it('keeps accounts and environments apart: 404, never 403', async () => {
    const created = (await client(t.app, m.test)('POST', '/v1/orders', validOrder())).body;
    for (const key of [other.test, m.live, other.live]) {
      const call = client(t.app, key);
      for (const path of ['', '/tracking', '/proof']) {
        const res = await call('GET', `/v1/orders/${created.id}${path}`);
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe('resource_missing');
      }
      expect((await call('GET', `/v1/orders/${created.tracking_code}`)).status).toBe(404);
      expect((await call('POST', `/v1/orders/${created.id}/cancel`)).status).toBe(404);
      const list = await call('GET', '/v1/orders?limit=100');
      expect(list.body.data.map((o: { id: string }) => o.id)).not.toContain(created.id);
    }
  });

  it('answers 401 for a missing, malformed, unknown or revoked key', async () => {
    const cases = [undefined, 'nope', 'sk_test_short', 'sk_test_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'];
    for (const key of cases) {
      const res = await client(t.app, key)('GET', '/v1/orders');
      expect(res.status).toBe(401);
      expect(res.body.error.type).toBe('authentication_error');
    }
    const bad = await t.app.inject({ method: 'GET', url: '/v1/orders', headers: { authorization: `Basic ${m.test}` } });
    expect(bad.statusCode).toBe(401);
  });

  it('cancels with and without a body, then refuses a second cancel with 409', async () => {
    const call = client(t.app, m.test);
    const a = (await call('POST', '/v1/orders', validOrder())).body;
    const noBody = await call('POST', `/v1/orders/${a.id}/cancel`);
    expect(noBody.status).toBe(200);
    expect(noBody.body.status).toBe('cancelled');
    expect(noBody.body.cancellation_reason).toBeNull();
    const again = await call('POST', `/v1/orders/${a.id}/cancel`, { reason: 'twice' });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('order_not_cancellable');
    expect(again.body.error.message).toContain('cancelled');

    const b = (await call('POST', '/v1/orders', validOrder())).body;
    const withReason = await call('POST', `/v1/orders/${b.id}/cancel`, { reason: 'Customer changed their mind' });
    expect(withReason.body.cancellation_reason).toBe('Customer changed their mind');
    const unknown = await call('POST', `/v1/orders/${b.id}/cancel`, { why: 'x' });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.param).toBe('why');
  });

  it('writes order.created and order.cancelled to the outbox with the spec data', async () => {
    const call = client(t.app, m.test);
    const o = (await call('POST', '/v1/orders', validOrder())).body;
    await call('POST', `/v1/orders/${o.id}/cancel`, { reason: 'dup' });
    const rows = await t.ctx.db
      .selectFrom('events')
      .selectAll()
      .where('order_id', '=', o.id)
      .orderBy('created_at')
      .execute();
    const events = rows.map((r) => JSON.parse(r.payload));
    expect(events.map((e) => e.event)).toEqual(['order.created', 'order.cancelled']);
    expect(events[0]).toMatchObject({
      object: 'event',
      livemode: false,
      api_version: '2025-07-01',
      data: {
        id: o.id,
        object: 'order',
        tracking_code: o.tracking_code,
        external_order_id: 'EXT-1',
        status: 'pending',
        sequence: 1,
      },
    });
    expect(events[0].data.created_at).toBe(o.created_at);
    expect(events[1].data).toMatchObject({
      status: 'cancelled',
      cancellation_reason: 'dup',
      previous_status: 'pending',
      sequence: 2,
    });
    expect(Date.parse(events[1].data.cancelled_at)).not.toBeNaN();
  });

  it('tracking shows the timeline; proof is 404 naming the status', async () => {
    const call = client(t.app, m.test);
    const o = (await call('POST', '/v1/orders', validOrder())).body;
    const tr = await call('GET', `/v1/orders/${o.id}/tracking`);
    expect(tr.status).toBe(200);
    expect(tr.body.status).toBe('pending');
    expect(tr.body.courier).toBeNull();
    expect(tr.body.eta_minutes).toBeNull();
    expect(tr.body.timeline).toHaveLength(1);
    expect(tr.body.timeline[0]).toMatchObject({ status: 'pending', occurred_at: o.created_at });
    const proof = await call('GET', `/v1/orders/${o.id}/proof`);
    expect(proof.status).toBe(404);
    expect(proof.body.error.message).toContain('pending');
  });

  it('quotes without creating anything', async () => {
    const call = client(t.app, m.test);
    const before = (await call('GET', '/v1/orders?limit=100')).body.data.length;
    const q = await call('POST', '/v1/orders/quote', validOrder({ is_urgent: true }));
    expect(q.status).toBe(200);
    const b = q.body.breakdown;
    expect(q.body.shipping_cost).toBeCloseTo(
      b.base_fee + b.distance + b.weight + b.urgent + b.cod_fee + b.minimum_adjustment,
      2,
    );
    expect(b.urgent).toBe(3);
    expect(b.cod_fee).toBe(1.21);
    expect((await call('GET', '/v1/orders?limit=100')).body.data.length).toBe(before);
  });

  it('refuses half a delivery point: lat without lng, or lng without lat (create and quote)', async () => {
    const call = client(t.app, m.test);
    const before = (await call('GET', '/v1/orders?limit=100')).body.data.length;
    for (const [point, missing] of [
      [{ lat: -12.1 }, 'lng'],
      [{ lng: -77.03 }, 'lat'],
    ] as const) {
      for (const path of ['/v1/orders', '/v1/orders/quote']) {
        const res = await call('POST', path, validOrder({ delivery_address: { address: 'Av. Larco 123', ...point } }));
        expect([res.status, res.body.error?.code, res.body.error?.param], path).toEqual([
          422,
          'parameter_invalid',
          `delivery_address.${missing}`,
        ]);
      }
    }
    expect((await call('GET', '/v1/orders?limit=100')).body.data.length).toBe(before);
  });
});
