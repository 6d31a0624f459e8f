import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type ImportRunner, startImportRunner } from '../src/features/imports/runner.js';
import { hasChromium, launch, openPage, serveApp, skipNote, submitSignIn } from './browser-helpers.js';
import { type LocalGeocoder, startLocalGeocoder } from './geocoder-server.js';
import { client, describeEachInBrowser, newMerchant, type TestApp } from './helpers.js';
import { newUser } from './people-helpers.js';

/** Issue 24 set-up screens: address search, the loopback warning and Copy buttons, the favicon, the focus frame. */
describeEachInBrowser('console set-up in headless Chromium', (engine) => {
  let t: TestApp;
  let browser: Browser;
  let base: string;
  let geo: LocalGeocoder;
  let runner: ImportRunner;
  let dir: string;

  beforeAll(async () => {
    if (!hasChromium) return;
    geo = await startLocalGeocoder([
      { match: 'Av. Larco 345', lat: -12.1245, lng: -77.0301, rank: 30, name: '345, Avenida Larco, Miraflores, Lima' },
      { match: 'Larco', lat: -12.12, lng: -77.03, rank: 26, name: 'Avenida Larco, Miraflores, Lima' },
    ]);
    ({ t, base } = await serveApp(engine, { RUTA_GEOCODER_URL: geo.url }));
    runner = startImportRunner(t.ctx, pino({ level: 'silent' }));
    dir = mkdtempSync(join(tmpdir(), 'ruta-setup-browser-'));
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
    await runner?.stop();
    await t?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    await geo?.close();
  });

  async function signedIn(role: 'dispatcher' | 'merchant', account?: string): Promise<Page> {
    const page = await openPage(browser, {
      viewport: { width: 1440, height: 900 },
      permissions: ['clipboard-read', 'clipboard-write'],
    });
    await submitSignIn(page, base, (await newUser(t, role, account)).email);
    await page.getByRole('heading', { name: 'Orders', exact: true }).waitFor();
    return page;
  }

  it.skipIf(!hasChromium)(
    `a merchant types an address and picks the place found: the order gets its point${skipNote}`,
    async () => {
      const shop = await newMerchant(t, 'Setup Shop');
      const page = await signedIn('merchant', shop.accountId);
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'New order' }).click();
      await page.getByLabel('Customer name *').fill('Rosa Quispe');
      await page.getByLabel('Customer phone').fill('+51987654321');
      await page.getByLabel('Address *').fill('Av. Larco 345');
      await page.getByLabel('District').fill('Miraflores');
      const pick = page.getByRole('button', { name: /345, Avenida Larco, Miraflores, Lima \(house\)/ });
      await pick.click();
      expect(await page.getByLabel('Latitude').inputValue()).toBe('-12.1245');
      expect(await page.getByLabel('Longitude').inputValue()).toBe('-77.0301');
      await page.getByText('Located: 345, Avenida Larco, Miraflores, Lima').waitFor();
      await page.getByRole('button', { name: 'Create order' }).click();
      await page.getByRole('heading', { name: /Rosa Quispe/ }).waitFor();
      const [order] = (await client(t.app, shop.test)('GET', '/v1/orders')).body.data;
      expect(order.delivery_address).toMatchObject({ lat: -12.1245, lng: -77.0301 });
      // The coordinates came from the form, so the server did not geocode again.
      expect(order.geocode).toBeNull();
      await page.context().close();
    },
    // The first page of the file also loads the console's code: slow on a busy machine.
    60_000,
  );

  it.skipIf(!hasChromium)(
    `a courier's sign-in link on a loopback address is flagged, and copied with one click${skipNote}`,
    async () => {
      const page = await signedIn('dispatcher');
      const nav = page.getByRole('navigation', { name: 'Main' });
      // The page takes the focus after a navigation, without a frame around the whole page.
      await nav.getByRole('link', { name: 'Couriers' }).click();
      await page.getByRole('heading', { name: 'Couriers' }).waitFor();
      await expect.poll(() => page.evaluate('document.activeElement?.id')).toBe('main');
      expect(await page.evaluate('getComputedStyle(document.activeElement).outlineStyle')).toBe('none');

      const name = `Courier ${engine} ${Math.random().toString(36).slice(2, 6)}`;
      const form = page.getByRole('form', { name: 'New courier' });
      await form.getByLabel('Name *').fill(name);
      await form.getByLabel('Shift starts').fill('08:00');
      // Typed as people write it, with spaces: sent as E.164.
      await form.getByLabel('Phone').fill('+51 912 345 678');
      await form.getByRole('button', { name: 'Add courier' }).click();
      const card = page.locator('li.card', { hasText: name });
      await card.waitFor();
      await card.getByText(/\+51912345678/).waitFor();
      // Its id, one 30-character word, wraps inside the card instead of running out of it.
      const spilling = await card.evaluate((li) =>
        [...li.querySelectorAll('p')].filter((p) => p.scrollWidth > p.clientWidth).map((p) => p.textContent),
      );
      expect(spilling).toEqual([]);
      await card.getByRole('button', { name: 'Sign in a phone' }).click();
      await card.getByRole('alert').filter({ hasText: 'a phone cannot open it' }).waitFor();
      expect(await card.getByRole('alert').textContent()).toContain('RUTA_PUBLIC_URL');
      await card.getByRole('button', { name: 'Copy sign-in link' }).click();
      await card.getByText('Copied').waitFor();
      const copied = await page.evaluate<string>('navigator.clipboard.readText()');
      expect(copied).toMatch(new RegExp(`^${base.replace(/[.]/g, '\\.')}/courier/#code=`));
      await page.context().close();
    },
  );

  it.skipIf(!hasChromium)(
    `a dispatcher imports a CSV without coordinates for a merchant: geocoded, the merchant's orders${skipNote}`,
    async () => {
      const shop = await newMerchant(t, 'Imported For Shop');
      const page = await signedIn('dispatcher');
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Imports' }).click();
      const choose = page.getByRole('form', { name: 'Import for a merchant' });
      await choose.getByLabel('Merchant account').fill('not an id');
      await choose.getByRole('button', { name: 'Continue' }).click();
      await choose.getByRole('alert').waitFor();
      await choose.getByLabel('Merchant account').fill(shop.accountId);
      await choose.getByRole('button', { name: 'Continue' }).click();
      const path = join(dir, `${engine}-orders.csv`);
      writeFileSync(
        path,
        'external_order_id,customer_name,customer_phone,address,district,city,item_description\r\nDISP-1,Rosa Quispe,+51987654321,Av. Larco 345,Miraflores,Lima,Caja\r\n',
      );
      await page.getByLabel('Spreadsheet (.csv or .xlsx) *').setInputFiles(path);
      await page.getByRole('button', { name: 'Upload' }).click();
      await page.getByRole('heading', { name: /^Import imp_/ }).waitFor();
      expect(page.url()).toContain(`?account=${shop.accountId}`);
      await page.getByRole('status').filter({ hasText: 'Import finished' }).waitFor({ timeout: 20_000 });
      const [order] = (await client(t.app, shop.test)('GET', '/v1/orders?external_order_id=DISP-1')).body.data;
      expect(order.delivery_address).toMatchObject({ lat: -12.1245, lng: -77.0301 });
      expect(order.geocode).toMatchObject({ quality: 'address', needs_review: false });
      await page.context().close();
    },
  );

  it.skipIf(!hasChromium)(`serves /favicon.ico, and the console links it${skipNote}`, async () => {
    const res = await fetch(`${base}/favicon.ico`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(await (await fetch(`${base}/console/`)).text()).toContain('<link rel="icon" href="/favicon.ico"');
  });
});
