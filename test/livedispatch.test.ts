import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAccount } from '../src/features/accounts/service.js';
import {
  client,
  describeEach,
  type Merchant,
  newMerchant,
  newOperator,
  type Res,
  startApp,
  type TestApp,
  validOrder,
} from './helpers.js';
import { courierSession, sessionClient } from './people-helpers.js';

/**
 * Live dispatch (DESIGN §16, docs/dispatch.md): suggestions, dispatching into a route under way,
 * the auto-dispatch sweep. The app's clock is held at 09:00 UTC of a working day (the default
 * shift is 08:00–18:00 UTC), so every test sees the same day. Each test makes its own merchant
 * and sandbox couriers (a merchant's test couriers serve only its orders), so the carrier's
 * ranking in one test never sees another test's couriers.
 */

const NINE = Date.parse('2030-03-04T09:00:00Z');
let now = NINE;

const at = (lat: number, lng: number, over: Record<string, unknown> = {}) =>
  validOrder({ delivery_address: { address: 'Calle 1', city: 'Lima', lat, lng }, ...over });

describeEach('live dispatch', (engine) => {
  let t: TestApp;
  let op: ReturnType<typeof client>;
  let opKey: string;
  let opLive: ReturnType<typeof client>;

  beforeAll(async () => {
    t = await startApp(engine, {}, { clock: () => now });
    opKey = await newOperator(t, 'test');
    op = client(t.app, opKey);
    opLive = client(t.app, await newOperator(t, 'live'));
  });
  afterAll(async () => t?.close());
  beforeEach(() => {
    now = NINE;
  });

  const ok = <T = any>(res: Res<T>, status = 200): T => {
    expect(res.status, JSON.stringify(res.body).slice(0, 400)).toBe(status);
    return res.body;
  };

  /** A merchant with two sandbox couriers under way: C1 east with two stops, C2 west with one. */
  async function scene() {
    const m = await newMerchant(t, 'Dispatch');
    const mc = client(t.app, m.test);
    const courier = async (name: string, lat: number, lng: number, extra: Record<string, unknown> = {}) => {
      const c = ok(await mc('POST', '/v1/couriers', { name, ...extra }), 201);
      ok(await mc('POST', `/v1/couriers/${c.id}/location`, { lat, lng }));
      return c;
    };
    const c1 = await courier('East', -12.1, -77.03);
    const c2 = await courier('West', -12.1, -77.1);
    const o1 = ok(await mc('POST', '/v1/orders', at(-12.11, -77.03)), 201);
    const o2 = ok(await mc('POST', '/v1/orders', at(-12.12, -77.03)), 201);
    const o3 = ok(await mc('POST', '/v1/orders', at(-12.11, -77.1)), 201);
    const r1 = ok(await mc('POST', '/v1/routes', { courier_id: c1.id, order_ids: [o1.id, o2.id] }), 201);
    const r2 = ok(await mc('POST', '/v1/routes', { courier_id: c2.id, order_ids: [o3.id] }), 201);
    return { m, mc, c1, c2, o1, o2, o3, r1, r2, courier };
  }

  it('ranks couriers by the cheapest insertion, with every stop\u2019s new ETA', async () => {
    const s = await scene();
    const n = ok(await s.mc('POST', '/v1/orders', at(-12.115, -77.03)), 201);
    const res = ok(await op('GET', `/v1/orders/${n.id}/dispatch_suggestions`));
    expect(res.object).toBe('list');
    expect(res.order).toBe(n.id);
    expect(res.auto_dispatch).toBe('off');
    expect(res.data.map((x: any) => x.courier.id)).toEqual([s.c1.id, s.c2.id]);
    const best = res.data[0];
    expect(best).toMatchObject({
      route: s.r1.id,
      position: 2,
      feasible: true,
      violations: [],
      starts_from: 'position',
    });
    // Between its two stops, which lie on one street: a detour of almost nothing.
    expect(best.added_km).toBeGreaterThanOrEqual(0);
    expect(best.added_km).toBeLessThan(res.data[1].added_km);
    expect(best.stops.map((x: any) => x.order_id)).toEqual([s.o1.id, n.id, s.o2.id]);
    expect(best.stops.map((x: any) => x.position)).toEqual([1, 2, 3]);
    const [first, inserted, last] = best.stops;
    expect(inserted.previous_arrival_at).toBeNull();
    // The stop before keeps its ETA; the one after is later by the new stop's service time and more.
    expect(first.arrival_at).toBe(first.previous_arrival_at);
    expect(Date.parse(last.arrival_at) - Date.parse(last.previous_arrival_at)).toBeGreaterThanOrEqual(5 * 60_000);
    // ETAs start from the courier's position at 09:00.
    expect(Date.parse(first.arrival_at)).toBeGreaterThan(NINE);
    expect(Date.parse(first.arrival_at)).toBeLessThan(NINE + 10 * 60_000);
  });

  it('dispatches to the best courier: assigned, placed at its position, order.assigned written', async () => {
    const s = await scene();
    const n = ok(await s.mc('POST', '/v1/orders', at(-12.115, -77.03)), 201);
    const res = ok(await op('POST', `/v1/orders/${n.id}/dispatch`, {}));
    expect(res).toMatchObject({ object: 'dispatch', order: n.id, route: s.r1.id });
    expect(res.suggestion.courier.id).toBe(s.c1.id);
    const order = ok(await s.mc('GET', `/v1/orders/${n.id}`));
    expect(order).toMatchObject({ status: 'assigned', route: s.r1.id, courier: { id: s.c1.id } });
    const route = ok(await s.mc('GET', `/v1/routes/${s.r1.id}`));
    expect(route.stops.map((x: any) => [x.position, x.order])).toEqual([
      [1, s.o1.id],
      [2, n.id],
      [3, s.o2.id],
    ]);
    const events = ok(await s.mc('GET', `/v1/events?order=${n.id}`));
    expect(events.data.map((e: any) => e.event)).toContain('order.assigned');
    // Dispatching it again is another move from assigned: allowed, and it stays where it is best.
    const again = ok(await op('POST', `/v1/orders/${n.id}/dispatch`, {}));
    expect(again.route).toBe(s.r1.id);
    const after = ok(await s.mc('GET', `/v1/routes/${s.r1.id}`));
    expect(after.stops.map((x: any) => x.order)).toEqual([s.o1.id, n.id, s.o2.id]);
  });

  it('names what an insertion breaks; without a courier that fits, 409 unless one is named', async () => {
    const s = await scene();
    // A window that closed before anyone can get there.
    const late = ok(
      await s.mc('POST', '/v1/orders', at(-12.2, -77.2, { time_window: { start: '08:00', end: '09:05' } })),
      201,
    );
    const res = ok(await op('GET', `/v1/orders/${late.id}/dispatch_suggestions`));
    expect(res.data.length).toBe(2);
    for (const sug of res.data) {
      expect(sug.feasible).toBe(false);
      expect(sug.violations).toContainEqual(
        expect.objectContaining({
          constraint: 'time_window',
          order_id: late.id,
          message: expect.stringMatching(/after its window 08:00.09:05/),
        }),
      );
    }
    const refused = await op('POST', `/v1/orders/${late.id}/dispatch`, {});
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('no_courier_fits');
    expect(ok(await s.mc('GET', `/v1/orders/${late.id}`)).status).toBe('pending');
    // Named: inserted anyway, and the answer says what it breaks.
    const forced = ok(await op('POST', `/v1/orders/${late.id}/dispatch`, { courier_id: s.c2.id }));
    expect(forced.route).toBe(s.r2.id);
    expect(forced.suggestion.feasible).toBe(false);
    expect(forced.suggestion.violations[0].constraint).toBe('time_window');
  });

  it('capacity: a full vehicle is not suggested as feasible', async () => {
    const s = await scene();
    // Each order is 3 packages; C3 takes 3 and already carries one order.
    const c3 = await s.courier('Small', -12.115, -77.031, { capacity_packages: 3 });
    const o4 = ok(await s.mc('POST', '/v1/orders', at(-12.116, -77.031)), 201);
    ok(await s.mc('POST', '/v1/routes', { courier_id: c3.id, order_ids: [o4.id] }), 201);
    const n = ok(await s.mc('POST', '/v1/orders', at(-12.1155, -77.031)), 201);
    const res = ok(await op('GET', `/v1/orders/${n.id}/dispatch_suggestions`));
    const small = res.data.find((x: any) => x.courier.id === c3.id);
    expect(small.feasible).toBe(false);
    expect(small.violations[0]).toMatchObject({ constraint: 'capacity' });
    expect(res.data[0].courier.id).not.toBe(c3.id);
    expect(res.data.at(-1).courier.id).toBe(c3.id);
  });

  it('skills and route limits: a courier without the order\u2019s requirements, or at its most stops, is not feasible', async () => {
    const s = await scene();
    // East is nearest but has no `cold`; West has it. Then West is capped at the one stop it has.
    ok(await s.mc('PATCH', `/v1/couriers/${s.c2.id}`, { skills: ['cold'] }));
    const n = ok(await s.mc('POST', '/v1/orders', at(-12.115, -77.03, { requirements: ['cold'] })), 201);
    const res = ok(await op('GET', `/v1/orders/${n.id}/dispatch_suggestions`));
    expect(res.data.map((x: any) => x.courier.id)).toEqual([s.c2.id, s.c1.id]);
    expect(res.data[0].feasible).toBe(true);
    expect(res.data[1]).toMatchObject({ feasible: false, violations: [{ constraint: 'skills', order_id: n.id }] });
    ok(await s.mc('PATCH', `/v1/couriers/${s.c2.id}`, { max_stops: 1 }));
    const capped = ok(await op('GET', `/v1/orders/${n.id}/dispatch_suggestions`));
    const west = capped.data.find((x: any) => x.courier.id === s.c2.id);
    expect(west).toMatchObject({ feasible: false, violations: [{ constraint: 'route_limit' }] });
  });

  describe('time zones', () => {
    // An app of its own: the carrier's courier here would be suggested in every other test.
    let z: TestApp;
    beforeAll(async () => {
      z = await startApp(engine, {}, { clock: () => now });
    });
    afterAll(async () => z?.close());

    it('reads each stop\u2019s window in its order\u2019s zone, not the new order\u2019s', async () => {
      const carrier = client(z.app, await newOperator(z, 'test'));
      const shop = async (timezone: string) =>
        client(z.app, (await createAccount(z.ctx, { name: `Shop ${timezone}`, timezone })).keys.test);
      const lima = await shop('America/Lima');
      const utc = await shop('UTC');
      const c = ok(await carrier('POST', '/v1/couriers', { name: 'Carrier rider' }), 201);
      ok(await carrier('POST', `/v1/couriers/${c.id}/location`, { lat: -12.1, lng: -77.03 }));
      // 08:00–09:01 in Lima is 13:00–14:01 UTC, ahead of the 09:00 UTC clock; read in UTC (the new
      // order's zone) it would be missed already.
      const window = { time_window: { start: '08:00', end: '09:01' } };
      const a = ok(await lima('POST', '/v1/orders', at(-12.11, -77.03, window)), 201);
      ok(await carrier('POST', '/v1/routes', { courier_id: c.id, order_ids: [a.id] }), 201);
      const n = ok(await utc('POST', '/v1/orders', at(-12.12, -77.03)), 201);
      const sug = ok(await carrier('GET', `/v1/orders/${n.id}/dispatch_suggestions`));
      expect(sug.data).toHaveLength(1);
      expect(sug.data[0]).toMatchObject({ feasible: true, violations: [] });
      // The Lima stop is served when its window opens, 08:00 there; read in UTC it was 09:03.
      const stop = sug.data[0].stops.find((x: any) => x.order_id === a.id);
      expect(stop.service_start_at).toBe('2030-03-04T13:00:00.000Z');
    });
  });

  it('a courier on duty without a route gets a new route of the day', async () => {
    const m = await newMerchant(t, 'Fresh');
    const mc = client(t.app, m.test);
    const c = ok(await mc('POST', '/v1/couriers', { name: 'Solo' }), 201);
    ok(await mc('POST', `/v1/couriers/${c.id}/location`, { lat: -12.1, lng: -77.03 }));
    const n = ok(await mc('POST', '/v1/orders', at(-12.11, -77.03)), 201);
    const sug = ok(await op('GET', `/v1/orders/${n.id}/dispatch_suggestions`));
    expect(sug.data).toHaveLength(1);
    expect(sug.data[0]).toMatchObject({ route: null, position: 1, feasible: true });
    const res = ok(await op('POST', `/v1/orders/${n.id}/dispatch`, {}));
    const route = ok(await mc('GET', `/v1/routes/${res.route}`));
    expect(route).toMatchObject({ date: '2030-03-04', courier: { id: c.id } });
    expect(route.stops.map((x: any) => x.order)).toEqual([n.id]);
  });

  it('refuses orders it cannot dispatch: no coordinates, finished, unknown courier', async () => {
    const s = await scene();
    const nowhere = ok(
      await s.mc('POST', '/v1/orders', validOrder({ delivery_address: { address: 'Somewhere', city: 'Lima' } })),
      201,
    );
    const res = await op('GET', `/v1/orders/${nowhere.id}/dispatch_suggestions`);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('order_not_dispatchable');
    const cancelled = ok(await s.mc('POST', '/v1/orders', at(-12.11, -77.03)), 201);
    ok(await s.mc('POST', `/v1/orders/${cancelled.id}/cancel`, {}));
    const moved = await op('POST', `/v1/orders/${cancelled.id}/dispatch`, {});
    expect(moved.status).toBe(409);
    expect(moved.body.error.code).toBe('invalid_transition');
    const n = ok(await s.mc('POST', '/v1/orders', at(-12.11, -77.03)), 201);
    const bad = await op('POST', `/v1/orders/${n.id}/dispatch`, { courier_id: 'cou_nope' });
    expect(bad.status).toBe(422);
    expect(bad.body.error.param).toBe('courier_id');
    const extra = await op('POST', `/v1/orders/${n.id}/dispatch`, { courier: s.c1.id });
    expect(extra.status).toBe(422);
    expect(extra.body.error.code).toBe('parameter_unknown');
  });

  describe('auto-dispatch', () => {
    it('settings: the carrier\u2019s mode and per-account overrides, validated', async () => {
      const m = await newMerchant(t, 'Settings');
      const res = ok(
        await op('PATCH', '/v1/dispatch_settings', { accounts: [{ account: m.accountId, auto_dispatch: 'suggest' }] }),
      );
      expect(res.object).toBe('dispatch_settings');
      expect(res.accounts).toContainEqual(expect.objectContaining({ account: m.accountId, auto_dispatch: 'suggest' }));
      const read = ok(await op('GET', '/v1/dispatch_settings'));
      expect(read.accounts).toContainEqual(expect.objectContaining({ account: m.accountId, auto_dispatch: 'suggest' }));
      // The live environment has its own settings.
      expect(ok(await opLive('GET', '/v1/dispatch_settings')).accounts).toEqual([]);
      const bad = await op('PATCH', '/v1/dispatch_settings', { auto_dispatch: 'sometimes' });
      expect(bad.status).toBe(422);
      expect(bad.body.error.param).toBe('auto_dispatch');
      const unknown = await op('PATCH', '/v1/dispatch_settings', {
        accounts: [{ account: 'acct_nope', auto_dispatch: 'off' }],
      });
      expect(unknown.status).toBe(422);
      expect(unknown.body.error.param).toBe('accounts[0].account');
      const removed = ok(
        await op('PATCH', '/v1/dispatch_settings', { accounts: [{ account: m.accountId, auto_dispatch: null }] }),
      );
      expect(removed.accounts.map((a: any) => a.account)).not.toContain(m.accountId);
    });

    it('assign: a worker inserts a new same-day order within one sweep, once', async () => {
      const s = await scene();
      ok(
        await op('PATCH', '/v1/dispatch_settings', { accounts: [{ account: s.m.accountId, auto_dispatch: 'assign' }] }),
      );
      await t.jobs.idle();
      const n = ok(await s.mc('POST', '/v1/orders', at(-12.115, -77.03)), 201);
      // Another day's order and one that fits nowhere are left to the dispatcher.
      const tomorrow = ok(await s.mc('POST', '/v1/orders', at(-12.115, -77.03, { requested_date: '2030-03-05' })), 201);
      const late = ok(
        await s.mc('POST', '/v1/orders', at(-12.2, -77.2, { time_window: { start: '08:00', end: '09:01' } })),
        201,
      );
      expect(ok(await op('GET', `/v1/orders/${n.id}/dispatch_suggestions`)).auto_dispatch).toBe('assign');
      now += 5_000;
      await t.jobs.idle();
      const order = ok(await s.mc('GET', `/v1/orders/${n.id}`));
      expect(order).toMatchObject({ status: 'assigned', route: s.r1.id, courier: { id: s.c1.id } });
      expect(ok(await s.mc('GET', `/v1/orders/${tomorrow.id}`)).status).toBe('pending');
      expect(ok(await s.mc('GET', `/v1/orders/${late.id}`)).status).toBe('pending');
      // The next sweeps leave them alone: one order.assigned for n, none for the others.
      now += 5_000;
      await t.jobs.idle();
      now += 5_000;
      await t.jobs.idle();
      const events = ok(await s.mc('GET', `/v1/events?order=${n.id}`));
      expect(events.data.filter((e: any) => e.event === 'order.assigned')).toHaveLength(1);
      expect(ok(await s.mc('GET', `/v1/orders/${late.id}`)).status).toBe('pending');
      ok(await op('PATCH', '/v1/dispatch_settings', { accounts: [{ account: s.m.accountId, auto_dispatch: null }] }));
    });

    it('suggest and off: nothing is assigned by the worker', async () => {
      const s = await scene();
      ok(
        await op('PATCH', '/v1/dispatch_settings', {
          accounts: [{ account: s.m.accountId, auto_dispatch: 'suggest' }],
        }),
      );
      const n = ok(await s.mc('POST', '/v1/orders', at(-12.115, -77.03)), 201);
      now += 5_000;
      await t.jobs.idle();
      now += 5_000;
      await t.jobs.idle();
      expect(ok(await s.mc('GET', `/v1/orders/${n.id}`)).status).toBe('pending');
    });
  });

  describe('isolation', () => {
    it('merchants and couriers get 403; the other environment\u2019s order 404', async () => {
      const s = await scene();
      const n = ok(await s.mc('POST', '/v1/orders', at(-12.115, -77.03)), 201);
      const calls: [string, string, unknown?][] = [
        ['GET', `/v1/orders/${n.id}/dispatch_suggestions`],
        ['POST', `/v1/orders/${n.id}/dispatch`, {}],
        ['GET', '/v1/dispatch_settings'],
        ['PATCH', '/v1/dispatch_settings', { auto_dispatch: 'off' }],
      ];
      for (const [method, path, body] of calls) {
        for (const key of [s.m.test, s.m.live]) {
          const res = await client(t.app, key)(method as 'GET', path, body);
          expect(res.status, `${method} ${path}`).toBe(403);
          expect(res.body.error.code).toBe('permission_denied');
        }
        const none = await client(t.app)(method as 'GET', path, body);
        expect(none.status).toBe(401);
      }
      // A courier's phone: 403 on every one of them.
      const phone = sessionClient(t, await courierSession(t, opKey, s.c1.id));
      for (const [method, path, body] of calls) {
        const res = await phone(method as 'GET', path, body);
        expect(res.status, `courier ${method} ${path}`).toBe(403);
      }
      // The live carrier cannot see a test order.
      for (const [method, path] of [
        ['GET', `/v1/orders/${n.id}/dispatch_suggestions`],
        ['POST', `/v1/orders/${n.id}/dispatch`],
      ] as const) {
        const res = await opLive(method, path, method === 'POST' ? {} : undefined);
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe('resource_missing');
      }
      expect(ok(await s.mc('GET', `/v1/orders/${n.id}`)).status).toBe('pending');
    });

    it('another account\u2019s sandbox courier is never suggested nor accepted', async () => {
      const s = await scene();
      const other = await scene();
      const n = ok(await s.mc('POST', '/v1/orders', at(-12.115, -77.03)), 201);
      const res = ok(await op('GET', `/v1/orders/${n.id}/dispatch_suggestions`));
      const ids = res.data.map((x: any) => x.courier.id);
      expect(ids).not.toContain(other.c1.id);
      expect(ids).not.toContain(other.c2.id);
      const bad = await op('POST', `/v1/orders/${n.id}/dispatch`, { courier_id: other.c1.id });
      expect(bad.status).toBe(422);
      expect(bad.body.error.param).toBe('courier_id');
    });
  });
});

export type { Merchant };
