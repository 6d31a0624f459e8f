import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { TRANSITIONS } from '../src/features/lifecycle/transitions.js';
import { ORDER_STATUSES } from '../src/features/orders/schemas.js';
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
import { bodyFor, eventsOf, orderIn, PATHS } from './lifecycle-helpers.js';

const ACTIONS = Object.keys(TRANSITIONS) as (keyof typeof TRANSITIONS)[];

describeEach('lifecycle', (engine) => {
  let t: TestApp;
  let m: Merchant;
  let other: Merchant;
  let op: string;
  let opLive: string;
  let courier: string;

  beforeAll(async () => {
    t = await startApp(engine);
    m = await newMerchant(t, 'Acme', { originLat: -12.0464, originLng: -77.0428 });
    other = await newMerchant(t, 'Other');
    op = await newOperator(t, 'test');
    opLive = await newOperator(t, 'live');
    courier = (await client(t.app, op)('POST', '/v1/couriers', { name: 'Luis Rojas', vehicle: 'motorcycle' })).body.id;
    await client(t.app, op)('POST', `/v1/couriers/${courier}/location`, { lat: -12.05, lng: -77.04 });
  });
  afterAll(async () => t?.close());

  it('every path of the test helper reaches the status it names', async () => {
    expect(Object.keys(PATHS).sort()).toEqual([...ORDER_STATUSES].sort());
    for (const status of ORDER_STATUSES) {
      const o = await orderIn(t, m.test, op, courier, status);
      expect((await client(t.app, m.test)('GET', `/v1/orders/${o.id}`)).body.status).toBe(status);
    }
  });

  for (const action of ACTIONS) {
    it(`${action}: allowed exactly from ${TRANSITIONS[action].from.join(', ')}`, async () => {
      const tr = TRANSITIONS[action];
      for (const status of ORDER_STATUSES) {
        const o = await orderIn(t, m.test, op, courier, status);
        const res = await client(t.app, op)('POST', `/v1/orders/${o.id}/${action}`, bodyFor(action, courier));
        if (tr.from.includes(status)) {
          expect(res.status, `${action} from ${status}`).toBe(200);
          expect(res.body.status).toBe(tr.to);
        } else {
          expect(res.status, `${action} from ${status}`).toBe(409);
          expect(res.body.error.code).toBe(action === 'cancel' ? 'order_not_cancellable' : 'invalid_transition');
          expect(res.body.error.message).toContain(status);
          if (action !== 'cancel') expect(res.body.error.message).toContain(action);
          const after = await client(t.app, m.test)('GET', `/v1/orders/${o.id}`);
          expect(after.body.status).toBe(status);
        }
      }
    });
  }

  it('the lifecycle table of docs/api.md matches the transition table', () => {
    const readme = readFileSync(new URL('../docs/api.md', import.meta.url), 'utf8');
    for (const action of ACTIONS) {
      const tr = TRANSITIONS[action];
      const line = readme.split('\n').find((l) => l.startsWith(`| \`${action}\``));
      expect(line, action).toBeDefined();
      const cells = line!.split('|').map((c) => c.trim());
      expect(cells[2].split(', ').sort(), action).toEqual([...tr.from].sort());
      expect(cells[3], action).toContain(tr.to);
      expect(cells[4], action).toContain(tr.event);
    }
  });

  it('each move writes its timeline entry with the courier position and its event data', async () => {
    const call = client(t.app, op);
    const o = await orderIn(t, m.test, op, courier, 'pending');
    for (const [action, body] of [
      ['validate'],
      ['assign', { courier_id: courier }],
      ['ready'],
      ['pickup'],
      ['depart'],
      ['approach'],
      ['arrive'],
      ['deliver', { receiver_name: 'Ana Torres', lat: -12.1211, lng: -77.0297 }],
    ] as [string, object?][]) {
      expect((await call('POST', `/v1/orders/${o.id}/${action}`, body)).status).toBe(200);
    }
    const ev = await eventsOf(t, o.id);
    expect(ev.map((e) => e.event)).toEqual([
      'order.created',
      'order.validated',
      'order.assigned',
      'order.ready_for_pickup',
      'order.picked_up',
      'order.in_transit',
      'order.arriving',
      'order.at_location',
      'order.delivered',
    ]);
    expect(ev.map((e) => e.data.sequence)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    for (const e of ev) {
      expect(e.data).toMatchObject({ id: o.id, object: 'order', tracking_code: o.tracking_code });
      expect(e.data.external_order_id).toBe('EXT-1');
    }
    const by = Object.fromEntries(ev.map((e) => [e.event, e.data]));
    expect(by['order.validated'].status).toBe('validated');
    expect(by['order.assigned']).toMatchObject({ status: 'assigned', courier: { id: courier, name: 'Luis Rojas' } });
    expect(by['order.picked_up'].status).toBe('picked_up');
    expect(Date.parse(by['order.picked_up'].picked_up_at)).not.toBeNaN();
    expect(by['order.in_transit'].status).toBe('in_transit');
    expect(Number.isInteger(by['order.in_transit'].eta_minutes)).toBe(true);
    expect(by['order.in_transit'].eta_minutes).toBeGreaterThan(0);
    expect(by['order.arriving'].status).toBe('arriving');
    expect(Number.isInteger(by['order.arriving'].eta_minutes)).toBe(true);
    expect(by['order.at_location'].status).toBe('at_location');
    expect(by['order.delivered']).toMatchObject({
      status: 'delivered',
      proof: { receiver_name: 'Ana Torres', signature_url: null },
    });
    expect(Date.parse(by['order.delivered'].delivered_at)).not.toBeNaN();

    const tl = (await client(t.app, m.test)('GET', `/v1/orders/${o.id}/tracking`)).body.timeline;
    expect(tl.map((x: { status: string }) => x.status)).toEqual([
      'pending',
      'validated',
      'assigned',
      'ready_for_pickup',
      'picked_up',
      'in_transit',
      'arriving',
      'at_location',
      'delivered',
    ]);
    expect(tl[0]).toMatchObject({ lat: null, lng: null });
    expect(tl[1]).toMatchObject({ lat: null, lng: null });
    expect(tl[2]).toMatchObject({ lat: -12.05, lng: -77.04 });
    // The proof's own coordinates win over the courier's last ping.
    expect(tl[8]).toMatchObject({ lat: -12.1211, lng: -77.0297 });
  });

  it('failure, re-attempt, reschedule and return carry their data and count attempts', async () => {
    const call = client(t.app, op);
    const o = await orderIn(t, m.test, op, courier, 'picked_up');
    const failed = await call('POST', `/v1/orders/${o.id}/fail`, { reason: 'customer_absent', notes: 'No answer' });
    expect(failed.body).toMatchObject({
      status: 'failed',
      failure_reason: 'customer_absent',
      failure_notes: 'No answer',
      attempts: 1,
    });
    const bad = await call('POST', `/v1/orders/${o.id}/fail`, { reason: 'lazy' });
    expect(bad.status).toBe(422);
    expect(bad.body.error.param).toBe('reason');
    expect((await call('POST', `/v1/orders/${o.id}/assign`, { courier_id: courier })).status).toBe(200);
    await call('POST', `/v1/orders/${o.id}/pickup`);
    expect((await call('POST', `/v1/orders/${o.id}/fail`, { reason: 'wrong_address' })).body.attempts).toBe(2);
    const rs = await call('POST', `/v1/orders/${o.id}/reschedule`, {
      requested_date: '2030-05-01T10:00:00Z',
      time_window: { start: '09:00', end: '12:00' },
    });
    expect(rs.body).toMatchObject({
      status: 'rescheduled',
      requested_date: '2030-05-01T10:00:00Z',
      time_window: { start: '09:00', end: '12:00' },
      courier: null,
    });
    const badTw = await orderIn(t, m.test, op, courier, 'pending');
    const tw = await call('POST', `/v1/orders/${badTw.id}/reschedule`, {
      requested_date: '2030-05-01T10:00:00Z',
      time_window: { start: '12:00', end: '09:00' },
    });
    expect(tw.status).toBe(422);
    expect(tw.body.error.param).toBe('time_window.end');
    expect((await call('POST', `/v1/orders/${badTw.id}/reschedule`, { requested_date: 'tomorrow' })).status).toBe(422);
    const ret = await call('POST', `/v1/orders/${o.id}/return`, { notes: 'Back to warehouse' });
    expect(ret.body.status).toBe('returned');

    const ev = await eventsOf(t, o.id);
    const failedEv = ev.filter((e) => e.event === 'order.failed');
    expect(failedEv.map((e) => e.data.reason)).toEqual(['customer_absent', 'wrong_address']);
    expect(failedEv[0].data).toMatchObject({ status: 'failed', notes: 'No answer', attempts: 1 });
    const resched = ev.find((e) => e.event === 'order.rescheduled');
    expect(resched.data).toMatchObject({ status: 'rescheduled', requested_date: '2030-05-01T10:00:00Z' });
    const returned = ev.find((e) => e.event === 'order.returned');
    expect(returned.data.status).toBe('returned');
    expect(Date.parse(returned.data.returned_at)).not.toBeNaN();
    expect(ev.map((e) => e.data.sequence)).toEqual(ev.map((_e, i) => i + 1));
  });

  it('partial delivery: fewer packages gives partially_delivered with its event', async () => {
    const o = await orderIn(t, m.test, op, courier, 'partially_delivered');
    const got = (await client(t.app, m.test)('GET', `/v1/orders/${o.id}`)).body;
    expect(got).toMatchObject({ status: 'partially_delivered', attempts: 1 });
    const ev = (await eventsOf(t, o.id)).at(-1);
    expect(ev.event).toBe('order.partially_delivered');
    expect(ev.data).toMatchObject({ status: 'partially_delivered', delivered_packages: 1, packages: 2 });
    expect(ev.data.proof.receiver_name).toBe('Ana');
    const proof = await client(t.app, m.test)('GET', `/v1/orders/${o.id}/proof`);
    expect(proof.status).toBe(200);
    expect(proof.body.delivered_packages).toBe(1);
  });

  it('permissions: operator across accounts, sandbox test keys, live keys refused', async () => {
    const o = await orderIn(t, m.test, m.test, courier, 'pending');
    // Operator keys read and move any account's orders in their environment…
    expect((await client(t.app, op)('GET', `/v1/orders/${o.id}`)).status).toBe(200);
    expect((await client(t.app, op)('POST', `/v1/orders/${o.id}/validate`)).status).toBe(200);
    // …but create no orders, and see nothing of the other environment.
    const create = await client(t.app, op)('POST', '/v1/orders', validOrder());
    expect(create.status).toBe(403);
    expect(create.body.error).toMatchObject({ type: 'permission_error', code: 'permission_denied' });
    expect((await client(t.app, opLive)('POST', `/v1/orders/${o.id}/assign`, { courier_id: courier })).status).toBe(
      404,
    );
    // Another merchant's test key: 404, never 403.
    const foreign = await client(t.app, other.test)('POST', `/v1/orders/${o.id}/assign`, { courier_id: courier });
    expect(foreign.status).toBe(404);
    // A test key may not use the carrier's couriers? It may not see them at all: 422 on courier_id.
    const carrier = await client(t.app, m.test)('POST', `/v1/orders/${o.id}/assign`, { courier_id: courier });
    expect(carrier.status).toBe(422);
    expect(carrier.body.error.param).toBe('courier_id');
    // The sandbox: its own courier.
    const mine = (await client(t.app, m.test)('POST', '/v1/couriers', { name: 'Sandbox Sam' })).body;
    expect(mine.account).toBe(m.accountId);
    const ok = await client(t.app, m.test)('POST', `/v1/orders/${o.id}/assign`, { courier_id: mine.id });
    expect(ok.status).toBe(200);
    expect(ok.body.courier).toEqual({ id: mine.id, name: 'Sandbox Sam' });
    // Another merchant cannot use that sandbox courier, even on an operator key for its own order.
    const theirs = await orderIn(t, other.test, other.test, courier, 'pending');
    const cross = await client(t.app, op)('POST', `/v1/orders/${theirs.id}/assign`, { courier_id: mine.id });
    expect(cross.status).toBe(422);

    // Live secret keys drive nothing, even on their own live orders.
    const live = (await client(t.app, m.live)('POST', '/v1/orders', validOrder())).body;
    for (const [method, url, body] of [
      ['POST', `/v1/orders/${live.id}/validate`, undefined],
      ['POST', `/v1/orders/${live.id}/assign`, { courier_id: courier }],
      ['POST', '/v1/couriers', { name: 'X' }],
      ['GET', '/v1/couriers', undefined],
      ['POST', '/v1/routes', { courier_id: courier, order_ids: [live.id] }],
    ] as const) {
      const res = await client(t.app, m.live)(method, url, body);
      expect(res.status, url).toBe(403);
      expect(res.body.error.code).toBe('permission_denied');
    }
    // Cancel is a merchant operation and stays open to live keys.
    expect((await client(t.app, m.live)('POST', `/v1/orders/${live.id}/cancel`)).status).toBe(200);
    // The live operator moves live orders.
    const live2 = (await client(t.app, m.live)('POST', '/v1/orders', validOrder())).body;
    expect((await client(t.app, opLive)('POST', `/v1/orders/${live2.id}/validate`)).status).toBe(200);
  });

  it('a disabled courier gets no new orders or routes, and keeps moving the ones it holds', async () => {
    const api = client(t.app, op);
    const gone = (await api('POST', '/v1/couriers', { name: 'Ana Leaving' })).body.id;
    const held = await orderIn(t, m.test, op, gone, 'assigned');
    expect((await api('PATCH', `/v1/couriers/${gone}`, { status: 'disabled' })).status).toBe(200);
    const o = await orderIn(t, m.test, op, courier, 'pending');
    const assign = await api('POST', `/v1/orders/${o.id}/assign`, { courier_id: gone });
    expect(assign.status).toBe(422);
    expect(assign.body.error).toMatchObject({ code: 'parameter_invalid', param: 'courier_id' });
    expect(assign.body.error.message).toContain('disabled');
    const route = await api('POST', '/v1/routes', { courier_id: gone, order_ids: [o.id] });
    expect(route.status).toBe(422);
    expect(route.body.error.param).toBe('courier_id');
    expect((await api('GET', `/v1/orders/${o.id}`)).body.status).toBe('pending');
    // What it already holds can still be reassigned to an active courier.
    const moved = await api('POST', `/v1/orders/${held.id}/assign`, { courier_id: courier });
    expect(moved.status).toBe(200);
    expect(moved.body.courier.id).toBe(courier);
    // Enabled again, it takes work.
    expect((await api('PATCH', `/v1/couriers/${gone}`, { status: 'active' })).status).toBe(200);
    expect((await api('POST', `/v1/orders/${o.id}/assign`, { courier_id: gone })).status).toBe(200);
  });

  it('validates move bodies: unknown fields, missing and malformed input', async () => {
    const o = await orderIn(t, m.test, op, courier, 'pending');
    const call = client(t.app, op);
    const unknown = await call('POST', `/v1/orders/${o.id}/validate`, { foo: 1 });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.code).toBe('parameter_unknown');
    const missing = await call('POST', `/v1/orders/${o.id}/assign`, {});
    expect(missing.status).toBe(422);
    expect(missing.body.error.param).toBe('courier_id');
    const noCourier = await call('POST', `/v1/orders/${o.id}/assign`, { courier_id: 'cou_nope' });
    expect(noCourier.status).toBe(422);
    expect(
      (await call('POST', `/v1/orders/${o.id}/validate`, '{bad', { 'content-type': 'application/json' })).status,
    ).toBe(400);
    expect((await call('POST', '/v1/orders/ord_missing/validate')).status).toBe(404);
    expect((await client(t.app)('POST', `/v1/orders/${o.id}/validate`)).status).toBe(401);
  });

  it('concurrent moves from the same status: exactly one wins', async () => {
    const o = await orderIn(t, m.test, op, courier, 'assigned');
    const call = client(t.app, op);
    const results = await Promise.all(Array.from({ length: 10 }, () => call('POST', `/v1/orders/${o.id}/pickup`)));
    const codes = results.map((r) => r.status).sort();
    expect(codes.filter((c) => c === 200)).toHaveLength(1);
    expect(codes.filter((c) => c === 409)).toHaveLength(9);
    const ev = await eventsOf(t, o.id);
    expect(ev.filter((e) => e.event === 'order.picked_up')).toHaveLength(1);
    expect(ev.map((e) => e.data.sequence)).toEqual(ev.map((_e, i) => i + 1));
    const tl = (await call('GET', `/v1/orders/${o.id}/tracking`)).body.timeline;
    expect(tl.filter((x: { status: string }) => x.status === 'picked_up')).toHaveLength(1);

    // Re-assigning stays in `assigned`: racing re-assignments still serialise on the version check.
    const a = await orderIn(t, m.test, op, courier, 'assigned');
    const b = (await call('POST', '/v1/couriers', { name: 'Second' })).body.id;
    const race = await Promise.all(
      Array.from({ length: 6 }, (_x, i) =>
        call('POST', `/v1/orders/${a.id}/assign`, { courier_id: i % 2 ? courier : b }),
      ),
    );
    const wins = race.filter((r) => r.status === 200).length;
    expect(wins).toBeGreaterThanOrEqual(1);
    const assigned = (await eventsOf(t, a.id)).filter((e) => e.event === 'order.assigned');
    expect(assigned).toHaveLength(1 + wins);
    expect(race.every((r) => r.status === 200 || r.status === 409)).toBe(true);
  });
});
