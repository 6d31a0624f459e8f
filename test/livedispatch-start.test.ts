import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { backfill } from '../src/shared/db/migrations/043_routes_planned_depots.js';
import {
  client,
  describeEach,
  newMerchant,
  newOperator,
  type Res,
  startApp,
  type TestApp,
  validOrder,
} from './helpers.js';
import { solvedPlan } from './route-plan-helpers.js';

/**
 * Where a courier on duty starts from in dispatch suggestions (docs/dispatch.md, "From where and
 * when"): a courier whose route of the day was planned, with no start depot of its own and no
 * position, starts from the plan's depot; one with no start at all is not passed over in silence
 * but listed in `unavailable` with the reason. The clock is held at 09:00 UTC of a working day
 * (the default shift 08:00–18:00 UTC); each test makes its own merchant and sandbox couriers.
 */

const DAY = '2030-03-04';
const NINE = Date.parse(`${DAY}T09:00:00Z`);

const at = (lat: number, lng: number, over: Record<string, unknown> = {}) =>
  validOrder({ delivery_address: { address: 'Calle 1', city: 'Lima', lat, lng }, ...over });

describeEach('live dispatch: where a courier on duty starts', (engine) => {
  let t: TestApp;
  let opKey: string;
  let op: ReturnType<typeof client>;

  beforeAll(async () => {
    t = await startApp(engine, {}, { clock: () => NINE });
    opKey = await newOperator(t, 'test');
    op = client(t.app, opKey);
  });
  afterAll(async () => t?.close());

  const ok = <T = any>(res: Res<T>, status = 200): T => {
    expect(res.status, JSON.stringify(res.body).slice(0, 400)).toBe(status);
    return res.body;
  };

  it('a courier whose route was planned starts from the plan\u2019s depot when it has no depot or position', async () => {
    const m = await newMerchant(t, 'Planned');
    const mc = client(t.app, m.test);
    const surquillo = ok(await op('POST', '/v1/depots', { name: 'Surquillo', lat: -12.112, lng: -77.01 }), 201);
    // Luis and Carmen: no start depot ("the plan's depot"), never seen. Diego: a fresh position.
    const luis = ok(await mc('POST', '/v1/couriers', { name: 'Luis' }), 201);
    const carmen = ok(await mc('POST', '/v1/couriers', { name: 'Carmen' }), 201);
    const diego = ok(await mc('POST', '/v1/couriers', { name: 'Diego' }), 201);
    ok(await mc('POST', `/v1/couriers/${diego.id}/location`, { lat: -12.1, lng: -77.03 }));
    // One plan each, so that each surely gets a route.
    const routes: Record<string, string> = {};
    for (const [c, lat] of [
      [luis, -12.12],
      [carmen, -12.13],
    ] as const) {
      const o = ok(await mc('POST', '/v1/orders', at(lat, -77.02)), 201);
      const plan = await solvedPlan<{ id: string }>(t, opKey, {
        date: DAY,
        depot: surquillo.id,
        couriers: [{ courier_id: c.id }],
        order_ids: [o.id],
        time_limit_ms: 100,
      });
      const committed = ok(await op('POST', `/v1/route_plans/${plan.id}/commit`));
      routes[c.id] = committed.route_ids[0];
    }

    // The route keeps the depots its plan set it off from; routes committed before
    // 043_routes_planned_depots get them from their plans, and a route made by hand keeps none.
    const ids = Object.values(routes);
    const depotsOf = async () =>
      (
        await sql<{
          id: string;
          start_depot: string | null;
          end_depot: string | null;
        }>`select id, start_depot, end_depot
          from routes where id in (${sql.join(ids)}) order by id`.execute(t.ctx.db)
      ).rows;
    const kept = ids.sort().map((id) => ({ id, start_depot: surquillo.id, end_depot: surquillo.id }));
    expect(await depotsOf()).toEqual(kept);
    await sql`update routes set start_depot = null, end_depot = null where id in (${sql.join(ids)})`.execute(t.ctx.db);
    await backfill(t.ctx.db, 1);
    expect(await depotsOf()).toEqual(kept);

    const n = ok(await mc('POST', '/v1/orders', at(-12.125, -77.02)), 201);
    const res = ok(await op('GET', `/v1/orders/${n.id}/dispatch_suggestions`));
    expect(res.data.map((x: any) => x.courier.id).sort()).toEqual([luis.id, carmen.id, diego.id].sort());
    expect(res.unavailable).toEqual([]);
    for (const c of [luis, carmen]) {
      const s = res.data.find((x: any) => x.courier.id === c.id);
      expect(s).toMatchObject({ route: routes[c.id], starts_from: 'depot', feasible: true });
      // It sets off from the depot at 09:00: its first stop is a few minutes' drive after.
      const first = Date.parse(s.stops[0].arrival_at);
      expect(first).toBeGreaterThan(NINE);
      expect(first).toBeLessThan(NINE + 30 * 60_000);
    }

    // Diego off: the two with routes are still on duty, and dispatch picks one of them.
    ok(await mc('PATCH', `/v1/couriers/${diego.id}`, { status: 'disabled' }));
    const without = ok(await op('GET', `/v1/orders/${n.id}/dispatch_suggestions`));
    expect(without.data.map((x: any) => x.courier.id).sort()).toEqual([luis.id, carmen.id].sort());
    const sent = ok(await op('POST', `/v1/orders/${n.id}/dispatch`, {}));
    expect([routes[luis.id], routes[carmen.id]]).toContain(sent.route);
  });

  it('a courier with a route but nowhere to start from is listed as unavailable, with why', async () => {
    const m = await newMerchant(t, 'Handmade');
    const mc = client(t.app, m.test);
    // No depot anywhere (its own, a plan's, the account's) and no position: a hand-made route.
    const rosa = ok(await mc('POST', '/v1/couriers', { name: 'Rosa' }), 201);
    const o = ok(await mc('POST', '/v1/orders', at(-12.11, -77.03)), 201);
    const route = ok(await mc('POST', '/v1/routes', { courier_id: rosa.id, order_ids: [o.id] }), 201);
    expect(route.date).toBe(DAY);
    const row = await sql<{
      start_depot: string | null;
    }>`select start_depot from routes where id = ${route.id}`.execute(t.ctx.db);
    expect(row.rows).toEqual([{ start_depot: null }]);

    const n = ok(await mc('POST', '/v1/orders', at(-12.12, -77.03)), 201);
    const res = ok(await op('GET', `/v1/orders/${n.id}/dispatch_suggestions`));
    expect(res.data).toEqual([]);
    expect(res.unavailable).toEqual([
      {
        courier: { id: rosa.id, name: 'Rosa' },
        route: route.id,
        reason: 'no_start',
        message: expect.stringMatching(/^Rosa has route .* but nowhere to start from.*Give the courier a start depot/),
      },
    ]);
    // Dispatching says so too, rather than that nobody is on duty.
    const refused = await op('POST', `/v1/orders/${n.id}/dispatch`, {});
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('no_courier_fits');
    expect(refused.body.error.message).toMatch(/Rosa has a route on 2030-03-04 but nowhere to start from/);
    const named = await op('POST', `/v1/orders/${n.id}/dispatch`, { courier_id: rosa.id });
    expect(named.status).toBe(422);
    expect(named.body.error).toMatchObject({ param: 'courier_id', message: expect.stringMatching(/nowhere to start/) });

    // Once it sends a position, it is ranked from there and no longer unavailable.
    ok(await mc('POST', `/v1/couriers/${rosa.id}/location`, { lat: -12.1, lng: -77.03 }));
    const back = ok(await op('GET', `/v1/orders/${n.id}/dispatch_suggestions`));
    expect(back.unavailable).toEqual([]);
    expect(back.data).toMatchObject([{ courier: { id: rosa.id }, route: route.id, starts_from: 'position' }]);
  });
});
