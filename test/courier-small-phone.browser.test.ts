import type { BrowserContext, Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { createAccount } from '../src/features/accounts/service.js';
import { hasChromium, skipNote, useBrowserApp } from './browser-helpers.js';
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
    over: Record<string, unknown> = {},
  ): Promise<{ context: BrowserContext; page: Page; orderId: string }> {
    const op = client(web.t.app, operator);
    const courier = (await op('POST', '/v1/couriers', { name })).body;
    const order = await orderIn(web.t, merchantKey, operator, courier.id, 'in_transit', {
      customer: { name: 'Maximiliano Fernández', phone: '+56912345678' },
      requires_photo: false,
      ...over,
    });
    const context = await web.browser.newContext({
      viewport: { width: 360, height: 640 },
      deviceScaleFactor: 2,
      hasTouch: true,
      isMobile: true,
    });
    const page = await context.newPage();
    page.setDefaultTimeout(20_000);
    const code = (await op('POST', `/v1/couriers/${courier.id}/sign_in_codes`, {})).body.code;
    await page.goto(`${web.base}/courier/`);
    await page.getByLabel('Sign-in code from your dispatcher').fill(code);
    await page.getByRole('button', { name: 'Sign in' }).click();
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
});
