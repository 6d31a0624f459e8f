import { expect, it } from 'vitest';
import { hasChromium, signInPhone, skipNote, submitSignIn, useBrowserApp } from './browser-helpers.js';
import { client, describeEachInBrowser, newMerchant, newOperator, validOrder } from './helpers.js';
import { eventsOf } from './lifecycle-helpers.js';
import { newUser } from './people-helpers.js';

/**
 * The courier app asks for exactly what the order's proof requires (here: the PIN and the ID
 * document, no signature or photo), offline too; a wrong PIN queued offline is refused at sync,
 * and the phone says so rather than losing it; the right one then delivers.
 */
describeEachInBrowser('courier app: the delivery PIN and ID document, offline (DESIGN §14)', (engine) => {
  const web = useBrowserApp(engine);

  it.skipIf(!hasChromium)(
    `asks for the PIN and ID, shows a wrong PIN after sync, delivers with the right one${skipNote}`,
    async () => {
      const operator = await newOperator(web.t, 'test');
      const merchant = await newMerchant(web.t, 'Licorería Sol');
      const m = client(web.t.app, merchant.test);
      const op = client(web.t.app, operator);
      const put = await m('PUT', '/v1/proof_settings', { signature: 'off', photo: 'off', pin: 'required' });
      expect(put.status).toBe(200);
      const order = (await m('POST', '/v1/orders', validOrder({ cash_on_delivery: 0, requires_id_check: true }))).body;
      const pin: string = order.delivery_pin;
      const wrong = pin === '0000' ? '1111' : '0000';
      const courier = (await op('POST', '/v1/couriers', { name: 'Juan Pérez' })).body;
      expect((await op('POST', '/v1/routes', { courier_id: courier.id, order_ids: [order.id] })).status).toBe(201);
      for (const a of ['pickup', 'depart']) expect((await op('POST', `/v1/orders/${order.id}/${a}`)).status).toBe(200);

      const context = await web.browser.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true });
      const page = await context.newPage();
      page.setDefaultTimeout(20_000);
      await signInPhone(page, web, operator, courier.id);
      const stop = page.locator(`li.stop[data-order="${order.id}"]`);
      await stop.getByRole('button', { name: 'Deliver' }).waitFor();
      // The phone never had the PIN: not in the route it keeps for offline use either.
      expect(await page.evaluate('JSON.stringify(localStorage)')).not.toContain('delivery_pin');

      await context.setOffline(true);
      await stop.getByRole('button', { name: 'Deliver' }).click();
      await page.getByLabel(/Delivery PIN/).waitFor();
      expect(await page.getByRole('img', { name: /Signature area/ }).count()).toBe(0);
      expect(await page.locator('input[name="photos"]').count()).toBe(0);
      await page.getByRole('button', { name: 'Confirm delivery' }).click();
      expect(await page.getByRole('alert').textContent()).toContain('4-digit PIN');
      await page.getByLabel(/Delivery PIN/).fill(wrong);
      await page.getByRole('button', { name: 'Confirm delivery' }).click();
      expect(await page.getByRole('alert').textContent()).toContain('ID document');
      await page.getByLabel('Type').selectOption('national_id');
      await page.getByLabel('Number').fill('45879612');
      await page.getByRole('button', { name: 'Confirm delivery' }).click();
      await page.getByText('1 waiting to sync').waitFor();

      // Back online, the phone sends by itself (the online event, else its 15 s timer).
      await context.setOffline(false);
      const refusal = page.locator('[data-code="pin_mismatch"]');
      await refusal.waitFor({ timeout: 20_000 });
      expect(await refusal.textContent()).toContain('Wrong PIN: the delivery was NOT recorded');
      expect(await refusal.textContent()).toContain('4 tries left');
      expect((await op('GET', `/v1/orders/${order.id}`)).body.status).toBe('in_transit');

      await refusal.getByRole('button', { name: 'Dismiss' }).click();
      await stop.getByRole('button', { name: 'Deliver' }).click();
      await page.getByLabel(/Delivery PIN/).fill(pin);
      await page.getByLabel('Type').selectOption('national_id');
      await page.getByLabel('Number').fill('45879612');
      await page.getByRole('button', { name: 'Confirm delivery' }).click();
      await page.getByText('All synced').waitFor();
      await expect.poll(async () => (await op('GET', `/v1/orders/${order.id}`)).body.status).toBe('delivered');
      const proof = (await m('GET', `/v1/orders/${order.id}/proof`)).body;
      expect(proof).toMatchObject({ pin: 'verified', id_document: { type: 'national_id', number: '45879612' } });
      await context.close();
    },
    60_000,
  );

  it.skipIf(!hasChromium)(
    `console: a dispatcher sees a locked PIN (never the PIN), overrides it with a reason, and the order's messages${skipNote}`,
    async () => {
      const operator = await newOperator(web.t, 'test');
      const merchant = await newMerchant(web.t, 'Farmacia Luz');
      const op = client(web.t.app, operator);
      const order = (
        await client(web.t.app, merchant.test)(
          'POST',
          '/v1/orders',
          validOrder({ cash_on_delivery: 0, requires_signature: false, requires_pin: true }),
        )
      ).body;
      const courier = (await op('POST', '/v1/couriers', { name: 'Rosa Díaz' })).body;
      for (const [a, b] of [['assign', { courier_id: courier.id }], ['pickup'], ['depart']] as const) {
        expect((await op('POST', `/v1/orders/${order.id}/${a}`, b)).status).toBe(200);
      }
      const wrong = order.delivery_pin === '0000' ? '1111' : '0000';
      for (let i = 0; i < 5; i++)
        await op('POST', `/v1/orders/${order.id}/deliver`, { receiver_name: 'Ana', pin: wrong });

      const user = await newUser(web.t, 'dispatcher');
      const context = await web.browser.newContext({ viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      page.setDefaultTimeout(20_000);
      await submitSignIn(page, web.base, user.email);
      await page.getByRole('link', { name: 'Ana Torres' }).first().waitFor();
      await page.goto(`${web.base}/console/#/orders/${order.id}`);
      const status = page.locator('.pin-status');
      await status.waitFor();
      expect(await status.getAttribute('data-state')).toBe('locked');
      // Where a merchant's user sees the PIN, the dispatcher sees only its state (the whole page's
      // text could hold any 4 digits by chance: a phone number, a price).
      expect(await status.textContent()).not.toContain(order.delivery_pin);
      expect(await status.locator('strong').count()).toBe(0);
      // The customer's messages are listed (test mode: suppressed, with the reason).
      await page.getByRole('heading', { name: 'Customer messages' }).waitFor();
      await page.getByRole('button', { name: 'Override PIN' }).click();
      await page.getByLabel("Why (kept in the order's history)").fill('DNI checked at the door');
      await page.getByRole('button', { name: 'Override', exact: true }).click();
      await page.locator('.pin-status[data-state="overridden"]').waitFor();
      const over = (await eventsOf(web.t, order.id)).find((e) => e.event === 'order.pin_overridden');
      expect(over.data).toMatchObject({ reason: 'DNI checked at the door', overridden_by: user.id });
      await context.close();
    },
    60_000,
  );
});
