import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { claimDue } from '../src/features/webhooks/claim-repo.js';
import { Dispatcher } from '../src/features/webhooks/dispatcher.js';
import { deliveryRow } from '../src/features/webhooks/outbox.js';
import * as repo from '../src/features/webhooks/repo.js';
import { createContext } from '../src/shared/context.js';
import { openDatabase } from '../src/shared/db/index.js';
import { client, describeEach, type Merchant, newMerchant, startApp, type TestApp, validOrder } from './helpers.js';
import { Clock, expectSigned, Receiver, waitFor } from './webhook-receiver.js';

const CHILD = fileURLToPath(new URL('./fixtures/dispatcher-child.ts', import.meta.url));

describeEach('webhook workers', (engine) => {
  let t: TestApp;
  let rx: Receiver;
  let m: Merchant;

  beforeAll(async () => {
    t = await startApp(engine, { RUTA_WEBHOOK_ALLOW_INSECURE: '1', RUTA_WEBHOOK_RETRY_SCHEDULE: '0.05,0.05,0.1' });
    rx = await new Receiver().start();
    m = await newMerchant(t);
  });
  afterAll(async () => {
    await rx?.close();
    await t?.close();
  });

  it.runIf(engine === 'postgres')('two dispatchers on one PostgreSQL deliver N events exactly once each', async () => {
    const call = client(t.app, m.test);
    const e = (await call('POST', '/v1/webhook_endpoints', { url: rx.url('/pair'), events: ['order.created'] })).body;
    const N = 40;
    for (let i = 0; i < N; i++) await call('POST', '/v1/orders', validOrder());
    rx.respond = () => ({ status: 200, delayMs: Math.floor(Math.random() * 20) });
    // Separate pools, as two worker processes would have.
    const dbs = [
      openDatabase(t.config.databaseUrl, { poolSize: 3 }),
      openDatabase(t.config.databaseUrl, { poolSize: 3 }),
    ];
    const workers = dbs.map((d) =>
      new Dispatcher(createContext(d, { ...t.config, webhookConcurrency: 8 }), {
        pollMs: 600_000,
        listenUrl: t.config.databaseUrl,
      }).start(),
    );
    try {
      await waitFor(async () => {
        const rows = await t.ctx.db
          .selectFrom('webhook_deliveries')
          .select('status')
          .where('endpoint_id', '=', e.id)
          .execute();
        return rows.length === N && rows.every((r) => r.status === 'succeeded');
      }, 30_000);
      const ids = rx.on('/pair').map((r) => String(r.headers['service-event-id']));
      expect(ids).toHaveLength(N);
      expect(new Set(ids).size).toBe(N);
      for (const r of rx.on('/pair')) expectSigned(r, e.secret);
      // Cross-process wake-up: rows inserted without this process's in-memory signal (as another
      // process would) reach an idle worker through the trigger's NOTIFY; the poll is 10 minutes.
      await waitFor(() => workers.every((w) => w.inFlightCount === 0));
      const ev = await t.ctx.db
        .selectFrom('events')
        .selectAll()
        .where('account_id', '=', m.accountId)
        .executeTakeFirstOrThrow();
      const endpointRow = await t.ctx.db
        .selectFrom('webhook_endpoints')
        .selectAll()
        .where('id', '=', e.id)
        .executeTakeFirstOrThrow();
      await repo.insertDeliveries(t.ctx.db, [
        deliveryRow({ id: ev.id, order_id: null, sequence: 0 }, endpointRow, 'redeliver', Date.now()),
      ]);
      await waitFor(() => rx.on('/pair').length === N + 1);
    } finally {
      await Promise.all(workers.map((w) => w.stop(2000)));
      await Promise.all(dbs.map((d) => d.close()));
    }
  });

  it('reclaims the lease of a worker killed mid-delivery once the lease expires', async () => {
    const call = client(t.app, m.test);
    const e = (await call('POST', '/v1/webhook_endpoints', { url: rx.url('/killed'), events: ['order.created'] })).body;
    rx.respond = (r) => (r.path === '/killed' ? { hang: true } : { status: 200 });
    const o = (await call('POST', '/v1/orders', validOrder())).body;
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD], {
      env: {
        ...process.env,
        DATABASE_URL: t.config.databaseUrl,
        RUTA_WEBHOOK_ALLOW_INSECURE: '1',
        RUTA_LOG_LEVEL: 'silent',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise((resolve) => child.on('exit', resolve));
    try {
      await waitFor(() => rx.on('/killed').length === 1, 30_000);
    } finally {
      child.kill('SIGKILL');
      await exited;
    }
    const leased = await t.ctx.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('endpoint_id', '=', e.id)
      .executeTakeFirstOrThrow();
    // The claim counted the attempt it was for, so the takeover below continues the count.
    expect(leased).toMatchObject({ status: 'pending', attempts: 1, order_id: o.id });
    expect(leased.lease_owner).toMatch(/^wkr_/);
    expect(Number(leased.lease_expires_at)).toBeGreaterThan(Date.now());
    // While the lease is live nobody else may claim it.
    const now = Date.now();
    const early = await t.ctx.db
      .transaction()
      .execute((trx) =>
        claimDue(trx, engine, { owner: 'probe', now, leaseUntil: now + 1000, limit: 10, excludeEndpoints: [] }),
      );
    expect(early.map((c) => c.delivery.id)).not.toContain(leased.id);
    // A worker whose clock is past the lease picks it up and delivers it.
    rx.respond = () => ({ status: 200 });
    const clock = new Clock();
    clock.t = Number(leased.lease_expires_at) + 1;
    const d = new Dispatcher({ ...t.ctx, clock: clock.now }, { pollMs: 50 }).start();
    try {
      await waitFor(async () => {
        const row = await t.ctx.db
          .selectFrom('webhook_deliveries')
          .selectAll()
          .where('id', '=', leased.id)
          .executeTakeFirstOrThrow();
        return row.status === 'succeeded' && row.lease_owner === null;
      });
    } finally {
      await d.stop(1000);
    }
    const got = rx.on('/killed');
    expect(got).toHaveLength(2);
    expect(got[1].body).toBe(got[0].body);
    expect(got[1].headers['service-event-id']).toBe(got[0].headers['service-event-id']);
    expectSigned(got[1], e.secret);
    expect(got.map((r) => r.headers['service-attempt'])).toEqual(['1', '2']);
    const settled = await t.ctx.db
      .selectFrom('webhook_deliveries')
      .select('attempts')
      .where('id', '=', leased.id)
      .executeTakeFirstOrThrow();
    expect(settled.attempts).toBe(2);
  });
});
