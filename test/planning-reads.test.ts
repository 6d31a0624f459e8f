import { afterAll, beforeAll, expect, it } from 'vitest';
import { assignableOrders, ordersByIds } from '../src/features/planning/repo.js';
import { travelMatrices } from '../src/features/planning/travel.js';
import { loadConfig } from '../src/shared/config.js';
import { haversineKm, ROAD_FACTOR } from '../src/shared/geo.js';
import { client, describeEach, type Merchant, newMerchant, startApp, type TestApp, validOrder } from './helpers.js';

// A plan reads up to 2 000 orders and fills 2 000² travel pairs on the API's thread; both are done in
// parts with turns of the event loop between them, so the requests arriving meanwhile are answered
// (bench:plans measures it). These tests pin what the parts must still add up to.

const config = loadConfig({ RUTA_COURIER_SPEED_KMH: '24' });
const grid = (n: number) => Array.from({ length: n }, (_, i) => ({ lat: -12 - (i % 20) * 0.01, lng: -77 + i * 0.001 }));

it('the haversine matrices hold every pair, road kilometres and minutes at the configured speed', async () => {
  const points = grid(30);
  const { km, minutes } = await travelMatrices(config, points);
  for (let i = 0; i < points.length; i++) {
    for (let j = 0; j < points.length; j++) {
      const d = i === j ? 0 : haversineKm(points[i]!, points[j]!) * ROAD_FACTOR;
      expect(km[i * points.length + j]).toBe(d);
      expect(minutes[i * points.length + j]).toBe((d / 24) * 60);
    }
  }
});

it('filling a large matrix gives the event loop turns, and stops when the plan is aborted', async () => {
  let turns = 0;
  let ticking = true;
  const tick = () => {
    turns++;
    if (ticking) setImmediate(tick);
  };
  setImmediate(tick);
  // 400 places = 160 000 pairs: at least three turns of 50 000.
  await travelMatrices(config, grid(400));
  ticking = false;
  expect(turns).toBeGreaterThanOrEqual(3);

  const abort = new AbortController();
  setImmediate(() => abort.abort(new Error('plan stopped')));
  await expect(travelMatrices(config, grid(400), abort.signal)).rejects.toThrow('plan stopped');
});

describeEach('reading a plan’s orders in parts', (engine) => {
  let t: TestApp;
  let m: Merchant;
  let other: Merchant;
  const ids: string[] = [];

  beforeAll(async () => {
    t = await startApp(engine, { RUTA_DEFAULT_TIMEZONE: 'America/Lima' }, { jobs: false });
    m = await newMerchant(t);
    other = await newMerchant(t);
    // 260 orders: more than one read of 250. They are created in order, so the oldest come first.
    for (let i = 0; i < 260; i++) {
      const res = await client(t.app, m.test)('POST', '/v1/orders', validOrder({ external_order_id: `P-${i}` }));
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      ids.push(res.body.id);
    }
  }, 120_000);
  afterAll(async () => t?.close());

  it('ordersByIds returns every order of its environment across parts, and none of another', async () => {
    const live = await client(t.app, other.live)('POST', '/v1/orders', validOrder());
    expect(live.status).toBe(201);
    const rows = await ordersByIds(t.ctx.db, 'test', [...ids, live.body.id, 'ord_missing']);
    expect(rows.map((r) => r.id).sort()).toEqual([...ids].sort());
    expect(await ordersByIds(t.ctx.db, 'test', [])).toEqual([]);
  });

  it('assignableOrders keeps the oldest-first order across parts and leaves out a cancelled order', async () => {
    const cancelled = ids[3]!;
    const res = await client(t.app, m.test)('POST', `/v1/orders/${cancelled}/cancel`, { reason: 'customer asked' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const rows = await assignableOrders(t.ctx.db, 'test', '2030-03-04', 2000);
    const mine = rows.map((r) => r.id).filter((id) => ids.includes(id));
    expect(mine).toEqual(ids.filter((id) => id !== cancelled));
    // The limit counts from the oldest.
    const first = await assignableOrders(t.ctx.db, 'test', '2030-03-04', 5);
    expect(first).toHaveLength(5);
  });
});
