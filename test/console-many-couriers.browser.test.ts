import { expect, it } from 'vitest';
import { hasChromium, openPage, skipNote, submitSignIn, useBrowserApp } from './browser-helpers.js';
import { client, describeEachInBrowser, newMerchant, newOperator, validOrder } from './helpers.js';
import { newUser } from './people-helpers.js';

/**
 * A carrier with more couriers than a page of the API holds (100): the console's lists that name
 * or pick a courier read every page. They stopped at the newest 100, so the longest-serving
 * couriers could not be seen, edited or assigned.
 */
describeEachInBrowser('the console with more than a page of couriers', (engine) => {
  const web = useBrowserApp(engine);

  it.skipIf(!hasChromium)(`lists and assigns the 105th courier${skipNote}`, async () => {
    const op = client(web.t.app, await newOperator(web.t, 'test'));
    for (let i = 1; i <= 105; i++) {
      const res = await op('POST', '/v1/couriers', { name: `Mensajero ${String(i).padStart(3, '0')}` });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    }
    const shop = client(web.t.app, (await newMerchant(web.t, 'Tienda Grande')).test);
    const order = (await shop('POST', '/v1/orders', validOrder())).body;

    const page = await openPage(web.browser, { viewport: { width: 1280, height: 900 } });
    await submitSignIn(page, web.base, (await newUser(web.t, 'dispatcher')).email);
    await page.getByRole('link', { name: 'Couriers' }).click();
    // The first courier made is the last of the newest-first list: on its second page.
    await page.getByRole('heading', { name: 'Mensajero 001' }).waitFor();
    expect(await page.locator('li.card h2').count()).toBe(105);

    await page.goto(`${web.base}/console/#/orders/${order.id}`);
    await page.getByRole('button', { name: 'Assign', exact: true }).click();
    const form = page.getByRole('form', { name: 'Assign' });
    const select = form.getByRole('combobox', { name: 'Courier' });
    await expect.poll(() => select.locator('option').count()).toBe(106);
    await select.selectOption({ label: 'Mensajero 001' });
    await form.getByRole('button', { name: 'Assign' }).click();
    await expect.poll(async () => (await op('GET', `/v1/orders/${order.id}`)).body.courier?.name).toBe('Mensajero 001');
    await page.context().close();
  });
});
