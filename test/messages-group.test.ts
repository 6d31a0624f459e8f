import { afterAll, beforeAll, expect, it } from 'vitest';
import { MESSAGE_SEND_JOB } from '../src/features/messages/send.js';
import { JobRunner } from '../src/shared/jobs/runner.js';
import { client, describeEach, type Merchant, newMerchant, startApp, type TestApp, validOrder } from './helpers.js';
import { csv, drain, good, HEADER, upload } from './imports-helpers.js';

describeEach('orders written together share one send job (queue.ts, groupSendJobs)', (engine) => {
  let t: TestApp;
  let m: Merchant;

  beforeAll(async () => {
    // No job runner: the test looks at the jobs before one runs them.
    t = await startApp(engine, { RUTA_PUBLIC_URL: 'https://ruta.example.com' }, { jobs: false });
    m = await newMerchant(t, 'Tienda Grupo');
    const res = await client(t.app, m.live)('PUT', '/v1/notification_settings', {
      quiet_hours: null,
      triggers: { order_confirmed: { sms: true, whatsapp: true, email: false } },
    });
    expect(res.status).toBe(200);
  });
  afterAll(async () => t?.close());

  const sendJobs = () =>
    t.ctx.db.selectFrom('jobs').selectAll().where('kind', '=', 'message.send').orderBy('id').execute();
  const messagesOf = async (orderId: string) => {
    const res = await client(t.app, m.live)('GET', `/v1/messages?order=${orderId}`);
    expect(res.status).toBe(200);
    return res.body.data as { id: string; status: string; attempts: number; channel: string }[];
  };

  it("an import's batch writes one job listing each order's messages; the worker splits it and each is sent once", async () => {
    const before = (await sendJobs()).map((j) => j.id);
    const res = await upload(t, m.live, csv([HEADER, good(71), good(72), good(73)]));
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    await drain(t);
    const orders = (await client(t.app, m.live)('GET', `/v1/orders?limit=10`)).body.data.filter(
      (o: { external_order_id: string }) => ['EXT-71', 'EXT-72', 'EXT-73'].includes(o.external_order_id),
    ) as { id: string }[];
    expect(orders).toHaveLength(3);

    const fresh = (await sendJobs()).filter((j) => !before.includes(j.id));
    expect(fresh).toHaveLength(1);
    const payload = JSON.parse(fresh[0]?.payload ?? 'null') as { orders: string[][] };
    // Each order's queued messages, apart: SMS and WhatsApp.
    const expected = await Promise.all(orders.map(async (o) => (await messagesOf(o.id)).map((x) => x.id).sort()));
    expect(payload.orders.map((ids) => [...ids].sort()).sort()).toEqual(expected.sort());
    for (const o of orders) expect((await messagesOf(o.id)).map((x) => x.status)).toEqual(['queued', 'queued']);

    // A create alone keeps a job of its own, listing its messages.
    const lone = (await client(t.app, m.live)('POST', '/v1/orders', validOrder())).body as { id: string };
    const own = (await sendJobs()).filter((j) => !before.includes(j.id) && j.id !== fresh[0]?.id);
    expect(own).toHaveLength(1);
    expect((JSON.parse(own[0]?.payload ?? '[]') as string[]).sort()).toEqual(
      (await messagesOf(lone.id)).map((x) => x.id).sort(),
    );

    const runner = new JobRunner(t.ctx, [MESSAGE_SEND_JOB]);
    await runner.idle();
    await runner.stop();
    for (const o of [...orders, lone]) {
      const sent = await messagesOf(o.id);
      expect(sent.map((x) => [x.channel, x.status, x.attempts]).sort()).toEqual([
        ['sms', 'sent', 1],
        ['whatsapp', 'sent', 1],
      ]);
    }
    expect((await sendJobs()).filter((j) => !before.includes(j.id))).toEqual([]);
  });
});
