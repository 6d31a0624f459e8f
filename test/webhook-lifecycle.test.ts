import { afterAll, beforeAll, expect, it } from 'vitest';
import { Dispatcher } from '../src/features/webhooks/dispatcher.js';
import { client, describeEach, newMerchant, newOperator, startApp, type TestApp, validOrder } from './helpers.js';
import { tinyPng, upload } from './lifecycle-helpers.js';
import { expectSigned, Receiver, waitFor } from './webhook-receiver.js';

/**
 * Issue 4's "done when": every lifecycle change of every order reaches every subscribed endpoint,
 * signed, in order per order, with the data the spec lists for each event.
 */
describeEach('webhooks across the lifecycle', (engine) => {
  let t: TestApp;
  let rx: Receiver;
  let dispatcher: Dispatcher;

  beforeAll(async () => {
    t = await startApp(engine, { RUTA_WEBHOOK_ALLOW_INSECURE: '1', RUTA_WEBHOOK_RETRY_SCHEDULE: '0.05,0.05' });
    rx = await new Receiver().start();
    dispatcher = new Dispatcher(t.ctx, { pollMs: 50 }).start();
  });
  afterAll(async () => {
    await dispatcher?.stop(1000);
    await rx?.close();
    await t?.close();
  });

  it('delivers a whole sandbox delivery, and a failed-then-returned order, in order and signed', async () => {
    const m = await newMerchant(t);
    const call = client(t.app, m.test);
    const all = (await call('POST', '/v1/webhook_endpoints', { url: rx.url('/all'), events: ['*'] })).body;
    const spec = (
      await call('POST', '/v1/webhook_endpoints', {
        url: rx.url('/spec'),
        events: ['order.created', 'order.assigned', 'order.picked_up', 'order.in_transit', 'order.delivered'],
      })
    ).body;
    // Another account's endpoint must hear nothing of these orders.
    const other = await newMerchant(t, 'Other');
    await client(t.app, other.test)('POST', '/v1/webhook_endpoints', { url: rx.url('/other'), events: ['*'] });

    const courier = (await call('POST', '/v1/couriers', { name: 'Rosa Quispe' })).body;
    const sig = (await upload(t, m.test, 'signature', tinyPng())).body;
    const a = (await call('POST', '/v1/orders', validOrder({ cash_on_delivery: 20 }))).body;
    const b = (await call('POST', '/v1/orders', validOrder({ cash_on_delivery: 0 }))).body;
    expect((await call('POST', '/v1/routes', { courier_id: courier.id, order_ids: [a.id, b.id] })).status).toBe(201);
    for (const action of ['pickup', 'depart', 'approach', 'arrive']) {
      expect((await call('POST', `/v1/orders/${a.id}/${action}`)).status).toBe(200);
    }
    const delivered = await call('POST', `/v1/orders/${a.id}/deliver`, {
      receiver_name: 'Ana Torres',
      signature_file: sig.id,
      collected_amount: 20,
      payment_method: 'cash',
    });
    expect(delivered.status).toBe(200);
    await call('POST', `/v1/orders/${b.id}/pickup`);
    await call('POST', `/v1/orders/${b.id}/fail`, { reason: 'customer_absent' });
    await call('POST', `/v1/orders/${b.id}/return`);

    const expectedA = [
      'order.created',
      'order.assigned',
      'order.picked_up',
      'order.in_transit',
      'order.arriving',
      'order.at_location',
      'order.delivered',
    ];
    const expectedB = ['order.created', 'order.assigned', 'order.picked_up', 'order.failed', 'order.returned'];
    const total = expectedA.length + expectedB.length;
    await waitFor(() => rx.on('/all').length >= total && rx.on('/spec').length >= 7);

    const byOrder = (path: string, id: string) =>
      rx
        .on(path)
        .filter((r) => r.headers['service-order-id'] === id)
        .map((r) => JSON.parse(r.body));
    for (const r of rx.on('/all')) expectSigned(r, all.secret);
    for (const r of rx.on('/spec')) expectSigned(r, spec.secret);

    const gotA = byOrder('/all', a.id);
    expect(gotA.map((e) => e.event)).toEqual(expectedA);
    expect(gotA.map((e) => e.data.sequence)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(byOrder('/all', b.id).map((e) => e.event)).toEqual(expectedB);
    expect(byOrder('/spec', a.id).map((e) => e.event)).toEqual([
      'order.created',
      'order.assigned',
      'order.picked_up',
      'order.in_transit',
      'order.delivered',
    ]);
    expect(byOrder('/spec', b.id).map((e) => e.event)).toEqual(['order.created', 'order.assigned', 'order.picked_up']);
    expect(rx.on('/other')).toHaveLength(0);

    const [created, assigned, pickedUp, inTransit, , , done] = gotA;
    for (const e of gotA) {
      expect(e.data).toMatchObject({
        id: a.id,
        object: 'order',
        tracking_code: a.tracking_code,
        external_order_id: 'EXT-1',
      });
    }
    expect(created.data).toMatchObject({ status: 'pending', created_at: a.created_at });
    expect(assigned.data).toMatchObject({ status: 'assigned', courier: { id: courier.id, name: 'Rosa Quispe' } });
    expect(Date.parse(pickedUp.data.picked_up_at)).not.toBeNaN();
    expect(Number.isInteger(inTransit.data.eta_minutes) || inTransit.data.eta_minutes === null).toBe(true);
    expect(done.data.status).toBe('delivered');
    expect(done.data.proof.receiver_name).toBe('Ana Torres');
    expect(done.data.proof.signature_url).toMatch(
      /\/v1\/files\/file_[0-9A-Z]+\/content\?expires=\d+&signature=[0-9a-f]{64}$/,
    );
    expect(Date.parse(done.data.delivered_at)).not.toBeNaN();
    const [, , , failed, returned] = byOrder('/all', b.id);
    expect(failed.data).toMatchObject({ status: 'failed', reason: 'customer_absent' });
    expect(Date.parse(returned.data.returned_at)).not.toBeNaN();
  });

  it('sends live events only to live endpoints, whoever moves the order', async () => {
    const m = await newMerchant(t);
    const op = client(t.app, await newOperator(t, 'live'));
    const test = (await client(t.app, m.test)('POST', '/v1/webhook_endpoints', { url: rx.url('/t'), events: ['*'] }))
      .body;
    const live = (await client(t.app, m.live)('POST', '/v1/webhook_endpoints', { url: rx.url('/l'), events: ['*'] }))
      .body;
    const courier = (await op('POST', '/v1/couriers', { name: 'Juan' })).body;
    const o = (await client(t.app, m.live)('POST', '/v1/orders', validOrder())).body;
    expect((await op('POST', `/v1/orders/${o.id}/assign`, { courier_id: courier.id })).status).toBe(200);
    await waitFor(() => rx.on('/l').length >= 2);
    expect(rx.on('/l').map((r) => r.headers['service-event'])).toEqual(['order.created', 'order.assigned']);
    for (const r of rx.on('/l')) {
      expectSigned(r, live.secret);
      expect(JSON.parse(r.body).livemode).toBe(true);
    }
    expect(rx.on('/t')).toHaveLength(0);
    expect(test.id).not.toBe(live.id);
  });
});
