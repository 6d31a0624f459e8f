import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { hasChromium, IMAGES, openPage, skipNote, submitSignIn, useBrowserApp } from './browser-helpers.js';
import { client, describeEachInBrowser, newMerchant, validOrder } from './helpers.js';
import { newUser } from './people-helpers.js';

/**
 * The console's Messages section and Proof page (issue #19), as a dispatcher working for one
 * merchant: settings changed, a template edited beside its live preview, the log filtered down to
 * that merchant's messages, proof settings set; the API then answers with what the console saved,
 * and the merchant's next order asks for the PIN. The other merchant is untouched throughout.
 */
describeEachInBrowser('console messages and proof settings in headless Chromium', (engine) => {
  const web = useBrowserApp(engine);

  /** Picks the merchant in the page's AccountPicker by its name, and waits for its settings. */
  async function pickAccount(page: Page, field: string, name: string) {
    await page.locator(`#${field}`).fill(name);
    await page.getByText('Changes apply to this merchant only.').waitFor();
  }

  it.skipIf(!hasChromium)(
    `a dispatcher sets a merchant's messages, templates and proof; the log filters; the API follows${skipNote}`,
    { timeout: 60_000 },
    async () => {
      const shop = await newMerchant(web.t, `Tienda Mensajes ${engine}`);
      const other = await newMerchant(web.t, `Otra Tienda ${engine}`);
      const mine = client(web.t.app, shop.test);
      const theirs = client(web.t.app, other.test);
      // Each order writes its order_confirmed email (suppressed: test mode sends nothing).
      const order = (await mine('POST', '/v1/orders', validOrder({ external_order_id: 'MSG-1' }))).body;
      const foreign = (await theirs('POST', '/v1/orders', validOrder({ external_order_id: 'MSG-2' }))).body;

      const page = await openPage(web.browser, { viewport: { width: 1280, height: 900 } });
      await submitSignIn(page, web.base, (await newUser(web.t, 'dispatcher')).email);
      await page.getByRole('heading', { name: 'Orders', exact: true }).waitFor();

      // Settings: SMS on delivery, a sender name.
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Messages' }).click();
      await page.getByRole('heading', { name: 'Customer messages' }).waitFor();
      await pickAccount(page, 'messages-account', `Tienda Mensajes ${engine}`);
      const settings = page.getByRole('form', { name: 'Message settings' });
      await settings.getByText('uses the carrier’s defaults').waitFor();
      await settings.getByLabel('Delivered by SMS').check();
      await settings.getByLabel(/^Sender name/).fill('Envíos Rápidos');
      await settings.getByLabel(/^Country of phone numbers/).fill('pe');
      // WhatsApp templates: a wrong name is refused on its own box, and nothing is saved.
      const templates = settings.getByRole('group', { name: 'WhatsApp templates' });
      await templates.getByLabel('Out for delivery').fill('Salida Reparto');
      await settings.getByRole('button', { name: 'Save settings' }).click();
      await settings.locator('.field.has-error input[name="whatsapp_templates.out_for_delivery"]').waitFor();
      expect((await mine('GET', '/v1/notification_settings')).body.inherited).toBe(true);
      await templates.getByLabel('Out for delivery').fill('salida_reparto');
      await templates.getByLabel('Delivered').fill(`HX${'ab'.repeat(16)}`);
      await settings.getByRole('button', { name: 'Save settings' }).click();
      await settings.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
      expect(await settings.locator('dd[data-provider]').first().textContent()).toMatch(/none configured/);
      const saved = (await mine('GET', '/v1/notification_settings')).body;
      expect(saved).toMatchObject({ inherited: false, sender_name: 'Envíos Rápidos', default_country: 'PE' });
      expect(saved.triggers.delivered.sms).toBe(true);
      expect(saved.whatsapp_templates).toEqual({
        out_for_delivery: 'salida_reparto',
        delivered: `HX${'ab'.repeat(16)}`,
      });
      expect((await theirs('GET', '/v1/notification_settings')).body.inherited).toBe(true);

      // Templates: the delivered SMS in English, previewed as typed (an emoji makes it UCS-2).
      await page.getByRole('link', { name: 'Templates' }).click();
      await page.getByLabel('Moment').selectOption('delivered');
      await page.getByLabel('Channel').selectOption('sms');
      await page.getByLabel('Language').selectOption('en');
      const text = page.getByLabel('Text');
      await text.fill('Hi {{customer_first_name}}, delivered by {{carrier_name}} ✅');
      const preview = page.getByRole('region', { name: 'Preview' });
      await preview.getByText('Hi Ana, delivered by Envíos Rápidos ✅').waitFor();
      expect(await preview.getByTestId('segments').textContent()).toMatch(/UCS-2 · 1 SMS segment$/);
      await text.fill('Hi {{customer_first_name}} {{nope}}');
      await preview.getByText('unknown variable {{nope}}').waitFor();
      await text.fill('Hi {{customer_first_name}}, your parcel from {{merchant_name}} is delivered.');
      await preview.getByText(`Hi Ana, your parcel from Tienda Mensajes ${engine} is delivered.`).waitFor();
      expect(await preview.getByTestId('segments').textContent()).toMatch(/GSM-7 · 1 SMS segment$/);
      await page.getByRole('button', { name: 'Save template' }).click();
      await page.getByRole('status').filter({ hasText: 'Template saved.' }).waitFor();
      if (engine === 'sqlite') await page.screenshot({ path: join(IMAGES, 'console-messages.png'), fullPage: true });
      const tpl = (await mine('GET', '/v1/notification_settings')).body.templates.delivered.sms.en;
      expect(tpl).toMatchObject({ custom: true, body: expect.stringContaining('{{merchant_name}} is delivered') });

      // The log: this merchant's messages only, filtered; a row leads to its order.
      await page.getByRole('link', { name: 'Message log' }).click();
      const log = page.getByRole('table', { name: 'Messages' });
      await log.getByRole('link', { name: order.id }).waitFor();
      expect(await log.getByRole('link', { name: foreign.id }).count()).toBe(0);
      await page.getByLabel('Status').selectOption('suppressed');
      await page.getByLabel('Moment').selectOption('order_confirmed');
      await log.getByRole('row', { name: new RegExp(`${order.id}.*order confirmed.*email.*suppressed`) }).waitFor();
      await page.getByLabel('Moment').selectOption('delivered');
      await page.getByText('No messages match.').waitFor();
      await page.getByLabel('Moment').selectOption('');
      await log.getByRole('link', { name: order.id }).click();
      await page.getByRole('heading', { name: /Ana Torres/ }).waitFor();

      // Proof: the PIN required for this merchant; its next order asks for it, the other's does not.
      await page.goto(`${web.base}/console/#/proof`);
      await page.getByRole('heading', { name: 'Proof of delivery' }).waitFor();
      await pickAccount(page, 'proof-account', `Tienda Mensajes ${engine}`);
      const proof = page.getByRole('form', { name: 'Proof settings' });
      await proof.getByRole('group', { name: 'Delivery PIN' }).getByLabel('Required').check();
      await proof.getByRole('group', { name: 'Photo' }).getByLabel('Off').check();
      await proof.getByRole('button', { name: 'Save proof settings' }).click();
      await proof.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
      expect((await mine('GET', '/v1/proof_settings')).body).toMatchObject({ pin: 'required', photo: 'off' });
      const next = (await mine('POST', '/v1/orders', validOrder({ external_order_id: 'MSG-3' }))).body;
      expect(next.proof_requirements).toMatchObject({ pin: 'required', photo: 'off' });
      expect(next.delivery_pin).toMatch(/^\d{4}$/);
      const elsewhere = (await theirs('POST', '/v1/orders', validOrder({ external_order_id: 'MSG-4' }))).body;
      expect(elsewhere.proof_requirements.pin).toBe('off');
      await page.context().close();
    },
  );

  it.skipIf(!hasChromium)(
    `a merchant user sees its own settings with no account picker${skipNote}`,
    { timeout: 30_000 },
    async () => {
      const shop = await newMerchant(web.t, `Solo Tienda ${engine}`);
      await client(web.t.app, shop.test)('PUT', '/v1/proof_settings', { id_check: 'required' });
      const page = await openPage(web.browser, { viewport: { width: 390, height: 800 } });
      await submitSignIn(page, web.base, (await newUser(web.t, 'merchant', shop.accountId)).email);
      await page.getByRole('heading', { name: 'Orders', exact: true }).waitFor();
      await page.goto(`${web.base}/console/#/proof`);
      const proof = page.getByRole('form', { name: 'Proof settings' });
      expect(await proof.getByRole('group', { name: 'ID check' }).getByLabel('Required').isChecked()).toBe(true);
      expect(await page.locator('#proof-account').count()).toBe(0);
      await page.goto(`${web.base}/console/#/messages`);
      await page.getByRole('form', { name: 'Message settings' }).waitFor();
      expect(await page.locator('#messages-account').count()).toBe(0);
      await page.context().close();
    },
  );
});
