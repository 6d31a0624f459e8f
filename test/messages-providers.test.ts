import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { twilioSignature } from '../src/features/messages/callbacks.js';
import { client, describeEach, type Merchant, newMerchant, startApp, type TestApp, validOrder } from './helpers.js';
import { startMeta, startSmtp, startTwilio } from './message-providers.js';

const MORNING = Date.parse('2026-11-25T15:00:00Z');
const SID = 'AC00000000000000000000000000000001';
const TOKEN = 'twilio-auth-token';
const PUBLIC = 'https://ruta.example.com';
const ON = { sms: true, whatsapp: true, email: true };

describeEach('customer messages over SMTP, Twilio and Meta (local servers speaking their protocols)', (engine) => {
  let t: TestApp;
  let now = MORNING;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let twilio: Awaited<ReturnType<typeof startTwilio>>;
  let a: Merchant;

  const order = async (key: string, customer: Record<string, unknown>) => {
    const res = await client(t.app, key)(
      'POST',
      '/v1/orders',
      validOrder({ requires_signature: false, cash_on_delivery: 0, customer }),
    );
    expect(res.status).toBe(201);
    return res.body as { id: string; tracking_code: string };
  };
  const messagesOf = async (orderId: string) =>
    (await client(t.app, a.live)('GET', `/v1/messages?order=${orderId}`)).body.data as any[];
  const signedPost = (path: string, form: Record<string, string>, signature?: string) =>
    client(t.app)('POST', path, new URLSearchParams(form).toString(), {
      'content-type': 'application/x-www-form-urlencoded',
      'x-twilio-signature': signature ?? twilioSignature(TOKEN, `${PUBLIC}${path}`, form),
    });

  beforeAll(async () => {
    smtp = await startSmtp();
    twilio = await startTwilio(SID, TOKEN);
    t = await startApp(
      engine,
      {
        RUTA_PUBLIC_URL: PUBLIC,
        RUTA_DEFAULT_TIMEZONE: 'America/Lima',
        RUTA_SMTP_URL: smtp.url,
        RUTA_EMAIL_FROM: 'avisos@ruta.example.com',
        RUTA_TWILIO_ACCOUNT_SID: SID,
        RUTA_TWILIO_AUTH_TOKEN: TOKEN,
        RUTA_TWILIO_SMS_FROM: '+15005550006',
        RUTA_TWILIO_WHATSAPP_FROM: '+14155238886',
        RUTA_TWILIO_API_URL: twilio.url,
      },
      { clock: () => now },
    );
    a = await newMerchant(t, 'Tienda Aurora');
    const settings = await client(t.app, a.live)('PUT', '/v1/notification_settings', {
      triggers: { order_confirmed: ON, failed: ON },
      sender_name: 'Rápido Lima',
    });
    expect(settings.status).toBe(200);
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
    await twilio?.close();
  });

  it('sends SMS and WhatsApp through Twilio and email over SMTP with RFC 8058 headers; callbacks are signed', async () => {
    now = MORNING;
    const o = await order(a.live, { name: 'Ana Torres', email: 'ana@example.com', phone: '+51987654321' });
    await t.jobs.idle();
    const msgs = await messagesOf(o.id);
    expect(msgs.map((m) => [m.channel, m.status, m.provider]).sort()).toEqual([
      ['email', 'sent', 'smtp'],
      ['sms', 'sent', 'twilio'],
      ['whatsapp', 'sent', 'twilio'],
    ]);
    const sms = twilio.requests.find((r) => r.To === '+51987654321');
    expect(sms).toMatchObject({ From: '+15005550006', StatusCallback: `${PUBLIC}/v1/providers/twilio/status` });
    expect(sms?.Body).toContain(`${PUBLIC}/track/${o.tracking_code}`);
    expect(twilio.requests.find((r) => r.To === 'whatsapp:+51987654321')?.From).toBe('whatsapp:+14155238886');
    const smsMsg = msgs.find((m) => m.channel === 'sms');
    expect(smsMsg.provider_message_id).toMatch(/^SM/);

    const mail = smtp.mails.find((m) => m.to.includes('ana@example.com'));
    expect(mail?.from).toBe('avisos@ruta.example.com');
    const raw = (mail?.raw ?? '').replace(/\r\n\s+/g, ' ');
    expect(raw).toMatch(/^From: =\?UTF-8\?Q\?R=C3=A1pido_Lima\?= <avisos@ruta\.example\.com>$/m);
    expect(raw).toMatch(/^List-Unsubscribe: <https:\/\/ruta\.example\.com\/v1\/unsubscribe\?token=[\w.-]+>$/m);
    expect(raw).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click$/m);
    expect(raw).toContain(`Message-ID: <${msgs.find((m) => m.channel === 'email').id}@ruta.example.com>`);
    // The one-click link in the mail works as a mailbox provider calls it.
    const link = new URL(/^List-Unsubscribe: <([^>]+)>/m.exec(raw)?.[1] ?? '');
    const post = await client(t.app)('POST', link.pathname + link.search, 'List-Unsubscribe=One-Click', {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(post.status).toBe(200);
    const again = await order(a.live, { name: 'Ana', email: 'ana@example.com' });
    // Opt-outs are read by the send job, right before a send.
    await t.jobs.idle();
    expect((await messagesOf(again.id)).find((m) => m.channel === 'email').reason).toBe('opted_out');

    // Status callbacks: a wrong signature is 401 and changes nothing; a signed one is recorded.
    const path = '/v1/providers/twilio/status';
    const form = { MessageSid: smsMsg.provider_message_id, MessageStatus: 'delivered', AccountSid: SID };
    expect((await signedPost(path, form, 'bm90IGl0')).status).toBe(401);
    expect(
      (await signedPost(path, { ...form, MessageStatus: 'failed' }, twilioSignature(TOKEN, `${PUBLIC}${path}`, form)))
        .status,
    ).toBe(401);
    expect((await client(t.app, a.live)('GET', `/v1/messages/${smsMsg.id}`)).body.status).toBe('sent');
    expect((await signedPost(path, form)).status).toBe(200);
    const delivered = (await client(t.app, a.live)('GET', `/v1/messages/${smsMsg.id}`)).body;
    expect([delivered.status, delivered.delivered_at]).toEqual(['delivered', new Date(now).toISOString()]);
    const events = await client(t.app, a.live)('GET', `/v1/events?order=${o.id}&event=message.delivered`);
    expect(events.body.data).toHaveLength(1);
    expect(events.body.data[0].data.message.id).toBe(smsMsg.id);
    // A late "sent" after "delivered" changes nothing.
    await signedPost(path, { ...form, MessageStatus: 'sent' });
    expect((await client(t.app, a.live)('GET', `/v1/messages/${smsMsg.id}`)).body.status).toBe('delivered');
  });

  it('a WhatsApp trigger with a Twilio Content SID goes as that template, its text as variable 1', async () => {
    now = MORNING;
    const shop = await newMerchant(t, 'Tienda Plantilla');
    const call = client(t.app, shop.live);
    const sid = `HX${'0123456789abcdef'.repeat(2)}`;
    // Neither a Content SID of the wrong length nor an upper-case Meta name is a template.
    for (const bad of ['HX123', 'Salida_Reparto']) {
      const res = await call('PUT', '/v1/notification_settings', { whatsapp_templates: { order_confirmed: bad } });
      expect(res.status, bad).toBe(422);
    }
    const put = await call('PUT', '/v1/notification_settings', {
      triggers: { order_confirmed: { sms: false, whatsapp: true, email: false } },
      whatsapp_templates: { order_confirmed: sid, delivered: 'entregado_v2' },
    });
    expect(put.status).toBe(200);
    expect(put.body.whatsapp_templates).toEqual({ order_confirmed: sid, delivered: 'entregado_v2' });
    const phone = '+51987650077';
    const o = await order(shop.live, { name: 'Rita', phone });
    await t.jobs.idle();
    const req = twilio.requests.find((r) => r.To === `whatsapp:${phone}`);
    expect(req).toMatchObject({ ContentSid: sid, From: 'whatsapp:+14155238886' });
    expect(req?.Body).toBeUndefined();
    const text = JSON.parse(req?.ContentVariables ?? '{}')['1'];
    expect(text).toContain(`${PUBLIC}/track/${o.tracking_code}`);
    const [msg] = (await client(t.app, shop.live)('GET', `/v1/messages?order=${o.id}`)).body.data;
    expect([msg.channel, msg.status, msg.body]).toEqual(['whatsapp', 'sent', text]);
    // Null takes it away: the next goes free-form.
    await call('PUT', '/v1/notification_settings', { whatsapp_templates: { order_confirmed: null } });
    const phone2 = '+51987650078';
    await order(shop.live, { name: 'Rita', phone: phone2 });
    await t.jobs.idle();
    const plain = twilio.requests.find((r) => r.To === `whatsapp:${phone2}`);
    expect([plain?.ContentSid, typeof plain?.Body]).toEqual([undefined, 'string']);
  });

  it('an inbound BAJA opts the number out of the accounts that wrote to it; START opts it back in', async () => {
    now = MORNING;
    const phone = '+51987650001';
    await order(a.live, { name: 'Beto', phone });
    await t.jobs.idle();
    const inbound = '/v1/providers/twilio/inbound';
    expect((await signedPost(inbound, { From: phone, Body: 'BAJA' }, 'x')).status).toBe(401);
    const res = await signedPost(inbound, { From: `whatsapp:${phone}`, Body: ' baja ', To: 'whatsapp:+14155238886' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toContain('text/xml');
    const stopped = await order(a.live, { name: 'Beto', phone });
    await t.jobs.idle();
    const phones = async (id: string) => (await messagesOf(id)).filter((m) => m.channel !== 'email');
    expect((await phones(stopped.id)).map((m) => [m.status, m.reason])).toEqual([
      ['suppressed', 'opted_out'],
      ['suppressed', 'opted_out'],
    ]);
    expect(twilio.requests.filter((r) => (r.To ?? '').endsWith(phone))).toHaveLength(2);
    await signedPost(inbound, { From: phone, Body: 'START' });
    const back = await order(a.live, { name: 'Beto', phone });
    await t.jobs.idle();
    expect((await phones(back.id)).map((m) => m.status)).toEqual(['sent', 'sent']);
  });

  it('a provider outage is retried, then fails visibly once, never sending twice; a 4xx fails at once', async () => {
    now = MORNING;
    const down = '+51987650002';
    twilio.fail.set(down, { status: 503, code: 20503, message: 'Service Unavailable' });
    const o = await order(a.live, { name: 'Caro', phone: down });
    await t.jobs.idle();
    let sms = (await messagesOf(o.id)).find((m) => m.channel === 'sms');
    expect([sms.status, sms.reason, sms.attempts]).toEqual(['queued', 'retrying', 1]);
    // Waits grow (30 s, 2 min, 10 min, 30 min, hourly): by 6 h and a bit the message has failed.
    for (let i = 0; i < 12; i++) {
      now += 3600_000;
      await t.jobs.idle();
    }
    sms = (await messagesOf(o.id)).find((m) => m.channel === 'sms');
    expect([sms.status, sms.reason]).toEqual(['failed', 'provider_unavailable']);
    const tries = twilio.requests.filter((r) => r.To === down).length;
    expect(tries).toBe(sms.attempts);
    expect(tries).toBeGreaterThan(3);
    const failedEvents = await client(t.app, a.live)('GET', `/v1/events?order=${o.id}&event=message.failed`);
    expect(failedEvents.body.data.length).toBe(2);

    now = MORNING;
    const bad = '+51987650003';
    twilio.fail.set(bad, { status: 400, code: 21211, message: "The 'To' number is not a valid phone number." });
    const o2 = await order(a.live, { name: 'Dani', phone: bad });
    await t.jobs.idle();
    const rejected = (await messagesOf(o2.id)).find((m) => m.channel === 'sms');
    expect([rejected.status, rejected.reason, rejected.attempts]).toEqual(['failed', 'provider_rejected', 1]);
    expect(twilio.requests.filter((r) => r.To === bad)).toHaveLength(1);
  });

  it("Meta's Cloud API carries WhatsApp when configured; its webhooks are checked with X-Hub-Signature-256", async () => {
    const meta = await startMeta('1234567890', 'meta-token');
    const m = await startApp(
      engine,
      {
        RUTA_PUBLIC_URL: PUBLIC,
        RUTA_DEFAULT_TIMEZONE: 'America/Lima',
        RUTA_WHATSAPP_TOKEN: 'meta-token',
        RUTA_WHATSAPP_PHONE_NUMBER_ID: '1234567890',
        RUTA_WHATSAPP_API_URL: meta.url,
        RUTA_WHATSAPP_APP_SECRET: 'app-secret',
        RUTA_WHATSAPP_VERIFY_TOKEN: 'verify-me',
      },
      { clock: () => MORNING },
    );
    try {
      const merchant = await newMerchant(m, 'Bodega Beta');
      await client(m.app, merchant.live)('PUT', '/v1/notification_settings', {
        triggers: { order_confirmed: { whatsapp: true } },
      });
      const created = await client(m.app, merchant.live)(
        'POST',
        '/v1/orders',
        validOrder({
          requires_signature: false,
          cash_on_delivery: 0,
          customer: { name: 'Eva', whatsapp: '+51987650004' },
        }),
      );
      await m.jobs.idle();
      const msgs = (await client(m.app, merchant.live)('GET', `/v1/messages?order=${created.body.id}&channel=whatsapp`))
        .body.data;
      expect([msgs[0].status, msgs[0].provider, msgs[0].provider_message_id]).toEqual(['sent', 'meta', 'wamid.1']);
      expect(meta.sent[0]).toMatchObject({ to: '51987650004', type: 'text', biz_opaque_callback_data: msgs[0].id });
      // Registration: the challenge is echoed only for the right verify token.
      const verify = await client(m.app)(
        'GET',
        '/v1/providers/meta/webhook?hub.mode=subscribe&hub.verify_token=verify-me&hub.challenge=42',
      );
      expect([verify.status, verify.raw.body]).toEqual([200, '42']);
      expect(
        (
          await client(m.app)(
            'GET',
            '/v1/providers/meta/webhook?hub.mode=subscribe&hub.verify_token=no&hub.challenge=42',
          )
        ).status,
      ).toBe(401);
      const payload = JSON.stringify({
        object: 'whatsapp_business_account',
        entry: [
          {
            id: 'WABA',
            changes: [{ field: 'messages', value: { statuses: [{ id: 'wamid.1', status: 'delivered' }] } }],
          },
        ],
      });
      const sig = `sha256=${createHmac('sha256', 'app-secret').update(payload).digest('hex')}`;
      const hook = (s: string) =>
        client(m.app)('POST', '/v1/providers/meta/webhook', payload, {
          'content-type': 'application/json',
          'x-hub-signature-256': s,
        });
      expect((await hook(`sha256=${'0'.repeat(64)}`)).status).toBe(401);
      expect((await hook(sig)).status).toBe(200);
      const after = (await client(m.app, merchant.live)('GET', `/v1/messages/${msgs[0].id}`)).body;
      expect(after.status).toBe('delivered');
      // Another account's key does not see it.
      expect((await client(m.app, a.live)('GET', `/v1/messages/${msgs[0].id}`)).status).toBe(401);
    } finally {
      await m.close();
      await meta.close();
    }
  });
});
