import { afterAll, beforeAll, expect, it } from 'vitest';
import { unsubscribeUrl } from '../src/features/messages/unsubscribe.js';
import {
  client,
  describeEach,
  type Merchant,
  newMerchant,
  newOperator,
  startApp,
  type TestApp,
  useApp,
  validOrder,
} from './helpers.js';
import { courierSession, sessionClient, userSession } from './people-helpers.js';
import { explain } from './plan-helpers.js';

// 10:00 in Lima (UTC-5): outside the default quiet hours (21:00-08:00).
const MORNING = Date.parse('2026-11-25T15:00:00Z');

const ALL_ON = {
  triggers: Object.fromEntries(
    ['order_confirmed', 'out_for_delivery', 'next_stop', 'delivered', 'failed', 'rescheduled'].map((tr) => [
      tr,
      { sms: true, whatsapp: true, email: true },
    ]),
  ),
};

describeEach('customer messages: pipeline, settings, isolation (DESIGN §14)', (engine) => {
  let t: TestApp;
  let now = MORNING;
  let a: Merchant;
  let b: Merchant;
  let op: string;
  let opTest: string;
  let courier: string;

  const order = async (key: string, over: Record<string, unknown> = {}) => {
    const res = await client(t.app, key)(
      'POST',
      '/v1/orders',
      validOrder({ requires_signature: false, cash_on_delivery: 0, ...over }),
    );
    expect(res.status).toBe(201);
    return res.body as { id: string; tracking_code: string };
  };
  const move = async (key: string, id: string, action: string, body?: unknown) => {
    const res = await client(t.app, key)('POST', `/v1/orders/${id}/${action}`, body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  };
  const messagesOf = async (key: string, orderId: string) => {
    const res = await client(t.app, key)('GET', `/v1/messages?order=${orderId}&limit=100`);
    expect(res.status).toBe(200);
    return res.body.data as any[];
  };

  beforeAll(async () => {
    t = await startApp(
      engine,
      { RUTA_PUBLIC_URL: 'https://ruta.example.com', RUTA_DEFAULT_TIMEZONE: 'America/Lima' },
      { clock: () => now },
    );
    a = await newMerchant(t, 'Tienda Aurora');
    b = await newMerchant(t, 'Bodega Beta');
    op = await newOperator(t, 'live');
    opTest = await newOperator(t, 'test');
    courier = (await client(t.app, op)('POST', '/v1/couriers', { name: 'Luis Rojas' })).body.id;
    expect((await client(t.app, a.live)('PUT', '/v1/notification_settings', ALL_ON)).status).toBe(200);
  });
  afterAll(async () => t?.close());

  it("an order's life sends exactly the messages its settings ask for, rendered in the customer's locale", async () => {
    now = MORNING;
    const o = await order(a.live, {
      customer: { name: 'Ana Torres', email: 'ana@example.com', phone: '+51987654321' },
    });
    for (const action of ['assign', 'pickup', 'depart', 'approach', 'deliver']) {
      await move(
        op,
        o.id,
        action,
        action === 'assign' ? { courier_id: courier } : action === 'deliver' ? { receiver_name: 'Ana' } : undefined,
      );
    }
    await t.jobs.idle();
    const msgs = await messagesOf(a.live, o.id);
    // Four triggers (assign and pickup tell the customer nothing) × three channels, each once.
    expect(msgs).toHaveLength(12);
    const keys = msgs.map((m) => `${m.trigger}/${m.channel}`);
    expect(new Set(keys).size).toBe(12);
    for (const m of msgs) {
      expect(m.status).toBe('sent');
      expect(m.provider).toBe('log');
      expect(m.locale).toBe('es');
      expect(m.body).toContain(`https://ruta.example.com/track/${o.tracking_code}`);
      expect(m.to).toBe(m.channel === 'email' ? 'ana@example.com' : '+51987654321');
    }
    const leaving = msgs.find((m) => m.trigger === 'out_for_delivery' && m.channel === 'sms');
    expect(leaving.body).toMatch(
      /^Hola Ana, tu pedido de Tienda Aurora sale hoy a reparto\. Llega entre \d\d:\d\d y \d\d:\d\d\./,
    );
    expect(leaving.segments).toBeGreaterThanOrEqual(1);
    const next = msgs.find((m) => m.trigger === 'next_stop' && m.channel === 'whatsapp');
    expect(next.body).toContain('Luis va en camino');
    const email = msgs.find((m) => m.trigger === 'delivered' && m.channel === 'email');
    expect(email.subject).toBe('Tu pedido de Tienda Aurora fue entregado');
    // The delivered message says who took the parcel (the deliver move's receiver), as the page does.
    expect(email.body).toContain('Tu pedido de Tienda Aurora fue entregado; lo recibió Ana.');
    const handed = msgs.find((m) => m.trigger === 'delivered' && m.channel === 'sms');
    expect(handed.body).toBe(
      `Tu pedido de Tienda Aurora fue entregado, lo recibio Ana. Gracias por tu compra! Cuentanos como te fue: https://ruta.example.com/track/${o.tracking_code}`,
    );
    expect(handed.segments).toBe(1);
  });

  it('a failed attempt tells the reason in the locale the order asks for', async () => {
    now = MORNING;
    const o = await order(a.live, { customer: { name: 'John Smith', phone: '+51987654322', locale: 'en' } });
    await move(op, o.id, 'assign', { courier_id: courier });
    await move(op, o.id, 'pickup');
    await move(op, o.id, 'fail', { reason: 'customer_absent' });
    await t.jobs.idle();
    const msgs = await messagesOf(a.live, o.id);
    const failed = msgs.filter((m) => m.trigger === 'failed');
    expect(failed.map((m) => m.channel).sort()).toEqual(['email', 'sms', 'whatsapp']);
    const sms = failed.find((m) => m.channel === 'sms');
    expect(sms.status).toBe('sent');
    expect(sms.body).toContain(
      'Hi John, we could not deliver your order from Tienda Aurora (nobody was at the address)',
    );
    // No email address: kept, suppressed, with the reason.
    const mail = failed.find((m) => m.channel === 'email');
    expect([mail.status, mail.reason]).toEqual(['suppressed', 'no_email']);
  });

  it("a failure's messages name the shop as its brand, keep an SMS in GSM-7 and say no 'today' the next morning", async () => {
    // The brand's display name is the name on the tracking page and the label: the messages say it too.
    const admin = sessionClient(t, await userSession(t, 'admin'), 'live');
    const shop = await newMerchant(t, 'Inversiones Calzado SAC');
    expect((await client(t.app, shop.live)('PUT', '/v1/notification_settings', ALL_ON)).status).toBe(200);
    const branded = await admin('PATCH', `/v1/accounts/${shop.accountId}`, {
      branding: { display_name: 'Zapatos Ana' },
    });
    expect(branded.status, JSON.stringify(branded.body)).toBe(200);
    // 21:30 in Lima: the attempt fails after the quiet hours began; its messages wait for 08:00.
    now = Date.parse('2026-11-26T02:30:00Z');
    const o = await order(shop.live, {
      customer: { name: 'Rosa Díaz', email: 'rosa@example.com', phone: '+51987654323', locale: 'es' },
    });
    await move(op, o.id, 'assign', { courier_id: courier });
    await move(op, o.id, 'pickup');
    await move(op, o.id, 'fail', { reason: 'customer_absent' });
    now = Date.parse('2026-11-26T13:05:00Z');
    await t.jobs.idle();
    const failed = (await messagesOf(shop.live, o.id)).filter((m) => m.trigger === 'failed');
    expect(failed.map((m) => m.status)).toEqual(['sent', 'sent', 'sent']);
    const sms = failed.find((m) => m.channel === 'sms');
    // "dirección" would make the whole SMS UCS-2 (70 characters a segment): in an SMS it loses its accent.
    expect(sms.body).toBe(
      `Hola Rosa, no pudimos entregar tu pedido de Zapatos Ana (no encontramos a nadie en la direccion). Elige otro dia aqui: https://ruta.example.com/track/${o.tracking_code}`,
    );
    expect(sms.segments).toBe(2);
    const whatsapp = failed.find((m) => m.channel === 'whatsapp');
    expect(whatsapp.body).toContain('(no encontramos a nadie en la dirección)');
    const mail = failed.find((m) => m.channel === 'email');
    expect(mail.subject).toBe('No pudimos entregar tu pedido de Zapatos Ana');
    // Sent the next morning, it does not say the attempt was today.
    expect(mail.body).toContain(
      'No pudimos entregar tu pedido de Zapatos Ana: no encontramos a nadie en la dirección.',
    );
    expect(mail.body).not.toMatch(/hoy/i);
    for (const m of failed) expect(m.body).not.toContain('Inversiones Calzado SAC');
    // The preview names the brand and counts the SMS as it will go.
    const preview = await client(t.app, shop.live)('POST', '/v1/notification_settings/preview', {
      trigger: 'failed',
      channel: 'sms',
      locale: 'pt',
    });
    // é is GSM-7's own, so it stays.
    expect(preview.body.body).toContain('Zapatos Ana (nao encontramos ninguém no endereco)');
    expect(preview.body.encoding).toBe('GSM-7');
  });

  it('test mode, opted-out addresses and invalid numbers are suppressed with their reasons; quiet hours defer', async () => {
    now = MORNING;
    await client(t.app, a.test)('PUT', '/v1/notification_settings', ALL_ON);
    const sandbox = await order(a.test);
    const testMsgs = await messagesOf(a.test, sandbox.id);
    expect(testMsgs.length).toBe(3);
    for (const m of testMsgs) expect([m.status, m.reason, m.provider]).toEqual(['suppressed', 'test_mode', 'log']);
    // The live key does not see test messages, and the other way round.
    expect(await messagesOf(a.live, sandbox.id)).toEqual([]);

    // The email link opts the address out of this account (RFC 8058 one-click POST).
    const link = await unsubscribeUrl(t.ctx, a.accountId, 'optout@example.com');
    const path = new URL(link).pathname + new URL(link).search;
    const page = await client(t.app)('GET', path);
    expect(page.status, JSON.stringify(page.body)).toBe(200);
    const post = await client(t.app)('POST', path, 'List-Unsubscribe=One-Click', {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(post.status).toBe(200);
    expect(
      (
        await client(t.app)('POST', `${path}x`, 'List-Unsubscribe=One-Click', {
          'content-type': 'application/x-www-form-urlencoded',
        })
      ).status,
    ).toBe(404);
    const o = await order(a.live, { customer: { name: 'Olga', email: 'OptOut@example.com', phone: '+99912345678' } });
    // The opted-out address is found by the send job (right before a send), the invalid numbers at once.
    await t.jobs.idle();
    const msgs = await messagesOf(a.live, o.id);
    const by = Object.fromEntries(msgs.map((m) => [m.channel, [m.status, m.reason]]));
    expect(by).toEqual({
      email: ['suppressed', 'opted_out'],
      sms: ['suppressed', 'no_valid_phone'],
      whatsapp: ['suppressed', 'no_valid_phone'],
    });
    // Another account still writes to that address.
    await client(t.app, b.live)('PUT', '/v1/notification_settings', ALL_ON);
    const ob = await order(b.live, { customer: { name: 'Olga', email: 'optout@example.com' } });
    await t.jobs.idle();
    expect((await messagesOf(b.live, ob.id)).find((m) => m.channel === 'email').status).toBe('sent');

    // 23:00 in Lima: order_confirmed waits for 08:00.
    now = Date.parse('2026-11-26T04:00:00Z');
    const late = await order(a.live, { customer: { name: 'Nora', phone: '+51987654323' } });
    await t.jobs.idle();
    const waiting = (await messagesOf(a.live, late.id)).find((m) => m.channel === 'sms');
    expect([waiting.status, waiting.reason]).toEqual(['queued', 'quiet_hours']);
    now = Date.parse('2026-11-26T13:01:00Z');
    await t.jobs.idle();
    const sent = (await messagesOf(a.live, late.id)).find((m) => m.channel === 'sms');
    expect([sent.status, sent.reason]).toEqual(['sent', null]);
    now = MORNING;
  });

  it('a message is rendered by its send: queued it reads as it will go, the send stores that text once; a bad address is suppressed then', async () => {
    // 23:00 in Lima: quiet hours keep the messages queued until 08:00.
    now = Date.parse('2026-11-26T04:00:00Z');
    const o = await order(a.live, {
      customer: { name: 'Rosa Diaz', email: 'rosa@example.com', phone: '+51987654324' },
    });
    const bad = await order(a.live, { customer: { name: 'Bruno', email: 'bruno@example.com', phone: '+99912345678' } });
    await move(op, o.id, 'assign', { courier_id: courier });
    await move(op, o.id, 'pickup');
    await move(op, o.id, 'fail', { reason: 'customer_absent' });
    await t.jobs.idle();
    const stored = async (orderId: string) =>
      t.ctx.db
        .selectFrom('messages')
        .select(['id', 'body', 'to_address', 'segments'])
        .where('order_id', '=', orderId)
        .execute();
    // Written at the move without its text…
    for (const row of await stored(o.id)) expect([row.body, row.to_address, row.segments]).toEqual([null, null, null]);
    // …and read as its send will write it, in the list, by id, and (masked) by the carrier.
    const queued = await messagesOf(a.live, o.id);
    expect(queued).toHaveLength(6);
    for (const m of queued) {
      expect([m.status, m.reason]).toEqual(['queued', 'quiet_hours']);
      expect(m.body).toContain(`https://ruta.example.com/track/${o.tracking_code}`);
      expect(m.to).toBe(m.channel === 'email' ? 'rosa@example.com' : '+51987654324');
      if (m.channel === 'email') expect(m.segments).toBe(0);
      else expect(m.segments).toBeGreaterThanOrEqual(1);
    }
    const confirmedSms = queued.find((m) => m.trigger === 'order_confirmed' && m.channel === 'sms');
    expect(confirmedSms.body).toMatch(/^Hola Rosa, recibimos tu pedido de Tienda Aurora\./);
    const one = await client(t.app, a.live)('GET', `/v1/messages/${confirmedSms.id}`);
    expect([one.status, one.body.body, one.body.to]).toEqual([200, confirmedSms.body, '+51987654324']);
    const carrier = (await client(t.app, op)('GET', `/v1/messages/${confirmedSms.id}`)).body;
    expect([carrier.to, carrier.body]).toEqual(['+51•••••4324', confirmedSms.body]);
    const badQueued = await messagesOf(a.live, bad.id);
    expect(badQueued.find((m) => m.channel === 'sms')).toMatchObject({ status: 'queued', to: null });

    // The failure's reason is the move's: a second failure the same night (another reason) writes
    // no second message (one per order, trigger and channel) and does not change the first one's text.
    await move(op, o.id, 'reschedule', { requested_date: '2026-11-27' });
    await move(op, o.id, 'assign', { courier_id: courier });
    await move(op, o.id, 'pickup');
    await move(op, o.id, 'fail', { reason: 'wrong_address' });
    const failedSms = (await messagesOf(a.live, o.id)).filter((m) => m.trigger === 'failed' && m.channel === 'sms');
    expect(failedSms).toHaveLength(1);
    // (In an SMS without the accent GSM-7 lacks: one "ó" would make the whole text UCS-2.)
    expect(failedSms[0].body).toContain('no encontramos a nadie en la direccion');

    // 08:01: sent, with the text shown while queued, stored now; the bad number suppressed with its reason.
    now = Date.parse('2026-11-26T13:01:00Z');
    await t.jobs.idle();
    await t.jobs.idle();
    const sent = await messagesOf(a.live, o.id);
    for (const m of sent.filter((x) => x.trigger !== 'rescheduled')) {
      const before = queued.find((q) => q.id === m.id);
      expect([m.status, m.attempts, m.body, m.to]).toEqual(['sent', 1, before.body, before.to]);
    }
    for (const row of await stored(o.id)) expect(row.body).not.toBeNull();
    const badSent = Object.fromEntries(
      (await messagesOf(a.live, bad.id)).map((m) => [m.channel, [m.status, m.reason]]),
    );
    expect(badSent).toEqual({
      email: ['sent', null],
      sms: ['suppressed', 'no_valid_phone'],
      whatsapp: ['suppressed', 'no_valid_phone'],
    });
    const badRow = (await stored(bad.id)).find((r) => r.to_address === null);
    expect(badRow?.body).toMatch(/^Hola Bruno/);
    now = MORNING;
  });

  it('settings: defaults, partial updates, template checks and the preview with SMS segments', async () => {
    const c = await newMerchant(t, 'Casa Chavín');
    const call = client(t.app, c.live);
    const first = await call('GET', '/v1/notification_settings');
    expect(first.status).toBe(200);
    expect(first.body.inherited).toBe(true);
    expect(first.body.quiet_hours).toEqual({ start: '21:00', end: '08:00' });
    expect(first.body.templates.delivered.sms.es.custom).toBe(false);
    const up = await call('PUT', '/v1/notification_settings', {
      triggers: { order_confirmed: { sms: true } },
      locale: 'pt',
      templates: { delivered: { sms: { es: { body: 'Entregado, {{customer_first_name}}: {{tracking_url}}' } } } },
    });
    expect(up.status).toBe(200);
    expect(up.body.inherited).toBe(false);
    expect(up.body.triggers.order_confirmed).toEqual({ sms: true, whatsapp: false, email: true });
    expect(up.body.locale).toBe('pt');
    expect(up.body.templates.delivered.sms.es).toEqual({
      body: 'Entregado, {{customer_first_name}}: {{tracking_url}}',
      custom: true,
    });
    const bad = await call('PUT', '/v1/notification_settings', {
      templates: { delivered: { sms: { es: { body: 'Hola {{nombre}}' } } } },
    });
    expect([bad.status, bad.body.error.code, bad.body.error.param]).toEqual([
      422,
      'parameter_invalid',
      'templates.delivered.sms.es.body',
    ]);
    expect((await call('PUT', '/v1/notification_settings', { locale: 'fr' })).status).toBe(422);
    expect(
      (await call('PUT', '/v1/notification_settings', { quiet_hours: { start: '25:00', end: '08:00' } })).status,
    ).toBe(422);

    const gsm = await call('POST', '/v1/notification_settings/preview', {
      trigger: 'delivered',
      channel: 'sms',
      locale: 'es',
    });
    expect(gsm.status).toBe(200);
    expect(gsm.body).toMatchObject({ encoding: 'GSM-7', segments: 1 });
    expect(gsm.body.body).toBe('Entregado, Ana: https://ruta.example.com/track/RT4K7Q2M9X');
    const ucs = await call('POST', '/v1/notification_settings/preview', {
      trigger: 'delivered',
      channel: 'sms',
      template: { body: `Llegó tu pedido 📦 ${'x'.repeat(60)}` },
    });
    expect(ucs.body).toMatchObject({ encoding: 'UCS-2', segments: 2 });
    const long = await call('POST', '/v1/notification_settings/preview', {
      trigger: 'delivered',
      channel: 'sms',
      template: { body: 'a'.repeat(161) },
    });
    expect(long.body).toMatchObject({ encoding: 'GSM-7', length: 161, segments: 2 });
    const mail = await call('POST', '/v1/notification_settings/preview', {
      trigger: 'failed',
      channel: 'email',
      locale: 'en',
    });
    expect(mail.body.subject).toBe('We could not deliver your order from Casa Chavín');
    expect(mail.body.segments).toBe(0);

    // The carrier's defaults: an operator key reads and changes them; accounts without their own follow.
    const d = await newMerchant(t, 'Don Dino');
    expect((await client(t.app, op)('PUT', '/v1/notification_settings', { sender_name: 'Rápido Lima' })).status).toBe(
      200,
    );
    expect((await client(t.app, d.live)('GET', '/v1/notification_settings')).body.sender_name).toBe('Rápido Lima');
    expect((await client(t.app, c.live)('GET', '/v1/notification_settings')).body.sender_name).toBe(null);
    await client(t.app, op)('PUT', '/v1/notification_settings', { sender_name: null });
  });

  it('isolation: merchant A never sees B; wrong key, other environment, courier refused; operator sees addresses masked', async () => {
    now = MORNING;
    const o = await order(a.live, { customer: { name: 'Iris', phone: '+51987654324' } });
    const mine = await messagesOf(a.live, o.id);
    expect(mine.length).toBeGreaterThan(0);
    const id = mine.find((m) => m.channel === 'sms').id;
    expect((await client(t.app, a.live)('GET', `/v1/messages/${id}`)).status).toBe(200);
    expect((await client(t.app, b.live)('GET', `/v1/messages/${id}`)).status).toBe(404);
    expect(await messagesOf(b.live, o.id)).toEqual([]);
    expect((await client(t.app, a.test)('GET', `/v1/messages/${id}`)).status).toBe(404);
    expect((await client(t.app, opTest)('GET', `/v1/messages/${id}`)).status).toBe(404);
    expect((await client(t.app, 'sk_live_nope')('GET', '/v1/messages')).status).toBe(401);
    expect((await client(t.app)('GET', '/v1/notification_settings')).status).toBe(401);
    const seen = await client(t.app, op)('GET', `/v1/messages/${id}`);
    expect(seen.status).toBe(200);
    expect(seen.body.to).toBe('+51•••••4324');
    // B's settings are B's: A's change does not show there.
    await client(t.app, a.live)('PUT', '/v1/notification_settings', { sender_name: 'Aurora' });
    expect((await client(t.app, b.live)('GET', '/v1/notification_settings')).body.sender_name).toBe(null);
    // A courier session sees no messages and no settings.
    const s = await courierSession(t, op, courier);
    const asCourier = sessionClient(t, s, 'live');
    expect((await asCourier('GET', '/v1/messages')).status).toBe(403);
    expect((await asCourier('GET', `/v1/messages/${id}`)).status).toBe(403);
    expect((await asCourier('GET', '/v1/notification_settings')).status).toBe(403);
    expect((await asCourier('PUT', '/v1/notification_settings', { locale: 'en' })).status).toBe(403);
    // A merchant cannot page with another account's message id, nor filter with a bad value.
    expect((await client(t.app, b.live)('GET', `/v1/messages?starting_after=${id}`)).status).toBe(422);
    expect((await client(t.app, a.live)('GET', '/v1/messages?channel=fax')).status).toBe(422);
    // Cursor pages: newest first, no overlap.
    const p1 = await client(t.app, a.live)('GET', '/v1/messages?limit=2');
    expect(p1.body.has_more).toBe(true);
    const p2 = await client(t.app, a.live)('GET', `/v1/messages?limit=2&starting_after=${p1.body.data[1].id}`);
    expect(p2.body.data[0].id < p1.body.data[1].id).toBe(true);
  });
});

describeEach(
  'customer messages: a status callback finds its message on the partial index (migration 030)',
  (engine) => {
    const t = useApp(engine);

    it('reads messages_provider_id, which holds only messages a provider accepted', async () => {
      // The query messageByProviderId runs (src/features/messages/repo.ts).
      const q = t.ctx.db
        .selectFrom('messages')
        .selectAll()
        .where('provider', '=', 'twilio')
        .where('provider_message_id', '=', 'SM0123456789abcdef0123456789abcdef')
        .compile();
      const plan = await explain(t.ctx.db, engine, q);
      expect(
        plan.nodes.filter((n) => n.table === 'messages').map((n) => n.index),
        plan.text,
      ).toEqual(['messages_provider_id']);
    });
  },
);
