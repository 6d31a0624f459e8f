import type { BrowserContext, Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { hasChromium, openPage, signInPhone, skipNote, submitSignIn, useBrowserApp } from './browser-helpers.js';
import { client, describeEachInBrowser, newMerchant, newOperator } from './helpers.js';
import { orderIn } from './lifecycle-helpers.js';
import { newUser } from './people-helpers.js';

// Two places the phone's position must reach (issue 10): the console's live map, without a reload,
// and the public tracking page of the parcel the courier carries. The phone sends a batch every 10 s.
const FIRST = { latitude: -12.1005, longitude: -77.0301 };
const SECOND = { latitude: -12.0852, longitude: -77.0203 };
const BATCH_WAIT = { timeout: 30_000, interval: 500 };

describeEachInBrowser('a courier phone moves the console map and the tracking page', (engine) => {
  let operator: string;
  let merchantKey: string;

  const web = useBrowserApp(
    engine,
    {},
    {
      setup: async (t) => {
        operator = await newOperator(t, 'test');
        merchantKey = (await newMerchant(t, 'Acme Shoes')).test;
      },
    },
  );

  async function desk(): Promise<{ context: BrowserContext; page: Page }> {
    const page = await openPage(web.browser, { viewport: { width: 1280, height: 800 } });
    return { context: page.context(), page };
  }

  /** The live map of a dispatcher signed in with a password: updates come on the stream (SSE). */
  async function dispatcherMap(): Promise<Page> {
    const { page } = await desk();
    const user = await newUser(web.t, 'dispatcher');
    await submitSignIn(page, web.base, user.email);
    await page.getByRole('link', { name: 'Live map' }).click();
    await page.getByRole('application', { name: /Map of couriers/ }).waitFor();
    return page;
  }

  /** The live map with an operator key in the tab: no stream, so it polls. */
  async function operatorKeyMap(): Promise<Page> {
    const { page } = await desk();
    await page.goto(`${web.base}/console/`);
    await page.getByRole('button', { name: 'Use an API key instead' }).click();
    await page.getByLabel('API key (ok_… or sk_…)').fill(operator);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Orders' }).waitFor();
    await page.getByRole('link', { name: 'Live map' }).click();
    await page.getByRole('application', { name: /Map of couriers/ }).waitFor();
    return page;
  }

  /** Where a map draws the courier, read from its marker: [lat, lng], or null when not drawn. */
  async function markerAt(page: Page, courierId: string): Promise<[number, number] | null> {
    const marker = page.locator(`path[data-courier="${courierId}"]`);
    if ((await marker.count()) !== 1) return null;
    const lat = await marker.getAttribute('data-lat');
    const lng = await marker.getAttribute('data-lng');
    return lat === null || lng === null ? null : [Number(lat), Number(lng)];
  }

  /** The courier card of a tracking page, loaded afresh (the page itself refreshes every minute). */
  async function trackingCourierCard(page: Page, code: string): Promise<string> {
    const res = await page.goto(`${web.base}/track/${code}`);
    expect(res?.status()).toBe(200);
    const card = page.getByRole('region', { name: 'Courier', exact: true });
    return (await card.count()) === 0 ? '' : ((await card.textContent()) ?? '');
  }

  /** The courier of the public tracking JSON (what the page's map draws). */
  async function publicCourier(code: string): Promise<{ lat: number; lng: number } | null> {
    const res = await fetch(`${web.base}/v1/public/tracking/${code}`);
    expect(res.status).toBe(200);
    return ((await res.json()) as { courier: { lat: number; lng: number } | null }).courier;
  }

  it.skipIf(!hasChromium)(
    `shows the phone's emulated position on both kinds of console map, live, and on the tracking page${skipNote}`,
    async () => {
      const op = client(web.t.app, operator);
      const courier = (await op('POST', '/v1/couriers', { name: 'Juan Pérez', phone: '+51911111111' })).body;
      // One parcel on its way (the page shows the courier's position), one still waiting for pickup (it must not).
      const carried = await orderIn(web.t, merchantKey, operator, courier.id, 'in_transit');
      const waiting = await orderIn(web.t, merchantKey, operator, courier.id, 'assigned');
      expect((await op('GET', `/v1/orders/${carried.id}`)).body.status).toBe('in_transit');

      // Both maps are open before the phone reports anything: the courier has no marker yet.
      const maps = [await dispatcherMap(), await operatorKeyMap()];
      for (const map of maps) {
        // The two orders are drawn, so the map has loaded what it knows.
        await expect.poll(() => map.locator('path.leaflet-interactive').count()).toBeGreaterThanOrEqual(2);
        expect(await markerAt(map, courier.id)).toBeNull();
        // Set on the window now: still there at the end only if the page never reloaded.
        await map.evaluate('window.notReloaded = true');
      }

      const phone = await web.browser.newContext({
        viewport: { width: 390, height: 844 },
        deviceScaleFactor: 2,
        hasTouch: true,
        permissions: ['geolocation'],
        geolocation: FIRST,
      });
      const app = await phone.newPage();
      app.setDefaultTimeout(20_000);
      await signInPhone(app, web, operator, courier.id);
      await app.getByRole('heading', { name: "Today's route" }).waitFor();
      await app.getByLabel('On duty').check();

      for (const map of maps) {
        await expect.poll(() => markerAt(map, courier.id), BATCH_WAIT).toEqual([FIRST.latitude, FIRST.longitude]);
        // The marker is named for people too, and carries the courier's name on the map.
        expect(await map.getByRole('img', { name: 'Courier Juan Pérez' }).getAttribute('data-courier')).toBe(
          courier.id,
        );
        await map.locator('.leaflet-tooltip', { hasText: 'Juan Pérez' }).waitFor();
      }
      const drawnFirst = await maps[0]!.locator(`path[data-courier="${courier.id}"]`).getAttribute('d');

      // The public page of the parcel on its way: first name only, and the phone's position.
      const track = await (
        await web.browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2 })
      ).newPage();
      const firstCard = await trackingCourierCard(track, carried.tracking_code);
      expect(firstCard).toContain('Juan is bringing your parcel');
      expect(firstCard).not.toContain('Pérez');
      // The position is the map's (issue #20: no coordinates in the text): the page's public JSON has it.
      expect(await publicCourier(carried.tracking_code)).toMatchObject({
        lat: expect.closeTo(FIRST.latitude, 5),
        lng: expect.closeTo(FIRST.longitude, 5),
      });
      // Before pickup the page shows no courier and no position at all.
      expect(await trackingCourierCard(track, waiting.tracking_code)).toBe('');
      // biome-ignore lint/performance/useDomNodeTextContent: the point is the rendered text a customer sees
      expect(await track.locator('body').innerText()).not.toContain(FIRST.latitude.toFixed(5));

      // The phone moves again: the maps follow without a reload, and so does the page on its next load.
      await phone.setGeolocation(SECOND);
      for (const map of maps) {
        await expect.poll(() => markerAt(map, courier.id), BATCH_WAIT).toEqual([SECOND.latitude, SECOND.longitude]);
        expect(await map.evaluate('window.notReloaded')).toBe(true);
        expect(await map.locator('path[data-courier]').count()).toBe(1);
      }
      // Not only the attribute: the circle itself is drawn somewhere else.
      expect(await maps[0]!.locator(`path[data-courier="${courier.id}"]`).getAttribute('d')).not.toBe(drawnFirst);
      const secondCard = await trackingCourierCard(track, carried.tracking_code);
      expect(secondCard).toContain('Juan is bringing your parcel');
      expect(await publicCourier(carried.tracking_code)).toMatchObject({
        lat: expect.closeTo(SECOND.latitude, 5),
        lng: expect.closeTo(SECOND.longitude, 5),
      });

      await phone.close();
      for (const map of maps) await map.context().close();
      await track.context().close();
    },
    120_000,
  );
});
