import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
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
import { solvedPlan } from './route-plan-helpers.js';

// Route plan edits with travel from OSRM's table service: an edit is timed like the run (same
// server), a failing server leaves the plan as it was (503), and a failed plan cannot be edited.

const DATE = '2030-03-04';
const LIMA = { lat: -12.1211, lng: -77.0297 };

describeEach('route plan edits with OSRM', (engine) => {
  let t: TestApp;
  let osrm: Server;
  let m: Merchant;
  let opKey: string;
  let op: ReturnType<typeof client>;
  let depot: { id: string };
  let courier: { id: string };
  let failing = false;
  const requests: string[] = [];

  beforeAll(async () => {
    // Every pair 600 s and 4 km apart, or a 500 while `failing`.
    osrm = createServer((req, res) => {
      requests.push(req.url ?? '');
      if (failing) {
        res.statusCode = 500;
        res.end('{"code":"InvalidQuery"}');
        return;
      }
      const coords = decodeURIComponent((req.url ?? '').split('/table/v1/driving/')[1]?.split('?')[0] ?? '');
      const n = coords.split(';').length;
      const grid = (v: number) =>
        Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => (i === j ? 0 : v)));
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ code: 'Ok', durations: grid(600), distances: grid(4000) }));
    });
    await new Promise<void>((r) => osrm.listen(0, '127.0.0.1', r));
    const port = (osrm.address() as AddressInfo).port;
    t = await startApp(engine, { RUTA_OSRM_URL: `http://127.0.0.1:${port}`, RUTA_SERVICE_MINUTES_PER_STOP: '5' });
    m = await newMerchant(t);
    opKey = await newOperator(t, 'test');
    op = client(t.app, opKey);
    depot = (await op('POST', '/v1/depots', { name: 'D', lat: LIMA.lat, lng: LIMA.lng })).body;
    courier = (await op('POST', '/v1/couriers', { name: 'C', shift_start: '08:00' })).body;
  });
  afterAll(async () => {
    await t?.close();
    await new Promise((r) => osrm?.close(r));
  });

  const order = async (dLat: number) => {
    const address = { address: 'Av. Larco 1', city: 'Lima', lat: LIMA.lat + dLat, lng: LIMA.lng };
    return (await client(t.app, m.test)('POST', '/v1/orders', validOrder({ delivery_address: address }))).body as {
      id: string;
    };
  };
  const planBody = (orderIds: string[]) => ({
    date: DATE,
    depot: depot.id,
    couriers: [{ courier_id: courier.id }],
    order_ids: orderIds,
    time_limit_ms: 100,
  });
  const plan = (orderIds: string[]) => solvedPlan<{ id: string }>(t, opKey, planBody(orderIds));

  it('times an edit with the table service; a failing server changes nothing (503)', async () => {
    const [a, b] = [await order(0.01), await order(-0.01)];
    const p = await plan([a.id, b.id]);
    const before = requests.length;
    const res = await op('PATCH', `/v1/route_plans/${p.id}`, {
      routes: [{ courier_id: courier.id, order_ids: [b.id, a.id] }],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(requests.length).toBe(before + 1);
    const [route] = res.body.routes;
    // 08:00 (UTC) start, 10 minutes a leg, 5 a stop: 08:10, 08:25, back 08:40; three legs of 4 km.
    expect(route.stops.map((s: { order_id: string }) => s.order_id)).toEqual([b.id, a.id]);
    expect(route.stops.map((s: { arrival_at: string }) => s.arrival_at)).toEqual([
      `${DATE}T08:10:00.000Z`,
      `${DATE}T08:25:00.000Z`,
    ]);
    expect(route.end_at).toBe(`${DATE}T08:40:00.000Z`);
    expect(route.distance_km).toBeCloseTo(12, 6);

    failing = true;
    try {
      const down = await op('PATCH', `/v1/route_plans/${p.id}`, {
        routes: [{ courier_id: courier.id, order_ids: [a.id, b.id] }],
      });
      expect(down.status).toBe(503);
      expect(down.body.error.code).toBe('service_unavailable');
    } finally {
      failing = false;
    }
    expect((await op('GET', `/v1/route_plans/${p.id}`)).body).toEqual(res.body);
  });

  it('a failed plan cannot be edited or committed (409 plan_not_ready)', async () => {
    failing = true;
    let p: { id: string; status: string };
    try {
      // Not solvedPlan: this plan is meant to fail, and is read back as it ended.
      const created = await op('POST', '/v1/route_plans', planBody([(await order(0.02)).id]));
      expect(created.status, JSON.stringify(created.body)).toBe(202);
      await t.jobs.idle();
      p = (await op('GET', `/v1/route_plans/${created.body.id}`)).body;
    } finally {
      failing = false;
    }
    expect(p.status).toBe('failed');
    const res = await op('PATCH', `/v1/route_plans/${p.id}`, { routes: [{ courier_id: courier.id, order_ids: [] }] });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('plan_not_ready');
    expect((await op('POST', `/v1/route_plans/${p.id}/commit`)).body.error.code).toBe('plan_not_ready');
  });

  it('an edited plan is still checked for staleness at commit: 409 plan_stale, nothing assigned', async () => {
    const [a, b] = [await order(0.03), await order(-0.03)];
    const p = await plan([a.id, b.id]);
    const res = await op('PATCH', `/v1/route_plans/${p.id}`, {
      routes: [{ courier_id: courier.id, order_ids: [b.id, a.id] }],
    });
    expect(res.status).toBe(200);
    expect((await client(t.app, m.test)('POST', `/v1/orders/${a.id}/cancel`, { reason: 'no' })).status).toBe(200);
    // Staleness comes first, with or without force.
    const stale = await op('POST', `/v1/route_plans/${p.id}/commit`, { force: true });
    expect(stale.status).toBe(409);
    expect(stale.body.error.code).toBe('plan_stale');
    expect(stale.body.error.message).toContain(a.id);
    expect((await client(t.app, m.test)('GET', `/v1/orders/${b.id}`)).body.status).toBe('pending');
  });
});
