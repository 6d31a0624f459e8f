import type { BrowserContext, Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { createAccount } from '../src/features/accounts/service.js';
import { hasChromium, signInPhone, skipNote, useBrowserApp } from './browser-helpers.js';
import { textLines } from './day-steps.js';
import { client, describeEachInBrowser, newOperator } from './helpers.js';
import { orderIn } from './lifecycle-helpers.js';

/**
 * The courier app on a small Android phone (360 × 640 CSS px, the smallest common one), with the
 * long names and the large amounts of a real day: what is on screen stays usable.
 */
describeEachInBrowser('courier app on a 360 × 640 phone', (engine) => {
  let operator: string;
  let merchantKey: string;
  const web = useBrowserApp(
    engine,
    {},
    {
      setup: async (t) => {
        operator = await newOperator(t, 'test');
        // Chilean pesos: no cents, so a day's cash runs to eight digits.
        merchantKey = (await createAccount(t.ctx, { name: 'Tienda Ñandú', currency: 'CLP' })).keys.test;
      },
    },
  );

  /** A courier of the test's own, named `name`, with one stop on its way, and its phone signed in. */
  async function signedIn(
    name: string,
    opts: {
      before?: (courierId: string) => Promise<void>;
      locale?: string;
      width?: number;
      order?: Record<string, unknown>;
    } = {},
  ): Promise<{ context: BrowserContext; page: Page; orderId: string }> {
    const op = client(web.t.app, operator);
    const courier = (await op('POST', '/v1/couriers', { name })).body;
    await opts.before?.(courier.id);
    const order = await orderIn(web.t, merchantKey, operator, courier.id, 'in_transit', {
      customer: { name: 'Maximiliano Fernández', phone: '+56912345678' },
      requires_photo: false,
      ...opts.order,
    });
    const context = await web.browser.newContext({
      locale: opts.locale,
      viewport: { width: opts.width ?? 360, height: 640 },
      deviceScaleFactor: 2,
      hasTouch: true,
      isMobile: true,
    });
    const page = await context.newPage();
    page.setDefaultTimeout(20_000);
    await signInPhone(page, web, operator, courier.id);
    await page.locator(`li.stop[data-order="${order.id}"]`).getByRole('button', { name: 'Deliver' }).waitFor();
    return { context, page, orderId: order.id };
  }

  it.skipIf(!hasChromium)(
    `a long name keeps the sticky top bar to one line, not five over the sheet${skipNote}`,
    async () => {
      const name = 'María Fernanda de los Ángeles Gutiérrez-Santibáñez';
      const { context, page } = await signedIn(name);
      const bar = page.locator('header.c-top');
      const shown = bar.locator('strong');
      // The name on one line, all of it still in the text. It wrapped to five: a sticky bar of 150
      // px, a quarter of the screen, that covered the signature pad once it was scrolled up to it.
      expect(await textLines(shown)).toBe(1);
      expect(await shown.textContent()).toBe(name);
      expect(await shown.getAttribute('title')).toBe(name);
      expect((await bar.boundingBox())!.height).toBeLessThan(80);
      await expect.poll(() => bar.getByText('Online').isVisible()).toBe(true);
      await context.close();
    },
    60_000,
  );

  it.skipIf(!hasChromium)(
    `on a 280 px cover screen the name takes a line of its own rather than vanishing${skipNote}`,
    async () => {
      const name = 'María Fernanda de los Ángeles Gutiérrez-Santibáñez';
      const { context, page } = await signedIn(name, { width: 280 });
      const bar = page.locator('header.c-top');
      const shown = bar.locator('strong');
      expect(await textLines(shown)).toBe(1);
      // Cut to one line, the name still shows its first word (it shrank to 0 px beside the controls).
      expect((await shown.boundingBox())!.width).toBeGreaterThan(60);
      const barBox = (await bar.boundingBox())!;
      expect(barBox.x + barBox.width).toBeLessThanOrEqual(280);
      expect(barBox.height).toBeLessThan(120);
      for (const control of [bar.getByLabel('On duty'), bar.getByRole('button', { name: 'Sign out' })]) {
        const box = (await control.boundingBox())!;
        expect(box.x + box.width).toBeLessThanOrEqual(280);
      }
      await page.screenshot({ path: `/tmp/courier-top-280-${engine}.png` });
      await context.close();
    },
    60_000,
  );

  it.skipIf(!hasChromium)(
    `a COD in pesos with cents shows them, not the peso Intl would round it to${skipNote}`,
    async () => {
      // The API takes hundredths in every currency (DESIGN §2); Intl writes pesos without decimals.
      const { context, page, orderId } = await signedIn('Rider Centavos', {
        locale: 'es-CL',
        order: { cash_on_delivery: 1500.5 },
      });
      const stop = page.locator(`li.stop[data-order="${orderId}"]`);
      // It said "COD $1.501": the wrong sum to collect.
      expect(await stop.locator('.facts').textContent()).toMatch(/COD \$1\.500,50$/);
      await stop.getByRole('button', { name: 'Deliver' }).click();
      expect(await page.locator('legend').textContent()).toBe('Cash on delivery: $1.500,50');
      expect(await page.getByLabel('Collected').inputValue()).toBe('1500.5');
      await context.close();
    },
    60_000,
  );

  it.skipIf(!hasChromium)(
    `pesos typed with es-CL dots are refused with a whole example; the saved note is a polite live region${skipNote}`,
    async () => {
      const { context, page, orderId } = await signedIn('Rider Anuncio', {
        locale: 'es-CL',
        order: { cash_on_delivery: 12_345_678 },
      });
      // A screen reader announces a live region's text as it changes, not one that appears with it.
      const live = page.locator('[data-note]');
      expect(await live.getAttribute('role')).toBe('status');
      expect(await live.getAttribute('aria-live')).toBe('polite');
      expect(await live.textContent()).not.toContain('Deliver saved');
      await page.locator(`li.stop[data-order="${orderId}"]`).getByRole('button', { name: 'Deliver' }).click();
      const field = page.getByLabel('Collected');
      await field.fill('12.345.678');
      await page.getByRole('button', { name: 'Confirm delivery' }).click();
      // It said "…: 1234,50 or 1234.50.": cents a peso is never shown with.
      const error = page.locator('#collected-error');
      await error.getByText('without a thousands separator: 1234567.').waitFor();
      expect(await error.textContent()).not.toMatch(/\d[.,]\d/);
      await field.fill('12345678');
      await page.getByRole('button', { name: 'Confirm delivery' }).click();
      await expect.poll(() => live.textContent()).toContain('Deliver saved');
      expect(await page.locator('[role=status] [role=status], [aria-live] [aria-live]').count()).toBe(0);
      await context.close();
    },
    60_000,
  );

  for (const locale of ['es-CL', 'en-US']) {
    it.skipIf(!hasChromium)(
      `My cash with eight digits of pesos (${locale}) fits the screen: the page does not pan sideways${skipNote}`,
      async () => {
        const { context, page } = await signedIn(`Rider Cash ${locale}`, {
          // 12 345 678 pesos collected today: the balance the card shows in all but one of its columns.
          before: async (courierId) => {
            const paid = await orderIn(web.t, merchantKey, operator, courierId, 'in_transit', {
              cash_on_delivery: 12_345_678,
            });
            const done = await client(web.t.app, operator)('POST', `/v1/orders/${paid.id}/deliver`, {
              receiver_name: 'Ana Torres',
              collected_amount: 12_345_678,
              payment_method: 'cash',
            });
            expect(done.status).toBe(200);
          },
          locale,
        });
        const row = page.getByRole('table', { name: 'My cash' }).getByRole('row', { name: /CLP/ });
        await row.waitFor();
        const balance = row.getByRole('cell').last();
        expect(await balance.textContent()).toMatch(/12.345.678/);
        // The page was 366 px wide on a 360 px screen, the balance cut at its right edge.
        const width = await page.evaluate(
          () =>
            (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document
              .documentElement.scrollWidth,
        );
        expect(width).toBe(360);
        await balance.scrollIntoViewIfNeeded();
        const box = (await balance.boundingBox())!;
        expect(box.x + box.width).toBeLessThanOrEqual(360);
        await page.locator('section.cash').screenshot({ path: `/tmp/courier-cash-360-${locale}-${engine}.png` });
        await context.close();
      },
      60_000,
    );
  }
});
