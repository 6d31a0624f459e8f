import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { prepareOrder } from '../src/features/orders/create.js';
import { OrderWriter } from '../src/features/orders/create-writer.js';
import type { OrderCreate } from '../src/features/orders/schemas.js';
import { client, describeEach, type Merchant, newMerchant, startApp, type TestApp, validOrder } from './helpers.js';

/** The batch-size histogram's count and sum (commits, and orders they held) on this app's registry. */
async function batches(t: TestApp): Promise<{ commits: number; orders: number }> {
  const m = (await t.ctx.metrics.getSingleMetric('ruta_order_create_batch_size')?.get())?.values ?? [];
  const v = (suffix: string) =>
    m.find((x) => (x as { metricName?: string }).metricName === `ruta_order_create_batch_size${suffix}`)?.value ?? 0;
  return { commits: v('_count'), orders: v('_sum') };
}

async function ordersIn(t: TestApp, ids: string[]): Promise<number> {
  const r = await t.ctx.db
    .selectFrom('orders')
    .select(sql<number>`count(*)`.as('n'))
    .where('id', 'in', ids)
    .executeTakeFirst();
  return Number(r?.n ?? 0);
}

describeEach('group commit of creates', (engine) => {
  let t: TestApp;
  let m: Merchant;

  beforeAll(async () => {
    t = await startApp(engine);
    m = await newMerchant(t);
  });
  afterAll(async () => t?.close());

  const prepared = (ext: string) =>
    prepareOrder(t.ctx, m.accountId, 'test', validOrder({ external_order_id: ext }) as OrderCreate);

  it('writes orders queued in the same turn together, each with its timeline entry and event', async () => {
    const writer = new OrderWriter(t.ctx);
    const orders = await Promise.all(['G-1', 'G-2', 'G-3'].map(prepared));
    const before = await batches(t);
    // Nothing reaches the database before this turn of the loop ends, so all three share one commit.
    await Promise.all(orders.map((o) => writer.write(o)));
    const after = await batches(t);
    expect(after.commits - before.commits).toBe(1);
    expect(after.orders - before.orders).toBe(3);
    const ids = orders.map((o) => o.row.id);
    expect(await ordersIn(t, ids)).toBe(3);
    const events = await t.ctx.db.selectFrom('events').select('order_id').where('order_id', 'in', ids).execute();
    expect(events.map((e) => e.order_id).sort()).toEqual([...ids].sort());
    const timeline = await t.ctx.db
      .selectFrom('order_timeline')
      .select('order_id')
      .where('order_id', 'in', ids)
      .execute();
    expect(timeline).toHaveLength(3);
    await writer.close();
  });

  it('fails only the order that cannot be written when it shares a batch', async () => {
    const writer = new OrderWriter(t.ctx);
    const [a, b, c] = await Promise.all(['F-1', 'F-2', 'F-3'].map(prepared));
    // b reuses a's tracking code: the unique index refuses it, and the batch holding both fails.
    b!.row.tracking_code = a!.row.tracking_code;
    const before = await batches(t);
    const outcome = await Promise.allSettled([a, b, c].map((o) => writer.write(o!)));
    expect(outcome.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    // The batch failed whole, then a and c were committed one by one.
    expect((await batches(t)).commits - before.commits).toBe(2);
    expect(await ordersIn(t, [a!.row.id, c!.row.id])).toBe(2);
    expect(await ordersIn(t, [b!.row.id])).toBe(0);
    // Its event went with it: nothing is announced for an order that was never written.
    const orphan = await t.ctx.db.selectFrom('events').select('id').where('order_id', '=', b!.row.id).execute();
    expect(orphan).toEqual([]);
  });

  it('close() waits for the writes already queued', async () => {
    const writer = new OrderWriter(t.ctx);
    const orders = await Promise.all(['C-1', 'C-2'].map(prepared));
    const writes = orders.map((o) => writer.write(o));
    await writer.close();
    expect(
      await ordersIn(
        t,
        orders.map((o) => o.row.id),
      ),
    ).toBe(2);
    await Promise.all(writes);
  });

  it('answers each of many concurrent POST /v1/orders with its own order, all stored', async () => {
    const call = client(t.app, m.test);
    const res = await Promise.all(
      Array.from({ length: 40 }, (_, i) => call('POST', '/v1/orders', validOrder({ external_order_id: `P-${i}` }))),
    );
    expect(res.map((r) => r.status)).toEqual(res.map(() => 201));
    const ids = res.map((r) => r.body.id as string);
    expect(new Set(ids).size).toBe(40);
    expect(res.map((r) => r.body.external_order_id)).toEqual(res.map((_, i) => `P-${i}`));
    expect(await ordersIn(t, ids)).toBe(40);
    for (const r of res.slice(0, 3)) {
      const got = await call('GET', `/v1/orders/${r.body.id}`);
      expect(got.body.tracking_code).toBe(r.body.tracking_code);
    }
  });
});
