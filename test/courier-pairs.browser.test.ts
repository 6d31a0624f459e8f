import { expect, it } from 'vitest';
import { hasChromium, signInPhone, skipNote, useBrowserApp } from './browser-helpers.js';
import { client, describeEachInBrowser, newMerchant, newOperator, validOrder } from './helpers.js';

/**
 * A pickup-and-delivery order on the courier's phone (DESIGN §16): its pickup is a stop of its own,
 * at its place on the route, with the pickup address and the one move that belongs there
 * ("Picked up"); the delivery stop does not offer it. Once collected, the pickup stop goes.
 */
describeEachInBrowser('courier app: a pickup-and-delivery pair', (engine) => {
  const web = useBrowserApp(engine);

  it.skipIf(!hasChromium)(
    `shows the pickup stop before the delivery, and collects there${skipNote}`,
    async () => {
      const operator = await newOperator(web.t, 'test');
      const op = client(web.t.app, operator);
      const m = client(web.t.app, (await newMerchant(web.t, 'Florería Lila')).test);
      const plain = (await m('POST', '/v1/orders', validOrder({ customer: { name: 'Rosa Díaz' } }))).body;
      const pair = (
        await m(
          'POST',
          '/v1/orders',
          validOrder({
            customer: { name: 'Ana Torres' },
            pickup_address: { address: 'Jr. Flores 45', district: 'Surco', lat: -12.14, lng: -76.99 },
          }),
        )
      ).body;
      expect(pair.pickup_address.depot).toBeNull();
      const courier = (await op('POST', '/v1/couriers', { name: 'Juan Pérez' })).body;
      const route = await op('POST', '/v1/routes', { courier_id: courier.id, order_ids: [plain.id, pair.id] });
      expect(route.status).toBe(201);

      const context = await web.browser.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true });
      const page = await context.newPage();
      page.setDefaultTimeout(20_000);
      await signInPhone(page, web, operator, courier.id);

      const stops = page.locator('li.stop');
      await page.locator(`li.stop[data-order="${pair.id}"][data-kind="pickup"]`).waitFor();
      const listed = await stops.evaluateAll((els) =>
        els.map((e) => [e.getAttribute('data-order'), e.getAttribute('data-kind'), e.getAttribute('aria-label')]),
      );
      expect(listed).toEqual([
        [plain.id, 'delivery', 'Stop 1: Rosa'],
        [pair.id, 'pickup', 'Pickup for stop 2: Ana'],
        [pair.id, 'delivery', 'Stop 2: Ana'],
      ]);
      const pickup = page.locator(`li.stop[data-order="${pair.id}"][data-kind="pickup"]`);
      const delivery = page.locator(`li.stop[data-order="${pair.id}"][data-kind="delivery"]`);
      expect(await pickup.locator('.addr').textContent()).toBe('Jr. Flores 45, Surco');
      expect(await pickup.getByRole('link', { name: 'Navigate' }).getAttribute('href')).toContain(
        encodeURIComponent('-12.14,-76.99'),
      );
      expect(await delivery.getByRole('button', { name: 'Picked up' }).count()).toBe(0);
      expect(await pickup.getByRole('button', { name: 'Deliver' }).count()).toBe(0);

      await pickup.getByRole('button', { name: 'Picked up' }).click();
      await expect.poll(async () => (await op('GET', `/v1/orders/${pair.id}`)).body.status).toBe('picked_up');
      await expect.poll(() => pickup.count()).toBe(0);
      expect(await delivery.count()).toBe(1);
      await context.close();
    },
    60_000,
  );
});
