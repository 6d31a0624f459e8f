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
