import { join } from 'node:path';
import { expect, it } from 'vitest';
import { hasChromium, IMAGES, signInPhone, skipNote, useBrowserApp } from './browser-helpers.js';
import { client, describeEachInBrowser, newMerchant, newOperator } from './helpers.js';
import { orderIn } from './lifecycle-helpers.js';

/**
 * The courier app opened over plain http at an address other than localhost, as the README's
 * "phones on the same Wi-Fi" trial does (http://192.168.1.20:3000). The page is then not a secure
 * context: browsers give it no crypto.randomUUID, no location, no camera and no service worker. A
 * delivery confirmed there once threw before it was queued, and nothing said why; now the courier
 * delivers, offline too, types a label's code instead of scanning it, and is told what http withholds.
 */
describeEachInBrowser('courier app over plain http (not a secure context)', (engine) => {
  let operator: string;
  let merchantKey: string;
  const web = useBrowserApp(
    engine,
    {},
    {
      publicHost: 'ruta.test',
      setup: async (t) => {
        operator = await newOperator(t, 'test');
        merchantKey = (await newMerchant(t, 'Bodega Sur')).test;
      },
    },
  );

  it.skipIf(!hasChromium)(
    `loads a parcel by its typed code, delivers offline, and says what http withholds${skipNote}`,
    async () => {
      const op = client(web.t.app, operator);
      const courier = (await op('POST', '/v1/couriers', { name: 'Rider Wifi' })).body;
      const order = await orderIn(web.t, merchantKey, operator, courier.id, 'in_transit', {
        customer: { name: 'Ana Paz', phone: '+51987654329' },
        requires_photo: false,
        requires_signature: false,
      });
      // Location allowed, as a courier would: over http the browser still refuses every position.
      const context = await web.browser.newContext({
        viewport: { width: 390, height: 844 },
        hasTouch: true,
        permissions: ['geolocation'],
        geolocation: { latitude: -12.12, longitude: -77.03 },
      });
      const page = await context.newPage();
      page.setDefaultTimeout(20_000);
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));

      await signInPhone(page, web, operator, courier.id);
      expect(web.base).toMatch(/^http:\/\/ruta\.test:\d+$/);
      expect(await page.evaluate(() => (globalThis as { isSecureContext?: boolean }).isSecureContext)).toBe(false);
      const stop = page.locator(`li.stop[data-order="${order.id}"]`);
      await stop.getByRole('button', { name: 'Deliver' }).waitFor();
      await page.locator('[data-insecure]').getByText('open over http, not https').waitFor();

      // On duty: not "allow location in your settings", which cannot help here.
      await page.getByLabel('On duty').check();
      const located = page.getByRole('alert').filter({ hasText: 'Dispatch cannot see where you are' });
      await located.waitFor();
      expect(await located.textContent()).toContain('Ask your dispatcher for Ruta’s https address');
      expect(await page.getByText('Allow location for this site').count()).toBe(0);
      await page.getByLabel('On duty').uncheck();

      // No camera over http: the code printed on the label, typed (lower case, as a phone may, and in
      // groups of four, as people read it off a label).
      await page.getByRole('button', { name: 'Scan' }).click();
      await page.getByText('No camera over http').waitFor();
      expect(await page.getByLabel('Camera').isVisible()).toBe(false);
      await page.getByLabel('Or type the code on the label').fill('NOT-A-CODE');
      await page.getByRole('button', { name: 'Mark loaded' }).click();
      await page.getByText('Not a Ruta label: NOT-A-CODE').waitFor();
      await page.getByLabel('Or type the code on the label').fill(grouped(order.tracking_code.toLowerCase()));
      await page.getByRole('button', { name: 'Mark loaded' }).click();
      await page.getByText(new RegExp(`Stop \\d+ loaded: ${order.tracking_code}`)).waitFor();
      await page.screenshot({ path: join(IMAGES, 'courier-scan-typed.png') });
      await page.getByRole('button', { name: 'Done' }).click();
      await expect.poll(async () => (await op('GET', `/v1/orders/${order.id}`)).body.loaded_at).not.toBeNull();

      // Without signal: the delivery waits in the phone's queue (IndexedDB works over http) and syncs.
      await context.setOffline(true);
      await stop.getByRole('button', { name: 'Deliver' }).click();
      await page.getByRole('button', { name: 'Confirm delivery' }).click();
      await page.getByText('1 waiting to sync').waitFor();
      await context.setOffline(false);
      await page.getByText('All synced').waitFor({ timeout: 30_000 });
      await expect.poll(async () => (await op('GET', `/v1/orders/${order.id}`)).body.status).toBe('delivered');
      expect(errors).toEqual([]);
      await context.close();
    },
    120_000,
  );

  it.skipIf(!hasChromium)(
    `the console's "Sign in a phone" says a plain-http link gives the app no location, camera or offline start${skipNote}`,
    async () => {
      const name = 'Rider Console Wifi';
      expect((await client(web.t.app, operator)('POST', '/v1/couriers', { name })).status).toBe(201);
      const context = await web.browser.newContext({ viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      page.setDefaultTimeout(20_000);
      await page.goto(`${web.base}/console/`);
      await page.getByRole('button', { name: 'Use an API key instead' }).click();
      await page.getByLabel('API key (ok_… or sk_…)').fill(operator);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await page.getByRole('heading', { name: 'Orders' }).waitFor();
      await page.getByRole('link', { name: 'Couriers' }).click();
      const card = page.locator('li.card', { hasText: name });
      await card.getByRole('button', { name: 'Sign in a phone' }).click();
      await card.locator('.code').waitFor();
      const warning = card.getByRole('alert');
      expect(await warning.textContent()).toContain('This link is plain http');
      expect(await warning.textContent()).toContain('no location, camera or offline start');
      // Not the loopback warning: a phone can open this address.
      expect(await card.getByText('a phone cannot open it').count()).toBe(0);
      await context.close();
    },
    60_000,
  );
});

/** "j28t1b45yraw" as a person types it: "j28t 1b45 yraw". */
const grouped = (code: string) => code.replace(/(.{4})(?=.)/g, '$1 ');
