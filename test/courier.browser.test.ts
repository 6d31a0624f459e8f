import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { hasChromium, IMAGES, PHOTO_PNG, signInPhone, skipNote, useBrowserApp } from './browser-helpers.js';
import { client, describeEachInBrowser, newMerchant, newOperator, validOrder } from './helpers.js';

describeEachInBrowser('courier app in headless Chromium on a phone', (engine) => {
  let operator: string;
  let merchantKey: string;
  let courier: { id: string; name: string };

  const web = useBrowserApp(
    engine,
    {},
    {
      setup: async (t) => {
        operator = await newOperator(t, 'test');
        merchantKey = (await newMerchant(t, 'Acme Shoes')).test;
        courier = (await client(t.app, operator)('POST', '/v1/couriers', { name: 'Juan Pérez', phone: '+51911111111' }))
          .body;
      },
    },
  );

  async function phone(): Promise<{ context: BrowserContext; page: Page }> {
    const context = await web.browser.newContext({
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 2,
      hasTouch: true,
      permissions: ['geolocation'],
      geolocation: { latitude: -12.12, longitude: -77.03 },
    });
    const page = await context.newPage();
    page.setDefaultTimeout(20_000);
    return { context, page };
  }

  async function serviceWorkerReady(page: Page) {
    await page.evaluate('navigator.serviceWorker.ready.then(() => true)');
    // The first load is not controlled by a worker installed during it: reload once under it.
    await page.reload();
    expect(await page.evaluate('navigator.serviceWorker.controller !== null')).toBe(true);
  }

  it.skipIf(!hasChromium)(`opens with no network once loaded (service worker)${skipNote}`, async () => {
    const { context, page } = await phone();
    const res = await page.goto(`${web.base}/courier/`);
    expect(res?.status()).toBe(200);
    await page.getByLabel('Sign-in code from your dispatcher').waitFor();
    await serviceWorkerReady(page);
    await context.setOffline(true);
    await page.reload();
    await page.getByLabel('Sign-in code from your dispatcher').waitFor();
    const manifest = await page.evaluate("document.querySelector('link[rel=manifest]').getAttribute('href')");
    expect(manifest).toBe('/courier/manifest.webmanifest');
    await context.close();
  });

  it.skipIf(!hasChromium)(
    `runs a stop through a network cut: queued moves and proof sync once, in order${skipNote}`,
    async () => {
      const m = client(web.t.app, merchantKey);
      const op = client(web.t.app, operator);
      const first = (
        await m(
          'POST',
          '/v1/orders',
          validOrder({ external_order_id: 'C-1', customer: { name: 'Ana Torres', phone: '+51987654321' } }),
        )
      ).body;
      const second = (
        await m(
          'POST',
          '/v1/orders',
          validOrder({
            external_order_id: 'C-2',
            customer: { name: 'Rosa Quispe', phone: '+51987654322' },
            time_window: { start: '10:00', end: '13:00' },
          }),
        )
      ).body;
      // Stop order on purpose opposite to creation order.
      const route = await op('POST', '/v1/routes', { courier_id: courier.id, order_ids: [second.id, first.id] });
      expect(route.status).toBe(201);

      const { context, page } = await phone();
      const code = (await op('POST', `/v1/couriers/${courier.id}/sign_in_codes`, {})).body.code;
      await page.goto(`${web.base}/courier/`);
      await page.getByLabel('Sign-in code from your dispatcher').fill('WRONG123');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('alert').waitFor();
      expect(await page.getByRole('alert').textContent()).toContain('not valid or has expired');
      await page.getByLabel('Sign-in code from your dispatcher').fill(code);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: "Today's route" }).waitFor();
      const stops = page.locator('li.stop');
      await stops.nth(1).waitFor();
      expect(await stops.locator('h2').allTextContents()).toEqual(['Rosa', 'Ana']);
      // A time window is the order's zone's wall clock, and says so: the phone's own zone may differ.
      expect(second.timezone).toMatch(/\w/);
      expect(await stops.first().locator('.facts').textContent()).toContain(`10:00–13:00 (${second.timezone}) · `);
      await serviceWorkerReady(page);
      mkdirSync(IMAGES, { recursive: true });
      if (engine === 'sqlite') await page.screenshot({ path: join(IMAGES, 'courier-route.png'), fullPage: true });

      const stop = page.locator(`li.stop[data-order="${second.id}"]`);
      // The warehouse's "Ready for pickup" is not the courier's to press (issue 24).
      await stop.getByRole('button', { name: 'Picked up' }).waitFor();
      expect(await stop.getByRole('button', { name: 'Ready for pickup' }).count()).toBe(0);
      await stop.getByRole('button', { name: 'Picked up' }).click();
      await page.getByText('All synced').waitFor();
      await expect.poll(async () => (await op('GET', `/v1/orders/${second.id}`)).body.status).toBe('picked_up');

      await context.setOffline(true);
      await stop.getByRole('button', { name: 'Depart' }).click();
      await page.getByText('1 waiting to sync').waitFor();
      await stop.getByRole('button', { name: 'Deliver' }).click();
      // Confirmed before signing: the sheet says so, and the note goes once the signature is drawn.
      await page.getByRole('button', { name: 'Confirm delivery' }).click();
      const note = page.getByRole('alert');
      await note.getByText('This delivery needs a signature.').waitFor();
      const pad = page.getByRole('img', { name: /Signature area/ });
      const box = (await pad.boundingBox())!;
      await page.mouse.move(box.x + 20, box.y + 40);
      await page.mouse.down();
      await page.mouse.move(box.x + 120, box.y + 120, { steps: 8 });
      await page.mouse.move(box.x + 220, box.y + 50, { steps: 8 });
      await page.mouse.up();
      await expect.poll(() => note.count()).toBe(0);
      await page
        .locator('input[name="photos"]')
        .setInputFiles({ name: 'door.png', mimeType: 'image/png', buffer: PHOTO_PNG });
      await page.getByText('1 photo(s) ready').waitFor();
      await page.getByLabel('Collected').fill('100');
      await page.getByRole('button', { name: 'Confirm delivery' }).click();
      // depart, the signature, the photo and the deliver move.
      await page.getByText('4 waiting to sync').waitFor();
      expect((await op('GET', `/v1/orders/${second.id}`)).body.status).toBe('picked_up');

      // A reload while offline keeps both the app (service worker) and the queue (IndexedDB).
      await page.reload();
      await page.getByText('4 waiting to sync').waitFor();

      await context.setOffline(false);
      await page.getByText('All synced').waitFor({ timeout: 20_000 });
      const after = (await op('GET', `/v1/orders/${second.id}`)).body;
      expect(after.status).toBe('delivered');
      expect(after.attempts).toBe(1);
      const proof = (await op('GET', `/v1/orders/${second.id}/proof`)).body;
      expect(proof.collected_amount).toBe(100);
      expect(proof.cod_status).toBe('short');
      expect(proof.signature_url).toMatch(/^http/);
      expect(proof.photo_urls).toHaveLength(1);
      // Exactly one delivery recorded, however many times the phone tried.
      const events = (await m('GET', `/v1/events?order=${second.id}&event=order.delivered`)).body;
      expect(events.data).toHaveLength(1);
      await context.close();
    },
    60_000,
  );

  it.skipIf(!hasChromium)(
    `keeps the stops and their buttons when the map's chunk cannot load, and draws the map once back online${skipNote}`,
    async () => {
      const op = client(web.t.app, operator);
      const own = (await op('POST', '/v1/couriers', { name: 'Rosa Quispe' })).body;
      const order = (await client(web.t.app, merchantKey)('POST', '/v1/orders', validOrder())).body;
      expect((await op('POST', '/v1/routes', { courier_id: own.id, order_ids: [order.id] })).status).toBe(201);
      for (const a of ['pickup', 'depart']) expect((await op('POST', `/v1/orders/${order.id}/${a}`)).status).toBe(200);
      // No service worker: its cache would answer for the chunk, and the page's routes would not see it.
      const context = await web.browser.newContext({ viewport: { width: 390, height: 844 }, serviceWorkers: 'block' });
      const page = await context.newPage();
      page.setDefaultTimeout(20_000);
      const chunk = /\/assets\/StopsMap-[^/]*\.js$/;
      await context.route(chunk, (r) => r.abort('internetdisconnected'));
      await signInPhone(page, web, operator, own.id);
      // Before the boundary, the failed import unmounted the whole app: a blank phone.
      await page.getByRole('note').filter({ hasText: 'The map loads when the phone is back online' }).waitFor();
      const stop = page.locator(`li.stop[data-order="${order.id}"]`);
      await stop.getByRole('button', { name: 'Deliver' }).click();
      await page.getByRole('button', { name: 'Back' }).click();
      await stop.getByRole('button', { name: 'Deliver' }).waitFor();

      await context.unroute(chunk);
      await context.setOffline(true);
      await context.setOffline(false);
      await page.locator('.stops-map.leaflet-container').waitFor();
      expect(await page.getByText('The map loads when the phone is back online').count()).toBe(0);
      await context.close();
    },
    60_000,
  );

  it.skipIf(!hasChromium)(
    `sends the phone's position while on duty${skipNote}`,
    async () => {
      const { context, page } = await phone();
      await signInPhone(page, web, operator, courier.id);
      await page.getByRole('heading', { name: "Today's route" }).waitFor();
      await context.setGeolocation({ latitude: -12.0931, longitude: -77.0465 });
      await page.getByLabel('On duty').check();
      // Batched every 10 s (DESIGN §9): wait for the batch to land rather than for a fixed time.
      await expect
        .poll(async () => (await client(web.t.app, operator)('GET', `/v1/couriers/${courier.id}`)).body.location?.lat, {
          timeout: 25_000,
          interval: 1000,
        })
        .toBe(-12.0931);
      expect(await page.getByText('Location is blocked').count()).toBe(0);
      await context.close();
    },
    60_000,
  );

  it.skipIf(!hasChromium)(
    `says so when on duty with the phone's location refused: dispatch cannot see the courier${skipNote}`,
    async () => {
      const { context, page } = await phone();
      await context.clearPermissions();
      await signInPhone(page, web, operator, courier.id);
      await page.getByRole('heading', { name: "Today's route" }).waitFor();
      await page.getByLabel('On duty').check();
      const blocked = page
        .getByRole('alert')
        .filter({ hasText: 'Location is blocked: dispatch cannot see where you are' });
      await blocked.waitFor();
      // Off duty, nothing is expected of the phone's location: the warning goes.
      await page.getByLabel('On duty').uncheck();
      await blocked.waitFor({ state: 'detached' });
      await context.close();
    },
    60_000,
  );

  it.skipIf(!hasChromium)(
    `starts the route in one tap: one outbox entry per stop, each move once; done today and progress${skipNote}`,
    async () => {
      const m = client(web.t.app, merchantKey);
      const op = client(web.t.app, operator);
      // A courier of its own: the other tests' stops stay off this phone.
      const rider = (await op('POST', '/v1/couriers', { name: 'Rider Start', phone: '+51911111112' })).body;
      const names = ['Lucía Campos', 'Mario Vega', 'Elena Ríos'];
      const orders = [];
      for (const [i, name] of names.entries()) {
        const o = validOrder({
          external_order_id: `S-${i}`,
          customer: { name, phone: `+5198765000${i}` },
          delivery_address: { address: `Jr. Start ${i + 1}`, district: 'Surco', lat: -12.1 - i / 100, lng: -77.0 },
          cash_on_delivery: 0,
          requires_signature: false,
        });
        orders.push((await m('POST', '/v1/orders', o)).body);
      }
      expect(
        (await op('POST', '/v1/routes', { courier_id: rider.id, order_ids: orders.map((o) => o.id) })).status,
      ).toBe(201);

      const { context, page } = await phone();
      await signInPhone(page, web, operator, rider.id);
      await page.getByText('0 of 3 done').waitFor();
      // Each stop's status in words, never its code ("in_transit").
      const badges = () => page.locator('li.stop .status .badge:not(.loaded)').allTextContents();
      await expect.poll(badges).toEqual(['Assigned', 'Assigned', 'Assigned']);
      // The map of the day's stops, lazily loaded, one numbered pin per stop.
      await expect.poll(() => page.locator('.stops-map .stop-pin').count()).toBe(3);

      await context.setOffline(true);
      await page.getByRole('button', { name: 'Start route (3 stops)' }).click();
      await page.getByText('3 waiting to sync').waitFor();
      await page.getByText('Start route: 3 stops saved — will sync when online.').waitFor();
      expect(await page.getByRole('button', { name: /Start route/ }).count()).toBe(0);
      await context.setOffline(false);
      await page.getByText('All synced').waitFor({ timeout: 20_000 });
      // Once synced the note no longer promises a sync.
      await page.getByText('Start route: 3 stops saved.').waitFor();
      await expect.poll(badges).toEqual(['On the way', 'On the way', 'On the way']);
      for (const o of orders) {
        expect((await op('GET', `/v1/orders/${o.id}`)).body.status).toBe('in_transit');
        for (const event of ['order.picked_up', 'order.in_transit']) {
          expect((await m('GET', `/v1/events?order=${o.id}&event=${event}`)).body.data).toHaveLength(1);
        }
      }

      const stop = page.locator(`li.stop[data-order="${orders[0].id}"]`);
      await stop.getByRole('button', { name: 'Deliver' }).click();
      await page.getByRole('heading', { name: 'Deliver to Lucía Campos' }).waitFor();
      await page.getByText('Jr. Start 1, Surco').waitFor();
      // The photo field is a camera button opening the back camera.
      const camera = page.locator('label.camera', { hasText: 'Take a photo' });
      await camera.waitFor();
      expect(await camera.locator('input').getAttribute('capture')).toBe('environment');
      await camera.locator('input').setInputFiles({ name: 'door.png', mimeType: 'image/png', buffer: PHOTO_PNG });
      await page.getByText('1 photo(s) ready').waitFor();
      mkdirSync(IMAGES, { recursive: true });
      if (engine === 'sqlite') await page.screenshot({ path: join(IMAGES, 'courier-deliver.png'), fullPage: true });
      await page.getByRole('button', { name: 'Confirm delivery' }).click();
      await page.getByText('1 of 3 done').waitFor();
      await page.getByText('All synced').waitFor({ timeout: 20_000 });
      expect((await op('GET', `/v1/orders/${orders[0].id}`)).body.status).toBe('delivered');
      await page.getByText('Done today (1)').click();
      await page.locator('.done-today li', { hasText: 'Lucía Campos' }).getByText('delivered').waitFor();
      expect(await page.locator('.done-today li', { hasText: 'Lucía Campos' }).locator('.badge').textContent()).toBe(
        'Delivered',
      );
      // When, in the phone's zone, named ("09:12 AM UTC").
      expect(await page.locator('.done-today li', { hasText: 'Lucía Campos' }).locator('.muted').textContent()).toMatch(
        /^\d{1,2}:\d{2}( [AP]M)? (UTC|GMT([+-]\d{1,2}(:\d{2})?)?|[A-Z]{3,5})$/,
      );
      expect(await page.locator('li.stop').count()).toBe(2);
      // The stops left keep the numbers their route labels print (STOP 2, STOP 3), in the list and on the map.
      expect(await page.locator('li.stop').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')))).toEqual([
        'Stop 2: Mario',
        'Stop 3: Elena',
      ]);
      await expect.poll(() => page.locator('.stops-map .stop-pin').allTextContents()).toEqual(['2', '3']);
      await page.evaluate('window.scrollTo(0, 0)');
      if (engine === 'sqlite') await page.screenshot({ path: join(IMAGES, 'courier-day.png'), fullPage: true });
      await context.close();
    },
    60_000,
  );

  it.skipIf(!hasChromium)(
    `runs a courier's two routes of a day in the order they were made, each numbered as its labels${skipNote}`,
    async () => {
      const m = client(web.t.app, merchantKey);
      const op = client(web.t.app, operator);
      const waves = (await op('POST', '/v1/couriers', { name: 'Dos Olas' })).body;
      const orders = async (names: string[]) => {
        const ids: string[] = [];
        for (const [i, name] of names.entries()) {
          const o = validOrder({ customer: { name, phone: `+5198765${names.length}${i}00` } });
          ids.push((await m('POST', '/v1/orders', o)).body.id);
        }
        return ids;
      };
      // The morning wave first; the afternoon's orders come in later and go on a second route. The
      // phone reads its orders newest first: the afternoon's stops used to come first.
      const morning = await op('POST', '/v1/routes', {
        courier_id: waves.id,
        order_ids: await orders(['Marta Mañana', 'Mario Mañana']),
      });
      expect(morning.status, JSON.stringify(morning.body)).toBe(201);
      const afternoon = await op('POST', '/v1/routes', {
        courier_id: waves.id,
        order_ids: await orders(['Tania Tarde', 'Tomás Tarde']),
      });
      expect(afternoon.status, JSON.stringify(afternoon.body)).toBe(201);

      const { context, page } = await phone();
      await signInPhone(page, web, operator, waves.id);
      const stops = page.locator('li.stop');
      await stops.nth(3).waitFor();
      expect(await stops.locator('h2').allTextContents()).toEqual(['Marta', 'Mario', 'Tania', 'Tomás']);
      expect(await stops.locator('.num').allTextContents()).toEqual(['1', '2', '1', '2']);
      await context.close();
    },
  );

  it.skipIf(!hasChromium)(
    `shows every stop of a route longer than a page of orders${skipNote}`,
    async () => {
      const m = client(web.t.app, merchantKey);
      const op = client(web.t.app, operator);
      const busy = (await op('POST', '/v1/couriers', { name: 'Ciento Cinco' })).body;
      const ids: string[] = [];
      for (let i = 0; i < 105; i++) {
        const o = validOrder({ customer: { name: `Cliente ${i + 1}`, phone: `+51987${String(i).padStart(6, '0')}` } });
        ids.push((await m('POST', '/v1/orders', o)).body.id);
      }
      const route = await op('POST', '/v1/routes', { courier_id: busy.id, order_ids: ids });
      expect(route.status, JSON.stringify(route.body)).toBe(201);

      const { context, page } = await phone();
      await signInPhone(page, web, operator, busy.id);
      await page.getByRole('button', { name: 'Start route (105 stops)' }).waitFor();
      const stops = page.locator('li.stop');
      expect(await stops.count()).toBe(105);
      // The oldest orders (the route's first stops) are on the second page of the newest-first list.
      expect(await stops.first().locator('.num').textContent()).toBe('1');
      expect(await stops.last().locator('.num').textContent()).toBe('105');
      await context.close();
    },
    60_000,
  );
});
