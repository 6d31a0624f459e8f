import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { hasChromium, openPage, skipNote, submitSignIn, useBrowserApp } from './browser-helpers.js';
import { client, describeEachInBrowser, newOperator } from './helpers.js';
import { newUser } from './people-helpers.js';

// Numbers as a Spanish keyboard types them in the set-up forms: "-12,1211", "30,5". The depot form
// read "-12,1211" with parseFloat as -12 (a depot 13 km away); the courier form sent "30,5" as
// Number's NaN, which JSON writes as null: a courier with no capacity limit. Nothing said so.
describeEachInBrowser('console set-up forms with decimal commas, in headless Chromium', (engine) => {
  let op: ReturnType<typeof client>;
  const web = useBrowserApp(
    engine,
    { RUTA_DEFAULT_TIMEZONE: 'America/Lima' },
    {
      setup: async (t) => {
        op = client(t.app, await newOperator(t, 'test'));
      },
    },
  );

  async function signIn(): Promise<Page> {
    const page = await openPage(web.browser, { viewport: { width: 1024, height: 768 } });
    page.setDefaultTimeout(20_000);
    await submitSignIn(page, web.base, (await newUser(web.t, 'admin')).email);
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
    return page;
  }

  it.skipIf(!hasChromium)(
    `a depot's coordinates and a courier's capacity typed with a decimal comma are kept, a word is refused${skipNote}`,
    async () => {
      const page = await signIn();
      // The environment's first depot: the planning page offers the form to an admin.
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Planning' }).click();
      const depotForm = page.getByRole('form', { name: 'New depot' });
      await depotForm.getByLabel('Depot name').fill('Surquillo Coma');
      await depotForm.getByLabel('Latitude').fill('-12,1211');
      await depotForm.getByLabel('Longitude').fill('-77,0297');
      await depotForm.getByRole('button').last().click();
      await expect
        .poll(async () =>
          (await op('GET', '/v1/depots')).body.data.find((d: { name: string }) => d.name === 'Surquillo Coma'),
        )
        .toMatchObject({ lat: -12.1211, lng: -77.0297 });

      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Couriers' }).click();
      const form = page.getByRole('form', { name: 'New courier' });
      // A word where a number goes: said under the field, nothing created.
      await form.getByLabel('Name').fill('Elena Sin Límite');
      await form.getByLabel('Capacity (kg)').fill('treinta');
      await form.getByRole('button', { name: 'Add courier' }).click();
      await expect.poll(() => form.getByText('Enter a number, such as 12.5.').count()).toBe(1);
      await form.getByLabel('Capacity (kg)').fill('30,5');
      await form.getByRole('button', { name: 'Add courier' }).click();
      await page.getByText('Elena Sin Límite').first().waitFor();
      const couriers = (await op('GET', '/v1/couriers')).body.data as { name: string; capacity_kg: number | null }[];
      expect(couriers.filter((c) => c.name === 'Elena Sin Límite').map((c) => c.capacity_kg)).toEqual([30.5]);
      await page.context().close();
    },
  );
});
