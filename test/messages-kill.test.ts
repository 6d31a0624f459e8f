import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MESSAGE_SEND_JOB } from '../src/features/messages/send.js';
import { JobRunner } from '../src/shared/jobs/runner.js';
import { RUTA_CLI } from './cli-run.js';
import { client, describeEach, type Merchant, newMerchant, startApp, type TestApp, validOrder } from './helpers.js';
import { startTwilio } from './message-providers.js';

const ROOT = join(import.meta.dirname, '..');
const SID = 'AC00000000000000000000000000000002';
const TOKEN = 'kill-token';
/** Starting Node takes a second or more on a busy machine. */
const SLOW = 180_000;

describeEach('a worker killed (kill -9) while it sends a message', (engine) => {
  let t: TestApp;
  let twilio: Awaited<ReturnType<typeof startTwilio>>;
  let a: Merchant;
  let env: Record<string, string>;

  beforeAll(async () => {
    twilio = await startTwilio(SID, TOKEN);
    env = {
      RUTA_PUBLIC_URL: 'https://ruta.example.com',
      RUTA_TWILIO_ACCOUNT_SID: SID,
      RUTA_TWILIO_AUTH_TOKEN: TOKEN,
      RUTA_TWILIO_SMS_FROM: '+15005550006',
      RUTA_TWILIO_API_URL: twilio.url,
      // Quiet hours off: the test runs at whatever hour the machine says.
    };
    // No job runner here: the worker process sends, then the test takes over as a second worker.
    t = await startApp(engine, env, { jobs: false });
    a = await newMerchant(t, 'Tienda Kill');
    await client(t.app, a.live)('PUT', '/v1/notification_settings', {
      quiet_hours: null,
      triggers: { order_confirmed: { sms: true, whatsapp: false, email: false } },
    });
  });
  afterAll(async () => {
    await t?.close();
    await twilio?.close();
  });

  it(
    'the message is sent exactly once: the next worker finds it at Twilio instead of sending it again',
    async () => {
      const phone = '+51987659999';
      twilio.hang.add(phone);
      const created = await client(t.app, a.live)(
        'POST',
        '/v1/orders',
        validOrder({ requires_signature: false, cash_on_delivery: 0, customer: { name: 'Kim', phone } }),
      );
      expect(created.status).toBe(201);
      const child = spawn(process.execPath, [...RUTA_CLI, 'worker'], {
        cwd: ROOT,
        env: { ...process.env, ...env, DATABASE_URL: t.config.databaseUrl, RUTA_FILES_URL: t.config.filesUrl },
      });
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      try {
        // The worker's POST reached Twilio (which has the message now) and waits for its answer.
        await expect.poll(() => twilio.requests.filter((r) => r.To === phone).length, { timeout: 90_000 }).toBe(1);
      } finally {
        child.kill('SIGKILL');
        await exited;
      }
      const msg = await t.ctx.db
        .selectFrom('messages')
        .selectAll()
        .where('order_id', '=', created.body.id)
        .executeTakeFirstOrThrow();
      expect(msg.status).toBe('queued');
      expect(msg.send_started_at).not.toBeNull();
      const job = await t.ctx.db.selectFrom('jobs').selectAll().where('ref', '=', msg.id).executeTakeFirstOrThrow();
      expect(job.status).toBe('running');

      // Another worker takes the job over once the dead one's lease lapses.
      const lapse = job.lease_expires_at ?? 0;
      Object.assign(t.ctx, { clock: () => lapse });
      const next = new JobRunner(t.ctx, [MESSAGE_SEND_JOB]);
      await next.idle();
      await next.stop();
      const after = (await client(t.app, a.live)('GET', `/v1/messages/${msg.id}`)).body;
      expect([after.status, after.provider_message_id]).toEqual(['sent', twilio.created.at(-1)?.sid]);
      expect(after.attempts).toBe(1);
      // Exactly one message at the provider.
      expect(twilio.requests.filter((r) => r.To === phone)).toHaveLength(1);
      expect(twilio.created.filter((m) => m.form.To === phone)).toHaveLength(1);
    },
    SLOW,
  );
});
