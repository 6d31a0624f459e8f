import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cspErrorsOf } from './browser-helpers.js';
import { client, newMerchant, startApp, type TestApp, validOrder } from './helpers.js';

// CI machines are fresh: without a system Chromium this suite skips, and says why.
const CHROMIUM = process.env.RUTA_CHROMIUM_PATH ?? '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
const skipNote = hasChromium ? '' : ` [skipped: no Chromium at ${CHROMIUM}; apt-get install chromium]`;
const ARTIFACTS = join(import.meta.dirname, 'artifacts');

// Not per engine: the page's data path is covered on both engines in public-tracking.test.ts.
describe('public tracking page in headless Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let base: string;
  let code: string;

  beforeAll(async () => {
    if (!hasChromium) return;
    t = await startApp('sqlite');
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const m = await newMerchant(t, 'Acme Shoes');
    const order = (await client(t.app, m.live)('POST', '/v1/orders', validOrder())).body;
    code = order.tracking_code;
    // The lifecycle endpoints are built in parallel: move the order the way they would, in the database.
    const t0 = Date.parse(order.created_at);
    const steps = ['validated', 'assigned', 'ready_for_pickup', 'picked_up', 'in_transit'] as const;
    for (const [i, status] of steps.entries()) {
      await t.ctx.db
        .insertInto('order_timeline')
        .values({ order_id: order.id, status, occurred_at: t0 + (i + 1) * 4 * 60_000, lat: -12.05, lng: -77.04 })
        .execute();
    }
    await t.ctx.db
      .updateTable('orders')
      .set({ status: 'in_transit', courier_id: 'cou_x', courier_name: 'Juan Pérez' })
      .where('id', '=', order.id)
      .execute();
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  async function phonePage(): Promise<{ page: Page; cspErrors: string[] }> {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2 });
    const page = await context.newPage();
    const cspErrors = cspErrorsOf(page);
    return { page, cspErrors };
  }

  it.skipIf(!hasChromium)(`shows a customer their parcel on a phone${skipNote}`, async () => {
    const { page, cspErrors } = await phonePage();
    const res = await page.goto(`${base}/track/${code.toLowerCase()}`);
    expect(res?.status()).toBe(200);
    await expect(page.locator('h1').textContent()).resolves.toBe('Hi Ana, your parcel is on its way');
    // biome-ignore lint/performance/useDomNodeTextContent: the point is the rendered text a customer sees
    const text = await page.locator('body').innerText();
    expect(text).not.toContain('your parcel is\nOn the way');
    expect(text).toContain('Miraflores, Lima');
    expect(text).toContain('Acme Shoes');
    expect(text).not.toContain('Larco');
    expect(text).not.toContain('Torres');
    expect(text).not.toContain('ana@example.com');
    expect(text).not.toContain('Test mode');
    await expect(page.locator('[aria-current="step"]').textContent()).resolves.toContain('On the way');
    expect(await page.locator('.history li').count()).toBe(6);
    // The inline stylesheet really applied under the CSP (its hash matched), and nothing was refused.
    const bg = await page.evaluate('getComputedStyle(document.body).backgroundColor');
    expect(bg).not.toBe('rgba(0, 0, 0, 0)');
    expect(cspErrors).toEqual([]);
    // Fits a phone: no sideways scrolling.
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'track-page.png'), fullPage: true });
    await page.context().close();
  });

  it.skipIf(!hasChromium)(`shows a friendly page for an unknown code${skipNote}`, async () => {
    const { page, cspErrors } = await phonePage();
    const res = await page.goto(`${base}/track/${encodeURIComponent('nope<b>x</b>')}`);
    expect(res?.status()).toBe(404);
    await expect(page.locator('h1').textContent()).resolves.toBe('We could not find that parcel');
    expect(await page.locator('b').count()).toBe(0);
    expect(cspErrors).toEqual([]);
    await page.screenshot({ path: join(ARTIFACTS, 'track-404.png'), fullPage: true });
    await page.context().close();
  });
});
