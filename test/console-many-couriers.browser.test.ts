import { expect, it } from 'vitest';
import { hasChromium, openPage, skipNote, submitSignIn, useBrowserApp } from './browser-helpers.js';
import { client, describeEachInBrowser, newMerchant, newOperator, validOrder } from './helpers.js';
import { newUser } from './people-helpers.js';

/**
 * A carrier with more couriers than a page of the API holds (100): the console's lists that name
 * or pick a courier read every page. They stopped at the newest 100, so the longest-serving
 * couriers could not be seen, edited or assigned.
 */
describeEachInBrowser('the console with more than a page of couriers or depots', (engine) => {
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
    await page.getByRole('link', { name: 'Couriers', exact: true }).click();
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

  it.skipIf(!hasChromium)(`offers the 101st depot to plan from and to start a courier at${skipNote}`, async () => {
    const op = client(web.t.app, await newOperator(web.t, 'test'));
    // The environment's depots are shared with the other test of this file: names of its own.
    const tag = Math.random().toString(36).slice(2, 7);
    for (let i = 1; i <= 101; i++) {
      const body = { name: `Almacén ${tag} ${String(i).padStart(3, '0')}`, lat: -12.1 - i / 1000, lng: -77.03 };
      const res = await op('POST', '/v1/depots', body);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    }
    const oldest = `Almacén ${tag} 001`;
    const page = await openPage(web.browser, { viewport: { width: 1280, height: 900 } });
    await submitSignIn(page, web.base, (await newUser(web.t, 'dispatcher')).email);
    await page.getByRole('link', { name: 'Planning', exact: true }).click();
    // The first depot made is the last of the newest-first list: on its second page.
    const depot = page.getByRole('combobox', { name: 'Depot', exact: true });
    await expect.poll(() => depot.locator('option', { hasText: oldest }).count()).toBe(1);
    await page.getByRole('link', { name: 'Couriers', exact: true }).click();
    const starts = page.getByRole('combobox', { name: 'Starts at depot' });
    await expect.poll(() => starts.locator('option', { hasText: oldest }).count()).toBe(1);
    await page.context().close();
  });
});
