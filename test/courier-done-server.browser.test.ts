import type { BrowserContext, Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { hasChromium, PHOTO_PNG, signInPhone, skipNote, useBrowserApp } from './browser-helpers.js';
import { client, describeEachInBrowser, newMerchant, newOperator, validOrder } from './helpers.js';

/**
 * "N of M done" and "Done today" are the server's (GET /v1/couriers/{id}/done_today), not only what
 * this phone finished: a courier who signs in on another phone (or after clearing the browser, or
 * signing out) still sees the stops already done, and a move queued offline counts at once.
 */
describeEachInBrowser('courier app: done today from the server', (engine) => {
  const web = useBrowserApp(engine);

  async function signedIn(operator: string, courierId: string): Promise<[BrowserContext, Page]> {
    const context = await web.browser.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await signInPhone(page, web, operator, courierId);
    await page.getByRole('heading', { name: "Today's route" }).waitFor();
    return [context, page];
  }

  it.skipIf(!hasChromium)(`a second phone shows what the first one finished${skipNote}`, async () => {
    const operator = await newOperator(web.t, 'test');
    const op = client(web.t.app, operator);
    const m = client(web.t.app, (await newMerchant(web.t, 'Tienda Sol')).test);
    const courier = (await op('POST', '/v1/couriers', { name: 'Marta Díaz' })).body;
    const names = ['Lucía Campos', 'Mario Vega', 'Elena Ríos'];
    const orders = [];
    for (const [i, name] of names.entries()) {
      const body = validOrder({
        customer: { name, phone: `+5198765100${i}` },
        delivery_address: { address: `Jr. Done ${i + 1}`, district: 'Surco', lat: -12.1 - i / 100, lng: -77.0 },
        cash_on_delivery: 0,
        requires_signature: false,
      });
      orders.push((await m('POST', '/v1/orders', body)).body);
    }
    const [lucia, mario, elena] = orders;
    expect(
      (await op('POST', '/v1/routes', { courier_id: courier.id, order_ids: orders.map((o) => o.id) })).status,
    ).toBe(201);

    // The first phone starts the route and delivers Lucía.
    const [first, one] = await signedIn(operator, courier.id);
    await one.getByText('0 of 3 done').waitFor();
    await one.getByRole('button', { name: 'Start route (3 stops)' }).click();
    await one.getByText('All synced').waitFor({ timeout: 20_000 });
    await one.locator(`li.stop[data-order="${lucia.id}"]`).getByRole('button', { name: 'Deliver' }).click();
    await one
      .locator('label.camera input')
      .setInputFiles({ name: 'door.png', mimeType: 'image/png', buffer: PHOTO_PNG });
    await one.getByText('1 photo(s) ready').waitFor();
    await one.getByRole('button', { name: 'Confirm delivery' }).click();
    await one.getByText('1 of 3 done').waitFor();
    await one.getByText('All synced').waitFor({ timeout: 20_000 });
    expect((await op('GET', `/v1/orders/${lucia.id}`)).body.status).toBe('delivered');
    await first.close();
    // Dispatch records Mario's failed attempt from the office: no phone made that move.
    expect((await op('POST', `/v1/orders/${mario.id}/fail`, { reason: 'customer_absent' })).status).toBe(200);

    // A second phone, fresh (nothing in its storage), signed in with a new code.
    const [second, two] = await signedIn(operator, courier.id);
    await two.getByText('2 of 3 done').waitFor();
    expect(await two.locator('li.stop').count()).toBe(1);
    await two.getByText('Done today (2)').click();
    await two.locator('.done-today li', { hasText: 'Lucía Campos' }).getByText('delivered').waitFor();
    await two.locator('.done-today li', { hasText: 'Mario Vega' }).getByText('failed').waitFor();
    // A finished stop shows no street: the server does not send it (DESIGN §9).
    expect(await two.locator('.done-today').textContent()).not.toContain('Jr. Done');

    // Offline, the last stop fails on this phone: it counts at once, before it syncs.
    await second.setOffline(true);
    await two.locator(`li.stop[data-order="${elena.id}"]`).getByRole('button', { name: 'Failed attempt' }).click();
    await two.getByRole('button', { name: 'Record failed attempt' }).click();
    await two.getByText('1 waiting to sync').waitFor();
    await two.getByText('3 of 3 done').waitFor();
    await two.getByText('Done today (3)').waitFor();
    await second.setOffline(false);
    await two.getByText('All synced').waitFor({ timeout: 20_000 });
    expect((await op('GET', `/v1/orders/${elena.id}`)).body.status).toBe('failed');
    // Read again from the server: still three, each once.
    await two.getByRole('button', { name: 'Refresh' }).click();
    await two.getByText('3 of 3 done').waitFor();
    expect(await two.locator('.done-today li').count()).toBe(3);
    await second.close();
  });
});
