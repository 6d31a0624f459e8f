import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listOrdersQuery } from '../src/features/orders/list-repo.js';
import { Dispatcher } from '../src/features/webhooks/dispatcher.js';
import { distanceM, farFromAddress } from '../src/shared/geo.js';
import { client, describeEach, newMerchant, useApp, useMerchant, validOrder } from './helpers.js';
import { explain } from './plan-helpers.js';
import { Receiver, verifyRuta, waitFor } from './webhook-receiver.js';

/** validOrder's address (Av. Larco 123, Miraflores). */
const HOME = { lat: -12.1211, lng: -77.0297 };
/** About 15 m from HOME: at the door. */
const NEAR = { lat: -12.1212, lng: -77.0298 };
/** About 990 m south of HOME. */
const FAR = { lat: -12.13, lng: -77.0297 };
/** About 400 m from HOME: beyond 250 m, but not beyond it once a 200 m accuracy is allowed for. */
const EDGE = { lat: -12.1247, lng: -77.0297 };

it('farFromAddress: beyond the threshold only when the whole accuracy circle is', () => {
  expect(distanceM(HOME, FAR)).toBeGreaterThan(980);
  expect(distanceM(HOME, FAR)).toBeLessThan(1000);
  expect(farFromAddress(990, 10)).toBe(true);
  expect(farFromAddress(990, null)).toBe(true);
  expect(farFromAddress(240, 0)).toBe(false);
  // Accuracy worse than the distance: the phone may well have been at the door.
  expect(farFromAddress(990, 1500)).toBe(false);
  expect(farFromAddress(400, 200)).toBe(false);
  expect(farFromAddress(400, 100)).toBe(true);
  expect(farFromAddress(400, 100, 500)).toBe(false);
});

describe('far from the address on SQLite: the threshold and the plan', () => {
  const t = useApp('sqlite', { RUTA_FAR_FROM_ADDRESS_M: '2000' });

  it('reads the threshold from RUTA_FAR_FROM_ADDRESS_M', async () => {
    expect(t.config.farFromAddressM).toBe(2000);
    const call = client(t.app, (await newMerchant(t)).test);
    const courier = (await call('POST', '/v1/couriers', { name: 'Rosa Quispe' })).body;
    const o = (await call('POST', '/v1/orders', validOrder({ cash_on_delivery: 0, requires_signature: false }))).body;
    expect((await call('POST', '/v1/routes', { courier_id: courier.id, order_ids: [o.id] })).status).toBe(201);
    for (const a of ['pickup', 'depart']) expect((await call('POST', `/v1/orders/${o.id}/${a}`)).status).toBe(200);
    const res = await call('POST', `/v1/orders/${o.id}/deliver`, { receiver_name: 'Ana', position: FAR });
    // 990 m is far at the default 250 m, not at 2 000 m.
    expect(res.body.attempt_position).toMatchObject({ far_from_address: false });
    expect(res.body.attempt_position.distance_from_address_m).toBeGreaterThan(980);
  });

  // PostgreSQL plans a tiny table as a sequential scan whatever its indexes; SQLite plans by shape.
  it('finds far attempts on the partial indexes, per account and across accounts, without a sort', async () => {
    const db = t.ctx.db;
    const cases = [
      [{ mode: 'test' as const, accountId: 'acct_x' }, 'orders_attempt_far_account'],
      [{ mode: 'live' as const, accountId: null }, 'orders_attempt_far'],
    ] as const;
    for (const [scope, index] of cases) {
      const plan = await explain(
        db,
        'sqlite',
        listOrdersQuery(db, { scope, farFromAddress: true, limit: 20 }).compile(),
      );
      expect(
        plan.nodes.filter((n) => n.table === 'orders').map((n) => n.index),
        plan.text,
      ).toEqual([index]);
      expect(
        plan.nodes.some((n) => n.sort),
        plan.text,
      ).toBe(false);
    }
  });
});

describeEach('positions of moves', (engine) => {
  const t = useApp(engine, { RUTA_WEBHOOK_ALLOW_INSECURE: '1', RUTA_WEBHOOK_RETRY_SCHEDULE: '0.05' });
  const m = useMerchant(t);

  /** An order of the merchant's sandbox, assigned to a new courier and picked up. */
  async function pickedUp(over: Record<string, unknown> = {}) {
    const call = client(t.app, m.test);
    const courier = (await call('POST', '/v1/couriers', { name: 'Rosa Quispe' })).body;
    const order = (
      await call('POST', '/v1/orders', validOrder({ cash_on_delivery: 0, requires_signature: false, ...over }))
    ).body;
    expect((await call('POST', `/v1/orders/${order.id}/assign`, { courier_id: courier.id })).status).toBe(200);
    expect((await call('POST', `/v1/orders/${order.id}/pickup`)).status).toBe(200);
    return order as { id: string; tracking_code: string };
  }

  /** As pickedUp, then departed (deliver is allowed from in_transit on). */
  async function inTransit(over: Record<string, unknown> = {}) {
    const order = await pickedUp(over);
    expect((await client(t.app, m.test)('POST', `/v1/orders/${order.id}/depart`)).status).toBe(200);
    return order;
  }

  it('records each move’s fix on the timeline, and the delivery’s on the proof and the order', async () => {
    const call = client(t.app, m.test);
    const o = await pickedUp();
    const tapped = new Date(Date.now() - 20 * 60_000).toISOString();
    const depart = await call('POST', `/v1/orders/${o.id}/depart`, {
      position: { lat: -12.11, lng: -77.03, accuracy_m: 35, recorded_at: tapped },
    });
    expect(depart.status).toBe(200);
    expect(depart.body.attempt_position).toBeNull();
    const arrive = await call('POST', `/v1/orders/${o.id}/arrive`, { position: { lat: NEAR.lat, lng: NEAR.lng } });
    expect(arrive.status).toBe(200);
    const delivered = await call('POST', `/v1/orders/${o.id}/deliver`, {
      receiver_name: 'Ana Torres',
      position: { ...NEAR, accuracy_m: 8, recorded_at: tapped },
    });
    expect(delivered.status).toBe(200);
    expect(delivered.body.attempt_position).toEqual({
      ...NEAR,
      accuracy_m: 8,
      recorded_at: tapped,
      distance_from_address_m: distanceM(HOME, NEAR),
      far_from_address: false,
    });
    expect(distanceM(HOME, NEAR)).toBeLessThan(20);

    const proof = (await call('GET', `/v1/orders/${o.id}/proof`)).body;
    expect(proof).toMatchObject({ ...NEAR, accuracy_m: 8, distance_from_address_m: distanceM(HOME, NEAR) });
    expect(proof.far_from_address).toBe(false);

    const tl = (await call('GET', `/v1/orders/${o.id}/tracking`)).body.timeline;
    const byStatus = Object.fromEntries(tl.map((e: any) => [e.status, e]));
    expect(byStatus.in_transit).toMatchObject({ lat: -12.11, lng: -77.03, accuracy_m: 35, recorded_at: tapped });
    // Without recorded_at the fix is taken to be the request's.
    expect(byStatus.at_location).toMatchObject({ ...NEAR, accuracy_m: null });
    expect(Date.parse(byStatus.at_location.recorded_at)).toBe(Date.parse(byStatus.at_location.occurred_at));
    expect(byStatus.delivered).toMatchObject({ ...NEAR, accuracy_m: 8, recorded_at: tapped });
  });

  it('a move without a position still counts, and leaves no attempt position', async () => {
    const call = client(t.app, m.test);
    const o = await pickedUp();
    const failed = await call('POST', `/v1/orders/${o.id}/fail`, { reason: 'customer_absent' });
    expect(failed.status).toBe(200);
    expect(failed.body).toMatchObject({ status: 'failed', attempts: 1, attempt_position: null });
  });

  it('refuses a malformed position with 422 naming the field', async () => {
    const call = client(t.app, m.test);
    const o = await pickedUp();
    const cases: [Record<string, unknown>, string][] = [
      [{ lat: 91, lng: 0 }, 'position.lat'],
      [{ lat: 0 }, 'position.lng'],
      [{ lat: '1', lng: 0 }, 'position.lat'],
      [{ lat: 0, lng: 0, accuracy_m: -1 }, 'position.accuracy_m'],
      [{ lat: 0, lng: 0, altitude: 3 }, 'position.altitude'],
      [{ lat: 0, lng: 0, recorded_at: 'yesterday' }, 'position.recorded_at'],
    ];
    for (const [position, param] of cases) {
      const res = await call('POST', `/v1/orders/${o.id}/depart`, { position });
      expect(res.status, JSON.stringify(position)).toBe(422);
      expect(res.body.error.param, JSON.stringify(position)).toBe(param);
      expect(res.body.error.message).toContain(param);
    }
    const fail = await call('POST', `/v1/orders/${o.id}/fail`, { reason: 'customer_absent', position: { lat: 0 } });
    expect(fail.status).toBe(422);
    expect(fail.body.error.param).toBe('position.lng');
    // Nothing moved.
    expect((await call('GET', `/v1/orders/${o.id}`)).body.status).toBe('picked_up');
    // A fix a minute ahead (a phone's clock a little fast) is fine.
    const ahead = new Date(Date.now() + 60_000).toISOString();
    expect(
      (await call('POST', `/v1/orders/${o.id}/depart`, { position: { ...NEAR, recorded_at: ahead } })).status,
    ).toBe(200);
  });

  it('drops a fix outside the clock window and still applies the move (an offline queue kept for days syncs)', async () => {
    const call = client(t.app, m.test);
    const days = await pickedUp();
    const ahead = await pickedUp();
    const threeDaysAgo = new Date(Date.now() - 3 * 86_400_000).toISOString();
    const tenMinutesAhead = new Date(Date.now() + 10 * 60_000).toISOString();
    for (const [o, recorded_at] of [
      [days, threeDaysAgo],
      [ahead, tenMinutesAhead],
    ] as const) {
      const res = await call('POST', `/v1/orders/${o.id}/depart`, { position: { ...NEAR, recorded_at } });
      expect(res.status, recorded_at).toBe(200);
      expect(res.body.status).toBe('in_transit');
      const timeline = (await call('GET', `/v1/orders/${o.id}/tracking`)).body.timeline as {
        status: string;
        lat: number | null;
        recorded_at?: string | null;
      }[];
      const entry = timeline.find((e) => e.status === 'in_transit');
      // Not the dropped fix: the entry is what a move without a position records.
      expect(entry?.recorded_at ?? null).not.toBe(recorded_at);
      expect(entry?.lat ?? null).not.toBe(NEAR.lat);
    }
    // Delivered with a days-old fix far away: delivered, with no attempt position and no far flag.
    const d = await call('POST', `/v1/orders/${days.id}/deliver`, {
      receiver_name: 'Ana Torres',
      position: { lat: -12.5, lng: -77.5, recorded_at: threeDaysAgo },
    });
    expect(d.status).toBe(200);
    expect(d.body.status).toBe('delivered');
    expect(d.body.attempt_position).toBeNull();
    const far = (await call('GET', '/v1/orders?far_from_address=true&limit=100')).body.data as { id: string }[];
    expect(far.map((x) => x.id)).not.toContain(days.id);
  });

  it('flags far attempts, not near or coarse ones, and lists them with far_from_address', async () => {
    const call = client(t.app, m.test);
    const near = await inTransit();
    const far = await inTransit();
    const coarse = await inTransit();
    const edge = await inTransit();
    const farFail = await inTransit();
    const unknown = await inTransit({
      delivery_address: { address: 'Jr. Sin Coordenadas 1', district: 'Lima', city: 'Lima' },
    });
    const deliver = (id: string, position: Record<string, unknown>) =>
      call('POST', `/v1/orders/${id}/deliver`, { receiver_name: 'Ana', position });
    const shown = async (res: Promise<{ status: number; body: any }>) => {
      const r = await res;
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return r.body.attempt_position;
    };
    expect((await shown(deliver(near.id, { ...NEAR, accuracy_m: 10 }))).far_from_address).toBe(false);
    expect((await shown(deliver(far.id, { ...FAR, accuracy_m: 10 }))).far_from_address).toBe(true);
    const c = await shown(deliver(coarse.id, { ...FAR, accuracy_m: 1500 }));
    expect(c.distance_from_address_m).toBeGreaterThan(980);
    expect(c.far_from_address).toBe(false);
    expect((await shown(deliver(edge.id, { ...EDGE, accuracy_m: 200 }))).far_from_address).toBe(false);
    const f = await shown(
      call('POST', `/v1/orders/${farFail.id}/fail`, {
        reason: 'customer_absent',
        position: { ...FAR, accuracy_m: 20 },
      }),
    );
    expect(f).toMatchObject({ far_from_address: true, accuracy_m: 20 });
    const u = await shown(deliver(unknown.id, { ...FAR, accuracy_m: 5 }));
    expect(u).toMatchObject({ distance_from_address_m: null, far_from_address: null });
    expect((await call('GET', `/v1/orders/${far.id}/proof`)).body.far_from_address).toBe(true);
    expect((await call('GET', `/v1/orders/${unknown.id}/proof`)).body.far_from_address).toBeNull();

    const ids = async (q: string) => (await call('GET', `/v1/orders?${q}`)).body.data.map((o: any) => o.id).sort();
    expect(await ids('far_from_address=true')).toEqual([far.id, farFail.id].sort());
    expect(await ids('far_from_address=false')).toEqual([near.id, coarse.id, edge.id].sort());
    expect(await ids('far_from_address=true&status=failed')).toEqual([farFail.id]);
    const counts = (await call('GET', '/v1/orders/counts?far_from_address=true')).body;
    expect(JSON.stringify(counts)).toContain('"delivered":1');

    // Another account sees none of them, and cannot read the order.
    const other = client(t.app, (await newMerchant(t, 'Other')).test);
    expect((await other('GET', '/v1/orders?far_from_address=true')).body.data).toEqual([]);
    expect((await other('GET', `/v1/orders/${far.id}`)).status).toBe(404);
    // Nor does the merchant's own live environment.
    expect((await client(t.app, m.live)('GET', '/v1/orders?far_from_address=true')).body.data).toEqual([]);
  });

  it('the public tracking page and its JSON never show where the courier was', async () => {
    const call = client(t.app, m.test);
    const o = await pickedUp();
    const position = { lat: -12.1377, lng: -77.0141, accuracy_m: 12.5 };
    expect((await call('POST', `/v1/orders/${o.id}/depart`, { position })).status).toBe(200);
    expect((await call('POST', `/v1/orders/${o.id}/deliver`, { receiver_name: 'Ana', position })).status).toBe(200);
    const anon = client(t.app);
    const json = await anon('GET', `/v1/public/tracking/${o.tracking_code}`);
    const page = await anon('GET', `/track/${o.tracking_code}`);
    expect(json.status).toBe(200);
    expect(page.status).toBe(200);
    for (const text of [JSON.stringify(json.body), page.raw.body]) {
      expect(text).not.toContain('-12.1377');
      expect(text).not.toContain('-77.0141');
      expect(text).not.toContain('accuracy');
      expect(text).not.toContain('attempt_position');
      expect(text).not.toContain('far_from_address');
    }
  });

  describe('the order.delivered webhook', () => {
    let rx: Receiver;
    let dispatcher: Dispatcher;
    beforeAll(async () => {
      rx = await new Receiver().start();
      dispatcher = new Dispatcher(t.ctx, { pollMs: 50 }).start();
    });
    afterAll(async () => {
      await dispatcher?.stop(1000);
      await rx?.close();
    });

    it('carries the proof’s position, signed as the merchant checks it', async () => {
      const call = client(t.app, m.test);
      const path = `/positions-${engine}-${Date.now()}`;
      const hook = (await call('POST', '/v1/webhook_endpoints', { url: rx.url(path), events: ['order.delivered'] }))
        .body;
      const o = await inTransit();
      const res = await call('POST', `/v1/orders/${o.id}/deliver`, {
        receiver_name: 'Ana Torres',
        position: { ...FAR, accuracy_m: 15 },
      });
      expect(res.status).toBe(200);
      const [got] = await waitFor(() => (rx.on(path).length > 0 ? rx.on(path) : false));
      expect(verifyRuta(got.body, String(got.headers['service-signature']), hook.secret)).toBe(true);
      const event = JSON.parse(got.body);
      expect(event.event).toBe('order.delivered');
      expect(event.data.id).toBe(o.id);
      expect(event.data.proof).toMatchObject({
        receiver_name: 'Ana Torres',
        ...FAR,
        accuracy_m: 15,
        distance_from_address_m: distanceM(HOME, FAR),
        far_from_address: true,
      });
    });
  });
});
