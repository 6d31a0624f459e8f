import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { hasChromium, IMAGES, openPage, skipNote, submitSignIn, useBrowserApp } from './browser-helpers.js';
import { client, describeEachInBrowser, newMerchant, newOperator, validOrder } from './helpers.js';
import { bodyFor } from './lifecycle-helpers.js';
import { newUser } from './people-helpers.js';

/**
 * The console's Routes page: a day's routes (GET /v1/routes?date=), each courier's progress and
 * what is loaded, kept current by the stream, each opening its route page.
 */
describeEachInBrowser('the console’s routes of a day', (engine) => {
  const web = useBrowserApp(engine);

  it.skipIf(!hasChromium)(`lists a day's routes with progress and loading, live${skipNote}`, async () => {
    const op = client(web.t.app, await newOperator(web.t, 'test'));
    const shop = client(web.t.app, (await newMerchant(web.t, 'Tienda Rutas')).test);
    const tag = Math.random().toString(36).slice(2, 6);
    const day = '2031-07-01';
    const courier = async (name: string) => (await op('POST', '/v1/couriers', { name: `${name} ${tag}` })).body;
    const order = async () =>
      (await shop('POST', '/v1/orders', validOrder({ requires_signature: false, cash_on_delivery: 0 }))).body.id;
    const route = async (courierId: string, ids: string[], date?: string) => {
      const res = await op('POST', '/v1/routes', { courier_id: courierId, order_ids: ids, ...(date ? { date } : {}) });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body;
    };
    const move = async (id: string, courierId: string, actions: string[]) => {
      for (const a of actions)
        expect((await op('POST', `/v1/orders/${id}/${a}`, bodyFor(a, courierId))).status).toBe(200);
    };
    const ana = await courier('Ana');
    const beto = await courier('Beto');
    const [a1, a2, b1] = [await order(), await order(), await order()];
    const anaRoute = await route(ana.id, [a1, a2], day);
    await route(beto.id, [b1], day);
    // A route made without a date is on no day.
    await route(ana.id, [await order()]);
    expect((await op('POST', `/v1/orders/${a1}/load`)).status).toBe(200);
    await move(a1, ana.id, ['pickup', 'depart', 'deliver']);

    const page = await openPage(web.browser, { viewport: { width: 1280, height: 900 } });
    await submitSignIn(page, web.base, (await newUser(web.t, 'dispatcher')).email);
    await page.getByRole('link', { name: 'Routes', exact: true }).click();
    await page.getByRole('heading', { name: 'Routes' }).waitFor();
    await page.getByLabel('Day').fill(day);
    const table = page.getByRole('table', { name: `Routes of ${day}` });
    const row = (name: string) => table.getByRole('row', { name: new RegExp(`${name} ${tag}`) });
    await row('Ana').getByText('1 of 2 done').waitFor();
    expect(await row('Ana').textContent()).toContain('1 of 2 loaded · 1 missing');
    expect(await row('Beto').textContent()).toContain('0 of 1 done');
    expect(await table.getByRole('row', { name: new RegExp(tag) }).count()).toBe(2);

    // A delivery elsewhere reaches the page without a reload.
    await move(b1, beto.id, ['pickup', 'depart', 'deliver']);
    await row('Beto').getByText('1 of 1 done').waitFor();
    // Delivered, it left with the van: not missing, though its label was never scanned.
    expect(await row('Beto').textContent()).toContain('1 of 1 loaded');
    mkdirSync(IMAGES, { recursive: true });
    if (engine === 'sqlite') await page.screenshot({ path: join(IMAGES, 'console-routes.png') });

    await row('Ana').getByRole('link', { name: 'Open' }).click();
    await page.getByRole('heading', { name: `Route · Ana ${tag}` }).waitFor();
    expect(page.url()).toContain(`#/routes/${anaRoute.id}`);
    // Another day has none of them.
    await page.goBack();
    await page.getByLabel('Day').fill('2031-07-02');
    await page.getByText('No routes on 2031-07-02.', { exact: false }).waitFor();
    await page.context().close();
  });
});
