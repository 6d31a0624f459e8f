import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  client,
  describeEach,
  type Merchant,
  newMerchant,
  newOperator,
  startApp,
  type TestApp,
  validOrder,
} from './helpers.js';
import { eventsOf, orderIn, tinyPng, upload } from './lifecycle-helpers.js';

describeEach('a full delivery, end to end', (engine) => {
  let t: TestApp;
  let m: Merchant;
  let op: string;

  beforeAll(async () => {
    t = await startApp(engine);
    m = await newMerchant(t, 'Acme', { originLat: -12.0464, originLng: -77.0428 });
    op = await newOperator(t, 'live');
  });
  afterAll(async () => t?.close());

  it('create, route, pings, pickup, depart, deliver with signature and COD; tracking and outbox agree', async () => {
    const merchant = client(t.app, m.live);
    const carrier = client(t.app, op);
    const first = (await merchant('POST', '/v1/orders', validOrder({ cash_on_delivery: 0, requires_signature: false })))
      .body;
    const order = (await merchant('POST', '/v1/orders', validOrder())).body;
    expect(order).toMatchObject({ livemode: true, requires_signature: true, cash_on_delivery: 120.5 });

    const courier = (await carrier('POST', '/v1/couriers', { name: 'Luis Rojas', vehicle: 'motorcycle' })).body;
    const route = await carrier('POST', '/v1/routes', { courier_id: courier.id, order_ids: [first.id, order.id] });
    expect(route.status).toBe(201);
    const pings = [
      [-12.0464, -77.0428],
      [-12.05, -77.04],
    ];
    for (const [lat, lng] of pings) await carrier('POST', `/v1/couriers/${courier.id}/location`, { lat, lng });

    for (const id of [first.id, order.id]) expect((await carrier('POST', `/v1/orders/${id}/pickup`)).status).toBe(200);
    expect((await carrier('POST', `/v1/orders/${order.id}/depart`)).status).toBe(200);

    let tr = (await merchant('GET', `/v1/orders/${order.id}/tracking`)).body;
    expect(tr.status).toBe('in_transit');
    expect(tr.courier).toEqual({ name: 'Luis Rojas', lat: -12.05, lng: -77.04 });
    // The first stop is still ahead of this one, so the ETA includes its leg and its service time.
    expect(tr.eta_minutes).toBeGreaterThan(5);
    const firstEta = (await merchant('GET', `/v1/orders/${first.id}/tracking`)).body.eta_minutes;
    expect(tr.eta_minutes).toBeGreaterThan(firstEta);
    const etaAtDepart = tr.eta_minutes;

    await carrier('POST', `/v1/couriers/${courier.id}/location`, { lat: -12.121, lng: -77.0296 });
    const sig = await upload(t, op, 'signature', tinyPng(4));
    expect(sig.status).toBe(201);
    const delivered = await carrier('POST', `/v1/orders/${order.id}/deliver`, {
      receiver_name: 'Ana Torres',
      receiver_document: '44556677',
      relationship: 'self',
      signature_file: sig.body.id,
      collected_amount: 120.5,
      payment_method: 'cash',
    });
    expect(delivered.status).toBe(200);
    expect(delivered.body).toMatchObject({ status: 'delivered', attempts: 1 });

    tr = (await merchant('GET', `/v1/orders/${order.id}/tracking`)).body;
    expect(tr.status).toBe('delivered');
    expect(tr.eta_minutes).toBeNull();
    expect(tr.timeline.map((x: any) => [x.status, x.lat, x.lng])).toEqual([
      ['pending', null, null],
      ['assigned', null, null],
      ['picked_up', -12.05, -77.04],
      ['in_transit', -12.05, -77.04],
      ['delivered', -12.121, -77.0296],
    ]);

    const proof = (await merchant('GET', `/v1/orders/${order.id}/proof`)).body;
    expect(proof).toMatchObject({
      receiver_name: 'Ana Torres',
      receiver_document: '44556677',
      relationship: 'self',
      collected_amount: 120.5,
      payment_method: 'cash',
      cod_status: 'collected',
    });
    const img = await t.app.inject({ method: 'GET', url: proof.signature_url.replace(/^https?:\/\/[^/]+/, '') });
    expect(img.rawPayload.equals(tinyPng(4))).toBe(true);

    const ev = await eventsOf(t, order.id);
    expect(ev.map((e) => e.event)).toEqual([
      'order.created',
      'order.assigned',
      'order.picked_up',
      'order.in_transit',
      'order.delivered',
    ]);
    expect(ev.map((e) => e.data.sequence)).toEqual([1, 2, 3, 4, 5]);
    expect(ev.every((e) => e.livemode === true)).toBe(true);
    expect(ev[1].data.courier).toEqual({ id: courier.id, name: 'Luis Rojas' });
    expect(ev[3].data.eta_minutes).toBe(etaAtDepart);
    expect(ev[4].data.proof.receiver_name).toBe('Ana Torres');
    const link = new URL(ev[4].data.proof.signature_url);
    // Webhook links outlive the 24 h retry window.
    expect(Number(link.searchParams.get('expires')) - Date.now() / 1000).toBeGreaterThan(24 * 3600);
    expect((await t.app.inject({ method: 'GET', url: link.pathname + link.search })).statusCode).toBe(200);
    expect(ev[4].data.delivered_at).toBe(proof.delivered_at);

    const r = (await carrier('GET', `/v1/routes/${route.body.id}`)).body;
    expect(r.stops.map((s: any) => s.status)).toEqual(['picked_up', 'delivered']);
  });

  it('lists delivered orders by their COD outcome (cod_status), in the caller\u2019s scope only', async () => {
    const shop = await newMerchant(t, 'COD shop');
    const other = await newMerchant(t, 'COD other');
    const opTest = await newOperator(t, 'test');
    const courier = (await client(t.app, opTest)('POST', '/v1/couriers', { name: 'Cobra' })).body.id;
    const delivered = async (owner: string, collected: number) => {
      const o = await orderIn(t, owner, opTest, courier, 'in_transit', { cash_on_delivery: 100 });
      const res = await client(t.app, opTest)('POST', `/v1/orders/${o.id}/deliver`, {
        receiver_name: 'Ana',
        collected_amount: collected,
        payment_method: 'cash',
      });
      expect(res.status).toBe(200);
      return o.id;
    };
    const short = await delivered(shop.test, 80);
    const over = await delivered(shop.test, 130);
    const exact = await delivered(shop.test, 100);
    const otherShort = await delivered(other.test, 10);
    type Listed = { id: string; cash_on_delivery: number; collected_amount?: number | null };
    const list = async (key: string, qs: string): Promise<Listed[]> => {
      const res = await client(t.app, key)('GET', `/v1/orders?limit=100&${qs}`);
      expect(res.status, qs).toBe(200);
      return res.body.data;
    };
    const ids = async (key: string, qs: string) => (await list(key, qs)).map((o) => o.id);
    expect(await ids(shop.test, 'cod_status=short')).toEqual([short]);
    expect(await ids(shop.test, 'cod_status=over')).toEqual([over]);
    expect(await ids(shop.test, 'cod_status=collected')).toEqual([exact]);
    // The carrier sees every account's, newest first; one account's with `account`.
    expect(await ids(opTest, 'cod_status=short')).toEqual(expect.arrayContaining([otherShort, short]));
    expect(await ids(opTest, `cod_status=short&account=${shop.accountId}`)).toEqual([short]);
    // Other environment: nothing.
    expect(await ids(op, 'cod_status=short')).not.toContain(short);
    // Combined with another filter.
    expect(await ids(shop.test, 'cod_status=short&status=delivered')).toEqual([short]);
    expect(await ids(shop.test, 'cod_status=short&status=failed')).toEqual([]);
    // Each listed with what its proof recorded collecting beside the amount to collect (the
    // console's Exceptions rows), so no read of each proof; a list without cod_status has no such field.
    const amounts = async (qs: string) =>
      (await list(shop.test, qs)).map((o) => [o.id, o.cash_on_delivery, o.collected_amount]);
    expect(await amounts('cod_status=short')).toEqual([[short, 100, 80]]);
    expect(await amounts('cod_status=over')).toEqual([[over, 100, 130]]);
    expect(await amounts('cod_status=collected')).toEqual([[exact, 100, 100]]);
    expect((await list(shop.test, 'status=delivered')).filter((o) => 'collected_amount' in o)).toEqual([]);
    const bad = await client(t.app, shop.test)('GET', '/v1/orders?cod_status=missing');
    expect(bad.status).toBe(422);
    expect(bad.body.error.param).toBe('cod_status');
  });

  it('documents every lifecycle, courier, route and file endpoint in OpenAPI', async () => {
    const doc = JSON.parse((await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).body);
    const moves = ['validate', 'assign', 'ready', 'pickup', 'depart', 'approach', 'arrive', 'deliver', 'fail'];
    for (const a of [...moves, 'reschedule', 'return', 'cancel']) {
      expect(doc.paths[`/v1/orders/{id}/${a}`]?.post, a).toBeDefined();
    }
    expect(doc.paths['/v1/orders/{id}/deliver'].post.tags).toEqual(['Lifecycle']);
    for (const [path, method] of [
      ['/v1/couriers', 'post'],
      ['/v1/couriers', 'get'],
      ['/v1/couriers/{id}', 'get'],
      ['/v1/couriers/{id}', 'patch'],
      ['/v1/couriers/{id}/location', 'post'],
      ['/v1/routes', 'post'],
      ['/v1/routes/{id}', 'get'],
      ['/v1/files', 'post'],
      ['/v1/files/{id}', 'get'],
      ['/v1/files/{id}/content', 'get'],
      ['/v1/orders/{id}/proof', 'get'],
    ]) {
      expect(doc.paths[path]?.[method], `${method} ${path}`).toBeDefined();
    }
    expect(doc.paths['/v1/files/{id}/content'].get.security).toEqual([]);
    expect(doc.paths['/v1/orders/{id}/proof'].get.responses['200']).toBeDefined();
  });
});
