import { expect, it } from 'vitest';
import { hasChromium, openPage, planFormLoaded, skipNote, submitSignIn, useBrowserApp } from './browser-helpers.js';
import { client, describeEachInBrowser, newMerchant, newOperator, validOrder } from './helpers.js';
import { newUser } from './people-helpers.js';

// A 1024 × 768 screen: the lanes sit beside the map, about 480 px wide. The dense one-line stop
// (number, customer, arrival and load, moves) left the customer's name 8 px wide, "C" for every
// stop, until the line followed the lane's width rather than the window's.
const DAY = '2030-03-04';
const NAMES = ['Rosa Quispe Mamani', 'Carlos Mendoza Ríos'];

describeEachInBrowser('console planning on a 1024 px screen, in headless Chromium', (engine) => {
  const web = useBrowserApp(
    engine,
    { RUTA_DEFAULT_TIMEZONE: 'America/Lima' },
    {
      setup: async (t) => {
        const op = client(t.app, await newOperator(t, 'test'));
        const merchant = client(t.app, (await newMerchant(t, 'Tienda Angosta')).test);
        const depot = { name: 'Surquillo', lat: -12.1211, lng: -77.0297, timezone: 'America/Lima' };
        expect((await op('POST', '/v1/depots', depot)).status).toBe(201);
        expect((await op('POST', '/v1/couriers', { name: 'Carla Ruta' })).status).toBe(201);
        expect((await op('POST', '/v1/couriers', { name: 'Diego Ruta' })).status).toBe(201);
        for (const [i, name] of NAMES.entries()) {
          const res = await merchant(
            'POST',
            '/v1/orders',
            validOrder({
              external_order_id: `N-${i}`,
              requested_date: DAY,
              customer: { name, phone: '+51987654321' },
              delivery_address: { address: `Av. Larco ${100 + i}`, city: 'Lima', lat: -12.12 - i / 100, lng: -77.03 },
            }),
          );
          expect(res.status, JSON.stringify(res.body)).toBe(201);
        }
      },
    },
  );

  it.skipIf(!hasChromium)(`a planned stop shows its customer's whole name beside the map${skipNote}`, async () => {
    const page = await openPage(web.browser, { viewport: { width: 1024, height: 768 } });
    page.setDefaultTimeout(20_000);
    await submitSignIn(page, web.base, (await newUser(web.t, 'dispatcher')).email);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Planning' }).click();
    await planFormLoaded(page);
    await page.getByLabel('Date').fill(DAY);
    await page.getByRole('button', { name: 'Optimize' }).click();
    await page.getByRole('button', { name: /^Commit/ }).waitFor();
    // The lanes are beside the map (the two-column layout), not under it.
    const lanes = await page.locator('.plan-routes').boundingBox();
    const map = await page.getByRole('application', { name: /^Map of/ }).boundingBox();
    expect(lanes && map && lanes.x + lanes.width <= map.x).toBe(true);
    for (const name of NAMES) {
      const link = page.locator('.stops .what a', { hasText: name });
      // Every letter shown: the link is as wide as its text, not cut to a letter and an ellipsis.
      const [shown, needed] = await link.evaluate((a) => {
        const el = a as unknown as { clientWidth: number; scrollWidth: number; parentElement: { clientWidth: number } };
        return [el.parentElement.clientWidth, el.scrollWidth];
      });
      expect(shown, name).toBeGreaterThanOrEqual(needed);
    }
    await page.context().close();
  });
});
