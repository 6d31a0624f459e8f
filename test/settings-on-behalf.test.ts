import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  client,
  describeEach,
  type Merchant,
  newMerchant,
  newOperator,
  startApp,
  type TestApp,
  validOrder,
} from './helpers.js';
import { courierSession, sessionClient, userSession } from './people-helpers.js';

// The carrier sets a merchant's customer-message and proof settings on its behalf (issue 19's
// console): `?account=` on the settings routes, one owner rule (shared/access.ts settingsOwner);
// and the console's message log filters (trigger, account) and the providers each channel uses.

// 10:00 in Lima: outside the default quiet hours, so messages are queued, not held.
const MORNING = Date.parse('2026-11-25T15:00:00Z');

describeEach('settings on behalf of a merchant, message filters', (engine) => {
  let t: TestApp;
  let shop: Merchant;
  let other: Merchant;
  let op: ReturnType<typeof client>;
  let opKey: string;
  beforeAll(async () => {
    t = await startApp(
      engine,
      {
        RUTA_DEFAULT_TIMEZONE: 'America/Lima',
        RUTA_SMTP_URL: 'smtp://u:secret-pass@127.0.0.1:9',
        RUTA_EMAIL_FROM: 'a@b.c',
      },
      { clock: () => MORNING },
    );
    shop = await newMerchant(t, 'Behalf Settings Shop');
    other = await newMerchant(t, 'Other Settings Shop');
    opKey = await newOperator(t, 'test');
    op = client(t.app, opKey);
  });
  afterAll(async () => t?.close());

  const settingsPaths = ['/v1/notification_settings', '/v1/proof_settings'];

  it('a dispatcher changes one merchant’s settings: that merchant reads them, the other and the defaults do not change', async () => {
    const dispatcher = sessionClient(t, await userSession(t, 'dispatcher'));
    const put = await dispatcher('PUT', `/v1/notification_settings?account=${shop.accountId}`, {
      sender_name: 'Envíos Behalf',
      triggers: { delivered: { sms: true } },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body).toMatchObject({ account: shop.accountId, inherited: false, sender_name: 'Envíos Behalf' });
    const mine = (await client(t.app, shop.test)('GET', '/v1/notification_settings')).body;
    expect(mine).toMatchObject({ account: shop.accountId, sender_name: 'Envíos Behalf' });
    expect(mine.triggers.delivered.sms).toBe(true);
    const theirs = (await client(t.app, other.test)('GET', '/v1/notification_settings')).body;
    expect(theirs).toMatchObject({ inherited: true, sender_name: null });
    expect((await op('GET', '/v1/notification_settings')).body).toMatchObject({ account: null, sender_name: null });

    const proof = await dispatcher('PUT', `/v1/proof_settings?account=${shop.accountId}`, { pin: 'required' });
    expect(proof.body).toMatchObject({ account: shop.accountId, pin: 'required', inherited: false });
    expect((await client(t.app, shop.test)('GET', '/v1/proof_settings')).body.pin).toBe('required');
    expect((await client(t.app, other.test)('GET', '/v1/proof_settings')).body.pin).toBe('off');
    expect((await op('GET', `/v1/proof_settings?account=${shop.accountId}`)).body.pin).toBe('required');
    // Orders created afterwards follow: the merchant's new order carries a PIN requirement.
    const order = await client(t.app, shop.test)('POST', '/v1/orders', validOrder({ external_order_id: 'BEH-1' }));
    expect(order.body.proof_requirements.pin).toBe('required');
  });

  it('the preview renders with the named merchant’s settings and name', async () => {
    const named = await newMerchant(t, 'Preview Shop');
    await op('PUT', `/v1/notification_settings?account=${named.accountId}`, { sender_name: 'Carrier X' });
    const res = await op('POST', `/v1/notification_settings/preview?account=${named.accountId}`, {
      trigger: 'delivered',
      channel: 'sms',
      locale: 'en',
      template: { body: '{{merchant_name}} via {{carrier_name}}' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ body: 'Preview Shop via Carrier X', encoding: 'GSM-7', segments: 1 });
  });

  it('refuses: a merchant naming another account, a courier, an unknown or malformed account', async () => {
    for (const path of settingsPaths) {
      const probe = await client(t.app, shop.test)('GET', `${path}?account=${other.accountId}`);
      expect(probe.status, path).toBe(403);
      expect(probe.body.error.code).toBe('permission_denied');
      const write = await client(t.app, shop.test)('PUT', `${path}?account=${other.accountId}`, {});
      expect(write.status, path).toBe(403);
      // Its own account named is the same as none.
      expect((await client(t.app, shop.test)('GET', `${path}?account=${shop.accountId}`)).body.account).toBe(
        shop.accountId,
      );
      const unknown = await op('PUT', `${path}?account=acct_nope0000`, {});
      expect(unknown.status, path).toBe(404);
      expect(unknown.body.error).toMatchObject({ code: 'resource_missing', param: 'account' });
      for (const bad of ['ord_1', 'acct_x%27--', 'acct_'.padEnd(120, 'x')]) {
        const res = await op('GET', `${path}?account=${bad}`);
        expect(res.status, `${path} ${bad}`).toBe(422);
      }
      expect((await op('GET', `${path}?acount=${shop.accountId}`)).status).toBe(422);
    }
    const preview = await client(t.app, shop.test)(
      'POST',
      `/v1/notification_settings/preview?account=${other.accountId}`,
      {
        trigger: 'delivered',
        channel: 'sms',
      },
    );
    expect(preview.status).toBe(403);
    const courier = (await op('POST', '/v1/couriers', { name: 'Settings Courier' })).body;
    const phone = sessionClient(t, await courierSession(t, opKey, courier.id));
    for (const path of settingsPaths) {
      expect((await phone('GET', `${path}?account=${shop.accountId}`)).status, path).toBe(403);
      expect((await phone('PUT', `${path}?account=${shop.accountId}`, {})).status, path).toBe(403);
    }
    // Nothing the refusals touched changed the other merchant's settings.
    expect((await client(t.app, other.test)('GET', '/v1/proof_settings')).body.inherited).toBe(true);
  });

  it('the message log filters by trigger and account; a merchant cannot read another’s through the filter', async () => {
    const a = await client(t.app, shop.test)('POST', '/v1/orders', validOrder({ external_order_id: 'BEH-2' }));
    const b = await client(t.app, other.test)('POST', '/v1/orders', validOrder({ external_order_id: 'BEH-3' }));
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    const byAccount = await op('GET', `/v1/messages?account=${other.accountId}&trigger=order_confirmed&limit=100`);
    expect(byAccount.status).toBe(200);
    const orders = new Set(byAccount.body.data.map((m: { order: string }) => m.order));
    expect(orders.has(b.body.id)).toBe(true);
    expect(orders.has(a.body.id)).toBe(false);
    expect(byAccount.body.data.every((m: { trigger: string }) => m.trigger === 'order_confirmed')).toBe(true);
    expect((await op('GET', `/v1/messages?account=${other.accountId}&trigger=delivered`)).body.data).toHaveLength(0);

    const probe = await client(t.app, shop.test)('GET', `/v1/messages?account=${other.accountId}`);
    expect(probe.status).toBe(403);
    const own = await client(t.app, shop.test)('GET', `/v1/messages?account=${shop.accountId}&limit=100`);
    expect(own.body.data.map((m: { order: string }) => m.order)).toContain(a.body.id);
    expect((await op('GET', '/v1/messages?trigger=sent')).status).toBe(422);
    expect((await op('GET', '/v1/messages?account=ord_1')).status).toBe(422);
  });

  it('the settings say which provider each channel uses, never a credential', async () => {
    const res = await op('GET', `/v1/notification_settings?account=${shop.accountId}`);
    expect(res.body.providers).toEqual({ sms: 'log', whatsapp: 'log', email: 'smtp' });
    expect(JSON.stringify(res.body)).not.toContain('secret-pass');
    expect(JSON.stringify(res.body)).not.toContain('127.0.0.1');
    const merchant = await client(t.app, shop.test)('GET', '/v1/notification_settings');
    expect(merchant.body.providers.email).toBe('smtp');
  });
});
