import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { MESSAGE_SEND_JOB } from '../src/features/messages/send.js';
import { JobRunner } from '../src/shared/jobs/runner.js';
import { RUTA_CLI } from './cli-run.js';
import { client, describeEach, type Merchant, newMerchant, startApp, type TestApp, validOrder } from './helpers.js';
import { startSmtp, startTwilio } from './message-providers.js';
import { moveClock } from './people-helpers.js';

const ROOT = join(import.meta.dirname, '..');
const SID = 'AC00000000000000000000000000000002';
const TOKEN = 'kill-token';
/** Starting Node takes a second or more on a busy machine. */
const SLOW = 180_000;

describeEach('a worker killed (kill -9) while it sends a message', (engine) => {
  let t: TestApp;
  let twilio: Awaited<ReturnType<typeof startTwilio>>;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let a: Merchant;
  let env: Record<string, string>;

  beforeAll(async () => {
    twilio = await startTwilio(SID, TOKEN);
    smtp = await startSmtp();
    env = {
      RUTA_PUBLIC_URL: 'https://ruta.example.com',
      RUTA_TWILIO_ACCOUNT_SID: SID,
      RUTA_TWILIO_AUTH_TOKEN: TOKEN,
      RUTA_TWILIO_SMS_FROM: '+15005550006',
      RUTA_TWILIO_WHATSAPP_FROM: '+14155238886',
      RUTA_TWILIO_API_URL: twilio.url,
      RUTA_SMTP_URL: smtp.url,
      RUTA_EMAIL_FROM: 'avisos@ruta.example.com',
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
  // Each test holds the app's clock at a dead worker's lease end to take its job over; held into the
  // next test, the orders it creates would be due then, and its worker would wait for that time.
  afterEach(() => moveClock(t, 0));
  afterAll(async () => {
    await t?.close();
    await twilio?.close();
    await smtp?.close();
  });

  /** Runs `ruta worker` until `reached()` holds (a provider call in flight), then kills it with -9. */
  async function killWorkerWhen(reached: () => number, expected: number): Promise<void> {
    const child = spawn(process.execPath, [...RUTA_CLI, 'worker'], {
      cwd: ROOT,
      env: { ...process.env, ...env, DATABASE_URL: t.config.databaseUrl, RUTA_FILES_URL: t.config.filesUrl },
    });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    try {
      await expect.poll(reached, { timeout: 90_000 }).toBe(expected);
    } finally {
      child.kill('SIGKILL');
      await exited;
    }
  }

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
      // The order's one send job, which lists its message.
      const job = await t.ctx.db
        .selectFrom('jobs')
        .selectAll()
        .where('kind', '=', 'message.send')
        .where('payload', 'like', `%${msg.id}%`)
        .executeTakeFirstOrThrow();
      expect(JSON.parse(job.payload ?? '[]')).toEqual([msg.id]);
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

  it(
    "one job sends an order's three messages: killed during the second, the next worker sends only the third",
    async () => {
      // Its own merchant, all three channels on (the test above has SMS only).
      const m = await newMerchant(t, 'Tienda Kill Tres');
      await client(t.app, m.live)('PUT', '/v1/notification_settings', {
        quiet_hours: null,
        triggers: { order_confirmed: { sms: true, whatsapp: true, email: true } },
      });
      const [phone, whatsapp, email] = ['+51987658888', '+51987657777', 'kim3@example.com'];
      twilio.hang.add(`whatsapp:${whatsapp}`);
      const created = await client(t.app, m.live)(
        'POST',
        '/v1/orders',
        validOrder({
          requires_signature: false,
          cash_on_delivery: 0,
          customer: { name: 'Kim', phone, whatsapp, email },
        }),
      );
      expect(created.status).toBe(201);
      const msgs = await t.ctx.db.selectFrom('messages').selectAll().where('order_id', '=', created.body.id).execute();
      expect(msgs).toHaveLength(3);
      const jobs = await t.ctx.db
        .selectFrom('jobs')
        .selectAll()
        .where('kind', '=', 'message.send')
        .where('payload', 'like', `%${msgs[0]!.id}%`)
        .execute();
      // One job for the order's three messages, in channel order: SMS, WhatsApp, email.
      expect(jobs).toHaveLength(1);
      const byChannel = Object.fromEntries(msgs.map((x) => [x.channel, x.id]));
      expect(JSON.parse(jobs[0]!.payload ?? '[]')).toEqual([byChannel.sms, byChannel.whatsapp, byChannel.email]);

      // The SMS went; the WhatsApp POST reached Twilio (which has it) and waits for its answer: -9.
      const at = (to: string) => twilio.requests.filter((r) => r.To === to).length;
      await killWorkerWhen(() => at(phone) + at(`whatsapp:${whatsapp}`), 2);
      const state = async () =>
        Object.fromEntries(
          (await t.ctx.db.selectFrom('messages').selectAll().where('order_id', '=', created.body.id).execute()).map(
            (x) => [x.channel, x],
          ),
        );
      const mid = await state();
      expect(mid.sms!.status).toBe('sent');
      expect([mid.whatsapp!.status, mid.whatsapp!.send_started_at !== null]).toEqual(['queued', true]);
      expect([mid.email!.status, mid.email!.send_started_at]).toEqual(['queued', null]);
      expect(smtp.mails.filter((x) => x.to.includes(email))).toHaveLength(0);

      const job = await t.ctx.db.selectFrom('jobs').selectAll().where('id', '=', jobs[0]!.id).executeTakeFirstOrThrow();
      const lapse = job.lease_expires_at ?? 0;
      Object.assign(t.ctx, { clock: () => lapse });
      const next = new JobRunner(t.ctx, [MESSAGE_SEND_JOB]);
      await next.idle();
      await next.stop();
      const after = await state();
      expect([after.sms!.status, after.whatsapp!.status, after.email!.status]).toEqual(['sent', 'sent', 'sent']);
      // Each exactly once at its provider: the SMS not again, the WhatsApp found at Twilio, the email sent now.
      expect(at(phone)).toBe(1);
      expect(at(`whatsapp:${whatsapp}`)).toBe(1);
      expect(smtp.mails.filter((x) => x.to.includes(email))).toHaveLength(1);
      expect(after.whatsapp!.provider_message_id).toBe(
        twilio.created.find((x) => x.form.To === `whatsapp:${whatsapp}`)?.sid,
      );
      expect(await t.ctx.db.selectFrom('jobs').select('id').where('id', '=', job.id).execute()).toEqual([]);
    },
    SLOW,
  );
});
