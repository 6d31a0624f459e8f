import { afterAll, beforeAll, expect, it } from 'vitest';
import { client, describeEach, newMerchant, newOperator, startApp, type TestApp, validOrder } from './helpers.js';
import { courierSession } from './people-helpers.js';
import { openStream } from './stream-client.js';

/**
 * A courier's phone hears of every change to its route (docs/stream.md, `route`): it gets no order
 * events, so a stop moved by its other phone or by dispatch, and a route made for it, come as `route`
 * messages to the couriers concerned, and to no other courier's phone.
 */
describeEach('stream: a courier phone follows its route', (engine) => {
  let t: TestApp;
  let op: string;
  let merchant: string;
  beforeAll(async () => {
    t = await startApp(engine);
    op = await newOperator(t, 'test');
    merchant = (await newMerchant(t)).test;
  });
  afterAll(async () => t?.close());

  it('sends `route` on a route made for it, on each move of its orders, and to the courier an order left', async () => {
    const call = client(t.app, op);
    const [rosa, luis, other] = await Promise.all(
      ['Rosa', 'Luis', 'Otro'].map(async (name) => (await call('POST', '/v1/couriers', { name })).body),
    );
    const phones = await Promise.all(
      [rosa, luis, other].map(async (c) =>
        openStream(t.app, undefined, { cookie: (await courierSession(t, op, c.id)).cookie }),
      ),
    );
    const [rosaPhone, luisPhone, otherPhone] = phones;
    const order = (await client(t.app, merchant)('POST', '/v1/orders', validOrder())).body;
    const route = (await call('POST', '/v1/routes', { courier_id: rosa.id, order_ids: [order.id] })).body;
    const routeOf = (courier: string, reason: string) => (m: { event: string; data: any }) =>
      m.event === 'route' && m.data.courier === courier && m.data.reason === reason;
    const made = await rosaPhone!.next(routeOf(rosa.id, 'dispatched'));
    expect(made.data).toEqual({ id: route.id, courier: rosa.id, reason: 'dispatched' });

    // Reassigned to Luis by dispatch's desk: both phones hear of it, Luis's with no route (assigned
    // without one), Rosa's with the route the order left.
    expect((await call('POST', `/v1/orders/${order.id}/assign`, { courier_id: luis.id })).status).toBe(200);
    const left = await rosaPhone!.next(routeOf(rosa.id, 'moved'));
    expect(left.data).toEqual({ id: route.id, courier: rosa.id, reason: 'moved' });
    const joined = await luisPhone!.next(routeOf(luis.id, 'moved'));
    expect(joined.data).toEqual({ id: null, courier: luis.id, reason: 'moved' });

    // A move made elsewhere (his other phone, the desk): his phone hears of it.
    expect((await call('POST', `/v1/orders/${order.id}/pickup`, {})).status).toBe(200);
    await expect.poll(() => luisPhone!.messages.filter(routeOf(luis.id, 'moved')).length).toBe(2);

    // A courier with nothing to do with it hears nothing.
    expect(otherPhone!.messages.filter((m) => m.event === 'route')).toEqual([]);
    for (const p of phones) p.close();
  });
});

/**
 * A merchant's sandbox courier working a route an operator made: the route has no account, the
 * courier's phone is scoped to the merchant's. Every `route` message is addressed by the courier's
 * own account, so the phone hears an insertion and a re-optimization as it hears a route made.
 */
describeEach('stream: a sandbox courier on an operator-made route', (engine) => {
  const NINE = Date.parse('2030-03-04T09:00:00Z');
  let t: TestApp;
  let op: string;
  beforeAll(async () => {
    t = await startApp(engine, {}, { clock: () => NINE });
    op = await newOperator(t, 'test');
  });
  afterAll(async () => t?.close());

  it('hears the insertion and the re-optimization an operator makes', async () => {
    const merchant = (await newMerchant(t)).test;
    const mc = client(t.app, merchant);
    const call = client(t.app, op);
    const at = (lat: number) =>
      validOrder({ delivery_address: { address: 'Calle 1', city: 'Lima', lat, lng: -77.03 } });
    const rosa = (await mc('POST', '/v1/couriers', { name: 'Rosa' })).body;
    expect((await mc('POST', `/v1/couriers/${rosa.id}/location`, { lat: -12.1, lng: -77.03 })).status).toBe(200);
    const [far, near] = await Promise.all(
      [at(-12.14), at(-12.11)].map(async (o) => (await mc('POST', '/v1/orders', o)).body),
    );
    const phone = await openStream(t.app, undefined, { cookie: (await courierSession(t, op, rosa.id)).cookie });
    const route = (await call('POST', '/v1/routes', { courier_id: rosa.id, order_ids: [far.id, near.id] })).body;
    expect(route.courier.id).toBe(rosa.id);
    const heard = (reason: string) => phone.next((m) => m.event === 'route' && m.data.reason === reason);
    expect((await heard('dispatched')).data).toEqual({ id: route.id, courier: rosa.id, reason: 'dispatched' });

    const middle = (await mc('POST', '/v1/orders', at(-12.125))).body;
    const res = await call('POST', `/v1/orders/${middle.id}/dispatch`, { courier_id: rosa.id });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.route).toBe(route.id);
    await expect
      .poll(() => phone.messages.filter((m) => m.event === 'route' && m.data.reason === 'dispatched').length)
      .toBe(2);

    const applied = await call('POST', `/v1/routes/${route.id}/reoptimize`, { apply: true, time_limit_ms: 200 });
    expect(applied.status, JSON.stringify(applied.body)).toBe(200);
    expect((await heard('reoptimized')).data).toEqual({ id: route.id, courier: rosa.id, reason: 'reoptimized' });
    phone.close();
  });
});
