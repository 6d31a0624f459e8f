import { expect, it } from 'vitest';
import { hasChromium, heldDay, openPage, skipNote, submitSignIn, useBrowserApp } from './browser-helpers.js';
import { client, describeEachInBrowser, newMerchant, newOperator, validOrder } from './helpers.js';
import { bodyFor } from './lifecycle-helpers.js';
import { newUser } from './people-helpers.js';

/**
 * The live map's courier list for a route finished today (issue #24): every stop delivered, the
 * courier reads "2 of 2 done", not "No route" (the map used to read routes from active orders only).
 */
describeEachInBrowser('the live map keeps a route finished today', (engine) => {
  const day = heldDay('America/Lima', '15:00');
  const web = useBrowserApp(engine, { RUTA_DEFAULT_TIMEZONE: 'America/Lima' }, { clock: day.clock });

  /** A merchant's two orders on a new courier's route for the held day, one street apart. */
  async function routeOfTwo(p: {
    merchant: string;
    courier: string;
    customers: [string, string];
    phone: string;
    street: string;
    lat: number;
    lng: number;
  }) {
    const op = client(web.t.app, await newOperator(web.t, 'test'));
    const shop = client(web.t.app, (await newMerchant(web.t, p.merchant)).test);
    const courier = (await op('POST', '/v1/couriers', { name: p.courier, shift_start: '08:00' })).body;
    const ids: string[] = [];
    for (const [i, name] of p.customers.entries()) {
      const o = validOrder({
        customer: { name, phone: `${p.phone}${i}` },
        delivery_address: { address: `${p.street} ${100 + i}`, city: 'Lima', lat: p.lat - i / 100, lng: p.lng },
        requires_signature: false,
        cash_on_delivery: 0,
      });
      ids.push((await shop('POST', '/v1/orders', o)).body.id);
    }
    const route = await op('POST', '/v1/routes', { courier_id: courier.id, order_ids: ids, date: day.date });
    expect(route.status, JSON.stringify(route.body)).toBe(201);
    return { op, shop, courier, ids, route: route.body };
  }

  it.skipIf(!hasChromium)(`shows "2 of 2 done" for a courier whose route is finished${skipNote}`, async () => {
    const { op, shop, courier, ids, route } = await routeOfTwo({
      merchant: 'Tienda Terminada',
      courier: 'Nora Lista',
      customers: ['Ana Uno', 'Beto Dos'],
      phone: '+5198700000',
      street: 'Av. Larco',
      lat: -12.12,
      lng: -77.03,
    });
    for (const id of ids) {
      for (const action of ['pickup', 'depart', 'deliver']) {
        const res = await op('POST', `/v1/orders/${id}/${action}`, bodyFor(action, courier.id));
        expect(res.status, JSON.stringify(res.body)).toBe(200);
      }
    }

    const page = await openPage(web.browser, { viewport: { width: 1440, height: 900 } });
    await page.context().clock.setSystemTime(day.now());
    await submitSignIn(page, web.base, (await newUser(web.t, 'dispatcher')).email);
    // The finished stops are on the list pages the map reads: no order is read again one by one,
    // and today's route comes in the day's list of routes, not read by its id.
    // Without the stream: an event of this file's other tests, published late, reads its order.
    await page.route('**/v1/stream**', (r) => r.abort());
    const single: string[] = [];
    page.on('request', (r) => {
      const path = new URL(r.url()).pathname;
      if (/\/v1\/orders\/ord_[^/?]+$/.test(path) || path === `/v1/routes/${route.id}`) single.push(r.url());
    });
    await page.getByRole('link', { name: 'Live map' }).click();
    const list = page.getByRole('region', { name: 'Couriers' });
    await list.locator('li', { hasText: 'Nora Lista' }).getByText('2 of 2 done').waitFor();
    // Its stops stay on the map, dimmed.
    await expect.poll(() => page.locator('path.leaflet-interactive').count()).toBeGreaterThanOrEqual(2);
    expect(single).toEqual([]);
    // Without the stream the map reads itself again every 5 s: a new order shows up.
    const later = (
      await shop(
        'POST',
        '/v1/orders',
        validOrder({ delivery_address: { address: 'Av. Larco 300', city: 'Lima', lat: -12.13, lng: -77.03 } }),
      )
    ).body;
    await page.locator(`path[data-order="${later.id}"]`).waitFor({ timeout: 15_000 });
    await page.context().close();
  });

  it.skipIf(!hasChromium)(
    `shows an open order behind more than three pages of newer finished ones${skipNote}`,
    async () => {
      const shop = client(web.t.app, (await newMerchant(web.t, 'Tienda Llena')).test);
      const old = (
        await shop(
          'POST',
          '/v1/orders',
          validOrder({ delivery_address: { address: 'Av. Arequipa 1', city: 'Lima', lat: -12.09, lng: -77.03 } }),
        )
      ).body;
      // 301 newer orders, all cancelled: the map read the newest three pages of every order, and
      // an open order behind them was not on it.
      for (let i = 0; i < 301; i++) {
        const id = (await shop('POST', '/v1/orders', validOrder())).body.id;
        expect((await shop('POST', `/v1/orders/${id}/cancel`, {})).status).toBe(200);
      }
      const page = await openPage(web.browser, { viewport: { width: 1280, height: 800 } });
      await page.context().clock.setSystemTime(day.now());
      await submitSignIn(page, web.base, (await newUser(web.t, 'dispatcher')).email);
      await page.getByRole('link', { name: 'Live map' }).click();
      await page.locator(`path[data-order="${old.id}"]`).waitFor();
      await page.context().close();
    },
  );

  it.skipIf(!hasChromium)(
    `follows order events by reading those orders, not the whole map again${skipNote}`,
    async () => {
      const { op, shop, courier, ids } = await routeOfTwo({
        merchant: 'Tienda Viva',
        courier: 'Vera Viva',
        customers: ['Ana Viva', 'Beto Vivo'],
        phone: '+5198711100',
        street: 'Av. Pardo',
        lat: -12.11,
        lng: -77.04,
      });

      const page = await openPage(web.browser, { viewport: { width: 1440, height: 900 } });
      await page.context().clock.setSystemTime(day.now());
      await submitSignIn(page, web.base, (await newUser(web.t, 'dispatcher')).email);
      // The stream's first open reads the whole map once more (what changed while it loaded), at
      // once: wait for the stream before counting. A read starts with its first pages (no cursor).
      let streamed = false;
      page.on('response', (r) => {
        if (new URL(r.url()).pathname === '/v1/stream') streamed = true;
      });
      await page.getByRole('link', { name: 'Live map' }).click();
      await expect.poll(() => streamed).toBe(true);
      const vera = page.getByRole('region', { name: 'Couriers' }).locator('li', { hasText: 'Vera Viva' });
      await vera.getByText('0 of 2 done').waitFor();
      const reads: string[] = [];
      const single: string[] = [];
      page.on('request', (r) => {
        const url = new URL(r.url());
        if (url.pathname === '/v1/orders' && !url.searchParams.has('starting_after')) reads.push(r.url());
        if (url.pathname === `/v1/orders/${ids[0]}`) single.push(r.url());
      });

      // A stop delivered: its courier's progress moves, from that order and its route alone.
      for (const action of ['pickup', 'depart', 'deliver']) {
        expect((await op('POST', `/v1/orders/${ids[0]}/${action}`, bodyFor(action, courier.id))).status).toBe(200);
      }
      await vera.getByText('1 of 2 done').waitFor();
      // A new order appears, and leaves once cancelled.
      const fresh = (
        await shop(
          'POST',
          '/v1/orders',
          validOrder({ delivery_address: { address: 'Av. Benavides 5', city: 'Lima', lat: -12.125, lng: -77.02 } }),
        )
      ).body;
      await page.locator(`path[data-order="${fresh.id}"]`).waitFor();
      expect((await shop('POST', `/v1/orders/${fresh.id}/cancel`, {})).status).toBe(200);
      await page.locator(`path[data-order="${fresh.id}"]`).waitFor({ state: 'detached' });
      expect(reads.map((u) => decodeURIComponent(u))).toEqual([]);
      expect(single.length).toBeGreaterThan(0);
      await page.context().close();
    },
  );
});
