import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { createOrder } from '../src/features/orders/create.js';
import type { Engine } from '../src/shared/db/index.js';
import { client, describeEach, type TestApp, useApp, useMerchant, validOrder } from './helpers.js';

/** A trigger that makes every insert into the outbox fail, as a crash or constraint violation would. */
async function breakOutbox(t: TestApp, engine: Engine): Promise<void> {
  if (engine === 'sqlite') {
    await sql`CREATE TRIGGER fail_events BEFORE INSERT ON events BEGIN SELECT RAISE(ABORT, 'forced outbox failure'); END`.execute(
      t.ctx.db,
    );
  } else {
    await sql`CREATE FUNCTION fail_events() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'forced outbox failure'; END $$ LANGUAGE plpgsql`.execute(
      t.ctx.db,
    );
    await sql`CREATE TRIGGER fail_events BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION fail_events()`.execute(
      t.ctx.db,
    );
  }
}

async function repairOutbox(t: TestApp, engine: Engine): Promise<void> {
  if (engine === 'sqlite') await sql`DROP TRIGGER fail_events`.execute(t.ctx.db);
  else {
    await sql`DROP TRIGGER fail_events ON events`.execute(t.ctx.db);
    await sql`DROP FUNCTION fail_events()`.execute(t.ctx.db);
  }
}

describeEach('outbox atomicity', (engine) => {
  const t = useApp(engine);
  const m = useMerchant(t);

  /** This test's rows only: its merchant's orders, their timeline, its events. */
  const count = async (table: 'orders' | 'events' | 'order_timeline') => {
    const db = t.ctx.db;
    const row =
      table === 'order_timeline'
        ? await db
            .selectFrom('order_timeline')
            .innerJoin('orders', 'orders.id', 'order_timeline.order_id')
            .where('orders.account_id', '=', m.accountId)
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        : await db
            .selectFrom(table)
            .where('account_id', '=', m.accountId)
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow();
    return Number(row.n);
  };

  it('a failed event insert leaves neither the order, its timeline nor its event', async () => {
    const call = client(t.app, m.test);
    await breakOutbox(t, engine);
    try {
      const res = await call('POST', '/v1/orders', validOrder({ external_order_id: 'ATOMIC-1' }));
      expect(res.status).toBe(500);
      expect(res.body.error).toMatchObject({ type: 'api_error', code: 'internal_error' });
      // A 500 never shows internals.
      expect(JSON.stringify(res.body)).not.toMatch(/forced|events|trigger|sql/i);
      expect(res.body.error.request_id).toBe(res.headers['request-id']);
      // The service itself, driven directly, throws and writes nothing either.
      await expect(
        createOrder(t.ctx, m.accountId, 'test', validOrder({ external_order_id: 'ATOMIC-2' }) as never),
      ).rejects.toThrow();
      expect(await count('orders')).toBe(0);
      expect(await count('order_timeline')).toBe(0);
      expect(await count('events')).toBe(0);
      expect((await call('GET', '/v1/orders?external_order_id=ATOMIC-1')).body.data).toEqual([]);
    } finally {
      await repairOutbox(t, engine);
    }
    const ok = await call('POST', '/v1/orders', validOrder({ external_order_id: 'ATOMIC-3' }));
    expect(ok.status).toBe(201);
    expect(await count('orders')).toBe(1);
    expect(await count('events')).toBe(1);
  });

  it('a failed event insert during cancel leaves the order as it was', async () => {
    const call = client(t.app, m.test);
    const o = (await call('POST', '/v1/orders', validOrder())).body;
    const before = await t.ctx.db.selectFrom('orders').selectAll().where('id', '=', o.id).executeTakeFirstOrThrow();
    const events = await count('events');
    const timeline = await count('order_timeline');
    await breakOutbox(t, engine);
    try {
      const res = await call('POST', `/v1/orders/${o.id}/cancel`, { reason: 'will fail' });
      expect(res.status).toBe(500);
      expect(res.body.error.code).toBe('internal_error');
    } finally {
      await repairOutbox(t, engine);
    }
    const after = await t.ctx.db.selectFrom('orders').selectAll().where('id', '=', o.id).executeTakeFirstOrThrow();
    expect(after).toEqual(before);
    expect(after.status).toBe('pending');
    expect(after.event_seq).toBe(1);
    expect(await count('events')).toBe(events);
    expect(await count('order_timeline')).toBe(timeline);
    // Once the outbox works again, the same cancel goes through with the next sequence number.
    const res = await call('POST', `/v1/orders/${o.id}/cancel`, { reason: 'works' });
    expect(res.status).toBe(200);
    const last = await t.ctx.db
      .selectFrom('events')
      .select('payload')
      .where('order_id', '=', o.id)
      .where('type', '=', 'order.cancelled')
      .executeTakeFirstOrThrow();
    expect(JSON.parse(last.payload).data).toMatchObject({ sequence: 2, cancellation_reason: 'works' });
  });
});
