import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { hasChromium, openPage, planFormLoaded, skipNote, submitSignIn, useBrowserApp } from './browser-helpers.js';
import { client, describeEachInBrowser, newMerchant, newOperator, validOrder } from './helpers.js';
import { csv, imported } from './imports-helpers.js';
import { newUser } from './people-helpers.js';

// A merchant that imports a week ahead: more than the 1 000 newest orders of a status are due on
// other days than the one a dispatcher plans, or on another day than the board's today.
const DAY = '2030-03-04';
const LATER = '2030-03-11';
const LIMA = { lat: -12.1211, lng: -77.0297 };

describeEachInBrowser('console with many orders due on later days, in headless Chromium', (engine) => {
  let merchantKey: string;
  let accountId: string;
  let today: string[];

  const web = useBrowserApp(
    engine,
    { RUTA_DEFAULT_TIMEZONE: 'America/Lima' },
    {
      setup: async (t) => {
        const op = client(t.app, await newOperator(t, 'test'));
        const m = await newMerchant(t, 'Tienda Semana');
        merchantKey = m.test;
        accountId = m.accountId;
        const merchant = client(t.app, merchantKey);
        expect((await op('POST', '/v1/depots', { name: 'Surquillo', ...LIMA, timezone: 'America/Lima' })).status).toBe(
          201,
        );
        expect((await op('POST', '/v1/couriers', { name: 'Carla Ruta' })).status).toBe(201);
        // The day's orders first, one dated and one undated (a plan takes both) ...
        today = [];
        for (const [name, extra] of [
          ['Rosa Hoy', { requested_date: DAY }],
          ['Pedro Sin Fecha', {}],
        ] as const) {
          const res = await merchant(
            'POST',
            '/v1/orders',
            validOrder({ customer: { name, phone: '+51987654321' }, ...extra }),
          );
          expect(res.status, JSON.stringify(res.body)).toBe(201);
          today.push(res.body.id);
        }
        // An order due today in Lima (the live map's day), as old as they are ...
        const lima = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Lima' }).format(new Date());
        const res = await merchant(
          'POST',
          '/v1/orders',
          validOrder({ customer: { name: 'Lucho Hoy Mismo', phone: '+51987654321' }, requested_date: lima }),
        );
        expect(res.status, JSON.stringify(res.body)).toBe(201);
        // ... then 1 001 pending orders for a week later, newer than them.
        const rows: (string | number)[][] = [['external_order_id', 'customer_name', 'address', 'requested_date']];
        for (let i = 0; i < 1001; i++) rows.push([`SEM-${i}`, `Cliente Semana ${i}`, `Calle ${i}`, LATER]);
        const imp = await imported(t, merchantKey, csv(rows));
        expect(imp.created).toBe(1001);
      },
    },
  );

  async function signIn(role: 'dispatcher' | 'merchant'): Promise<Page> {
    const page = await openPage(web.browser, { viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(20_000);
    const user = await newUser(web.t, role, role === 'merchant' ? accountId : undefined);
    await submitSignIn(page, web.base, user.email);
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
    return page;
  }

  it.skipIf(!hasChromium)(
    `planning lists the day's orders however many orders of later days are newer${skipNote}`,
    async () => {
      const page = await signIn('dispatcher');
      await page.getByRole('link', { name: 'Planning' }).click();
      await planFormLoaded(page);
      await page.getByLabel('Date').fill(DAY);
      const list = page.getByRole('list', { name: 'Orders to plan' });
      await expect
        .poll(() => page.getByRole('heading', { name: /^Orders to plan/ }).textContent())
        .toBe('Orders to plan (2)');
      await expect
        .poll(() => list.getByRole('link').allInnerTexts())
        .toEqual(expect.arrayContaining(['Rosa Hoy', 'Pedro Sin Fecha']));
      // The later day lists its own (the page reads up to 1 000 of a status a day) and the undated
      // order, which a plan of any day takes.
      await page.getByLabel('Date').fill(LATER);
      await expect
        .poll(() => page.getByRole('heading', { name: /^Orders to plan/ }).textContent())
        .toBe('Orders to plan (1001)');
      await page.context().close();
    },
  );

  it.skipIf(!hasChromium)(
    `an import's "See the orders" shows its orders, due on another day than today${skipNote}`,
    async () => {
      const imp = await imported(
        web.t,
        merchantKey,
        csv([
          ['external_order_id', 'customer_name', 'address', 'requested_date'],
          ['OTRO-1', 'Lucía Otro Día', 'Av. Brasil 1', LATER],
        ]),
      );
      expect(imp.created).toBe(1);
      for (const role of ['dispatcher', 'merchant'] as const) {
        const page = await signIn(role);
        const q = role === 'dispatcher' ? `?account=${accountId}` : '';
        await page.goto(`${web.base}/console/#/imports/${imp.id}${q}`);
        await page.getByRole('link', { name: 'See the orders' }).click();
        // The board opens on every day of the merchant's orders, the import's among them.
        await page.getByRole('link', { name: 'Lucía Otro Día' }).first().waitFor();
        expect(await page.evaluate<string>('location.hash')).toContain('day=all');
        await page.context().close();
      }
    },
  );

  it.skipIf(!hasChromium)(
    `the live map shows today's unassigned order however many orders of later days are newer${skipNote}`,
    async () => {
      const page = await signIn('dispatcher');
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Live map' }).click();
      // In the list beside the map, to select and assign (its marker is on the map with it).
      await page.getByText('Lucho Hoy Mismo').first().waitFor();
      await page.context().close();
    },
  );
});
