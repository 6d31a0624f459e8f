import type { BrowserContext, Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { MAX_MONEY } from '../src/features/orders/schemas.js';
import { MAX_AMOUNT } from '../web/src/courier/amount.js';
import { hasChromium, signInPhone, skipNote, useBrowserApp } from './browser-helpers.js';
import { client, describeEachInBrowser, newMerchant, newOperator } from './helpers.js';
import { orderIn } from './lifecycle-helpers.js';

/**
 * The cash a courier collected is typed on a phone whose keyboard may put a comma before the cents
 * ("60,00"): the deliver sheet reads it, and refuses at the field, before anything is queued, what
 * the server would refuse once the move syncs (hours later, offline). A move refused at sync
 * takes the note that promised it away, and names the stop by its customer.
 */
describeEachInBrowser('courier app: the cash collected, and a refusal at sync', (engine) => {
  let operator: string;
  let merchantKey: string;
  const web = useBrowserApp(
    engine,
    {},
    {
      setup: async (t) => {
        operator = await newOperator(t, 'test');
        merchantKey = (await newMerchant(t, 'Bodega Sur')).test;
      },
    },
  );

  /** A courier of the test's own with one cash stop on its way, and its phone signed in. */
  async function cashStop(name: string): Promise<{ context: BrowserContext; page: Page; orderId: string }> {
    const op = client(web.t.app, operator);
    const courier = (await op('POST', '/v1/couriers', { name: `Rider ${name}` })).body;
    const order = await orderIn(web.t, merchantKey, operator, courier.id, 'in_transit', {
      customer: { name, phone: '+51987654329' },
      cash_on_delivery: 60,
      requires_photo: false,
    });
    const context = await web.browser.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await signInPhone(page, web, operator, courier.id);
    await page.locator(`li.stop[data-order="${order.id}"]`).getByRole('button', { name: 'Deliver' }).waitFor();
    return { context, page, orderId: order.id };
  }

  it('knows the API’s largest amount', () => {
    expect(MAX_AMOUNT).toBe(MAX_MONEY);
  });

  it.skipIf(!hasChromium)(
    `takes "60,00" as 60, and refuses at the field what the server would refuse${skipNote}`,
    async () => {
      const { context, page, orderId } = await cashStop('Carla Rojas');
      await context.setOffline(true);
      await page.locator(`li.stop[data-order="${orderId}"]`).getByRole('button', { name: 'Deliver' }).click();
      const field = page.getByLabel('Collected');
      const confirm = page.getByRole('button', { name: 'Confirm delivery' });
      for (const [typed, says] of [
        ['sesenta', 'Type the amount in digits'],
        ['60,005', 'At most 2 decimals'],
        ['1.234,50', 'without a thousands separator'],
        ['-60', 'cannot be negative'],
        ['100000000', 'too large'],
      ]) {
        await field.fill(typed!);
        await confirm.click();
        const error = page.locator('#collected-error');
        await error.getByText(says!).waitFor();
        expect(await field.getAttribute('aria-invalid')).toBe('true');
        expect(await field.getAttribute('aria-describedby')).toBe('collected-error');
        // Still on the sheet, nothing queued.
        expect(await page.getByText('All synced').count()).toBe(1);
      }
      // Typing again clears the complaint.
      await field.fill('60,00');
      await expect.poll(() => page.locator('#collected-error').count()).toBe(0);
      expect(await field.getAttribute('aria-invalid')).toBeNull();
      await confirm.click();
      await page.getByText('1 waiting to sync').waitFor();
      await page.getByText('Deliver saved — will sync when online.').waitFor();

      await context.setOffline(false);
      await page.getByText('All synced').waitFor({ timeout: 20_000 });
      const op = client(web.t.app, operator);
      await expect.poll(async () => (await op('GET', `/v1/orders/${orderId}`)).body.status).toBe('delivered');
      const proof = (await op('GET', `/v1/orders/${orderId}/proof`)).body;
      expect(proof).toMatchObject({ collected_amount: 60, cod_status: 'collected' });
      expect(await page.getByRole('alert').count()).toBe(0);
      await context.close();
    },
    60_000,
  );

  it.skipIf(!hasChromium)(
    `a move refused at sync says so by the customer's name, and its "saved" note goes${skipNote}`,
    async () => {
      const { context, page, orderId } = await cashStop('Diego Salas');
      await context.setOffline(true);
      await page.locator(`li.stop[data-order="${orderId}"]`).getByRole('button', { name: 'Deliver' }).click();
      await page.getByLabel('Collected').fill('60.00');
      await page.getByRole('button', { name: 'Confirm delivery' }).click();
      await page.getByText('Deliver saved — will sync when online.').waitFor();
      // Meanwhile dispatch cancels the order: the delivery cannot be recorded, and that is no quiet matter.
      expect((await client(web.t.app, operator)('POST', `/v1/orders/${orderId}/cancel`, {})).status).toBe(200);

      await context.setOffline(false);
      const refusal = page.locator(`p.error-note[data-order="${orderId}"]`);
      await refusal.waitFor({ timeout: 20_000 });
      expect(await refusal.getAttribute('role')).toBe('alert');
      const text = (await refusal.textContent()) ?? '';
      expect(text).toContain('Diego Salas');
      expect(text).toContain('delivery was not recorded');
      expect(text).not.toContain(orderId);
      expect(text).not.toContain('No such order');
      await page.getByText('All synced').waitFor();
      expect(await page.getByText(/Deliver saved/).count()).toBe(0);
      await context.close();
    },
    60_000,
  );
});
