import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { addDays, localDay } from '../src/shared/local-time.js';
import { hasChromium, openPage, skipNote, submitSignIn, useBrowserApp } from './browser-helpers.js';
import { client, describeEachInBrowser, type Merchant, newMerchant, newOperator, validOrder } from './helpers.js';
import { newUser } from './people-helpers.js';

const LIMA = 'America/Lima';

/**
 * Issue #18, defects 12 and 13, in the console: a carrier in Lima (RUTA_DEFAULT_TIMEZONE), its
 * dispatcher's browser set to Tokyo (14 hours ahead, so the two days differ most of the time). The
 * board's "today" is Lima's, and shows the orders requested for Lima's today; the order page says
 * the day in Lima's zone, named; a reschedule sends the picked day; a courier's shift is set in
 * its form.
 */
describeEachInBrowser('console local days in headless Chromium', (engine) => {
  let m: Merchant;
  let op: string;
  const today = () => localDay(Date.now(), LIMA);

  const web = useBrowserApp(
    engine,
    { RUTA_DEFAULT_TIMEZONE: LIMA },
    {
      setup: async (t) => {
        m = await newMerchant(t, 'Bodega Lima');
        op = await newOperator(t);
      },
    },
  );

  async function order(name: string, requested: string) {
    const res = await client(web.t.app, m.test)(
      'POST',
      '/v1/orders',
      validOrder({ customer: { name, phone: '+51987654321' }, requested_date: requested }),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body;
  }

  async function signedIn(): Promise<Page> {
    const page = await openPage(web.browser, { viewport: { width: 1280, height: 800 }, timezoneId: 'Asia/Tokyo' });
    const user = await newUser(web.t, 'dispatcher');
    await submitSignIn(page, web.base, user.email);
    await page.getByRole('heading', { name: 'Orders' }).waitFor();
    return page;
  }

  it.skipIf(!hasChromium)(`the board's today is Lima's, with Lima's orders of the day${skipNote}`, async () => {
    const day = today();
    const mine = await order('Hoy Lima', day);
    await order('Mañana Lima', addDays(day, 1));
    await order('Ayer Lima', addDays(day, -1));
    const page = await signedIn();
    expect(await page.getByLabel('Day', { exact: true }).inputValue()).toBe(day);
    const row = page.locator('.row', { hasText: 'Hoy Lima' });
    await row.waitFor();
    expect(await page.locator('.row', { hasText: 'Mañana Lima' }).count()).toBe(0);
    expect(await page.locator('.row', { hasText: 'Ayer Lima' }).count()).toBe(0);
    // The due day in the order's zone, named, without a time: it was requested as a day.
    const due = (await row.locator('.time').textContent()) ?? '';
    expect(due).toContain(`(${LIMA})`);
    expect(due).not.toMatch(/\d:\d\d/);

    // The order page says the same, and a reschedule sends the picked day, read in Lima.
    await row.getByRole('link', { name: 'Hoy Lima' }).click();
    await page.getByRole('button', { name: 'Reschedule' }).click();
    const next = addDays(day, 3);
    await page.getByLabel('New date').fill(next);
    await page.getByRole('form', { name: 'Reschedule' }).getByRole('button', { name: 'Reschedule' }).click();
    await expect
      .poll(async () => (await client(web.t.app, op)('GET', `/v1/orders/${mine.id}`)).body.requested_day, {
        timeout: 8000,
      })
      .toBe(next);
    const after = (await client(web.t.app, op)('GET', `/v1/orders/${mine.id}`)).body;
    expect(after.requested_date).toBe(`${next}T00:00:00-05:00`);
    await page.context().close();
  });

  it.skipIf(!hasChromium)(
    `sets a courier's shift, capacity, depots and constraints in its form${skipNote}`,
    async () => {
      const depot = (await client(web.t.app, op)('POST', '/v1/depots', { name: 'Surquillo', lat: -12.11, lng: -77.02 }))
        .body;
      const page = await signedIn();
      await page.getByRole('link', { name: 'Couriers' }).click();
      const form = page.getByRole('form', { name: 'New courier' });
      await form.getByLabel('Name').fill('Turno Mañana');
      await form.getByLabel('Shift starts').fill('09:00');
      await form.getByLabel('Shift ends').fill('17:30');
      await form.getByLabel('Capacity (kg)').fill('40.5');
      await form.getByLabel('Capacity (packages)').fill('25');
      await form.getByLabel('Starts at depot').selectOption(depot.id);
      // Issue #21's constraints in the same form.
      await form.getByLabel('Skills').fill('cold, Large');
      await form.getByLabel('Break from').fill('12:00');
      await form.getByLabel('Break starts by').fill('14:00');
      await form.getByLabel('Break (min)').fill('30');
      await form.getByLabel('Most stops').fill('20');
      await form.getByLabel('Route ends').selectOption('last_stop');
      await form.getByRole('button', { name: 'Add courier' }).click();
      const card = page.locator('li.card', { hasText: 'Turno Mañana' });
      await card.waitFor();
      // The sign-in code's expiry in the carrier's zone, named, not the browser's (Tokyo here).
      await card.getByRole('button', { name: 'Sign in a phone' }).click();
      await card
        .getByRole('status')
        .getByText(/valid until .+ \(America\/Lima\), single use/)
        .waitFor();
      const list = (await client(web.t.app, op)('GET', '/v1/couriers?limit=100')).body.data;
      expect(list.find((c: { name: string }) => c.name === 'Turno Mañana')).toMatchObject({
        shift_start: '09:00',
        shift_end: '17:30',
        capacity_kg: 40.5,
        capacity_packages: 25,
        start_depot: depot.id,
        end_depot: null,
        skills: ['cold', 'large'],
        break: { earliest: '12:00', latest: '14:00', duration_min: 30 },
        max_stops: 20,
        max_route_minutes: null,
        route_end: 'last_stop',
      });
      await page.context().close();
    },
  );
});
