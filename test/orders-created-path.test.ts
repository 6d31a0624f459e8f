import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { batchOf, insertPreparedOrders, type PreparedOrder, prepareOrder } from '../src/features/orders/create.js';
import * as repo from '../src/features/orders/create-repo.js';
import type { OrderCreate } from '../src/features/orders/schemas.js';
import { MAX_ENDPOINTS } from '../src/features/webhooks/service.js';
import { client, describeEach, type Merchant, newMerchant, startApp, type TestApp, validOrder } from './helpers.js';

// One write path for created orders (issue #18 §2): repo.insertCreated writes the API's grouped
// creates and an import's batches alike. These check what it must hold for both callers.

describeEach('created orders, one write path', (engine) => {
  let t: TestApp;
  let m: Merchant;

  beforeAll(async () => {
    t = await startApp(engine, { RUTA_WEBHOOK_ALLOW_INSECURE: '1' });
    m = await newMerchant(t, 'Busy');
    // The most endpoints an account may have: every order then brings the most deliveries.
    for (let i = 0; i < MAX_ENDPOINTS; i++) {
      const ep = await client(t.app, m.test)('POST', '/v1/webhook_endpoints', {
        url: `http://127.0.0.1:9/hook-${i}`,
        events: ['order.created'],
      });
      expect(ep.status).toBe(201);
    }
  });
  afterAll(async () => t?.close());

  async function prepare(n: number, tag: string): Promise<PreparedOrder[]> {
    const batch = await batchOf(t.ctx, m.accountId, 'test');
    const out: PreparedOrder[] = [];
    for (let i = 0; i < n; i++) {
      const body = validOrder({ external_order_id: `${tag}-${i}` }) as OrderCreate;
      out.push(await prepareOrder(t.ctx, m.accountId, 'test', body, t.ctx.clock(), batch));
    }
    return out;
  }

  async function written(orders: PreparedOrder[]) {
    const ids = orders.map((o) => o.row.id);
    const count = async (table: 'orders' | 'order_timeline' | 'events' | 'webhook_deliveries', column: string) =>
      Number(
        (
          await t.ctx.db
            .selectFrom(table)
            .select(sql<number>`count(*)`.as('n'))
            .where(sql.ref(column), 'in', ids)
            .executeTakeFirst()
        )?.n ?? 0,
      );
    return {
      orders: await count('orders', 'id'),
      timeline: await count('order_timeline', 'order_id'),
      events: await count('events', 'order_id'),
      deliveries: await count('webhook_deliveries', 'order_id'),
    };
  }

  it('writes more orders than one statement holds, at the most endpoints, with every delivery', async () => {
    // 250 orders × 16 endpoints: 88 750 values, more than a PostgreSQL statement takes (65 535).
    const orders = await prepare(250, 'MANY');
    expect(orders[0].event.deliveries).toHaveLength(MAX_ENDPOINTS);
    await repo.insertCreated(t.ctx.db, t.ctx.engine, orders);
    expect(await written(orders)).toEqual({ orders: 250, timeline: 250, events: 250, deliveries: 250 * MAX_ENDPOINTS });
  });

  it('writes all or none, on its own and inside a caller’s transaction', async () => {
    const [existing] = await prepare(1, 'DUP');
    await repo.insertCreated(t.ctx.db, t.ctx.engine, [existing]);
    // More than one statement's worth, the last of them a duplicate: nothing of the call remains.
    const alone = await prepare(repo.ORDERS_PER_STATEMENT + 20, 'ALONE');
    await expect(repo.insertCreated(t.ctx.db, t.ctx.engine, [...alone, existing])).rejects.toThrow();
    expect(await written(alone)).toEqual({ orders: 0, timeline: 0, events: 0, deliveries: 0 });

    // An import's batch: written in its transaction, and gone when that transaction rolls back.
    const batch = await prepare(30, 'BATCH');
    await expect(
      t.ctx.db.transaction().execute(async (trx) => {
        await insertPreparedOrders(t.ctx, trx, batch);
        throw new Error('the import lost its lease');
      }),
    ).rejects.toThrow('lease');
    expect(await written(batch)).toEqual({ orders: 0, timeline: 0, events: 0, deliveries: 0 });
    await t.ctx.db.transaction().execute((trx) => insertPreparedOrders(t.ctx, trx, batch));
    expect(await written(batch)).toEqual({ orders: 30, timeline: 30, events: 30, deliveries: 30 * MAX_ENDPOINTS });
  });
});
