import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { Dispatcher } from '../src/features/webhooks/dispatcher.js';
import {
  cspErrorsOf,
  hasChromium,
  IMAGES,
  openPage,
  skipNote,
  submitSignIn,
  useBrowserApp,
} from './browser-helpers.js';
import { client, describeEachInBrowser, type Merchant, newMerchant, newOperator, validOrder } from './helpers.js';
import { newUser } from './people-helpers.js';
import { Receiver, waitFor } from './webhook-receiver.js';

/**
 * Issue #9 in a real browser: the dispatcher assigns orders from the live map (clicking markers, a
 * Shift + drag box, or the list beside the map by keyboard) and the board and API see it; the
 * Exceptions page lists failed webhook deliveries and disabled endpoints of every account; a
 * merchant edits an endpoint's events and disables and enables it.
 */
/** The page's getComputedStyle, typed here (the tests compile without the DOM's types). */
type Css = { getComputedStyle(el: unknown): { backgroundColor: string } };

describeEachInBrowser('console map, exceptions and webhook events in headless Chromium', (engine) => {
  let operator: string;
  let shop: Merchant;
  let rx: Receiver;
  let dispatcher: { stop(): Promise<void> } | undefined;

  const web = useBrowserApp(
    engine,
    {
      RUTA_WEBHOOK_ALLOW_INSECURE: '1',
      RUTA_WEBHOOK_RETRY_SCHEDULE: '0.01',
    },
    {
      setup: async (t) => {
        operator = await newOperator(t, 'test');
        shop = await newMerchant(t, 'Map Shop');
        rx = await new Receiver().start();
        rx.respond = (r) => ({ status: r.path === '/gone' ? 410 : 200 });
        dispatcher = new Dispatcher(t.ctx, { pollMs: 20 }).start();
      },
      teardown: async () => {
        await dispatcher?.stop();
        await rx?.close();
      },
    },
  );

  async function newPage(width = 1280, height = 800): Promise<{ page: Page; cspErrors: string[] }> {
    const page = await openPage(web.browser, { viewport: { width, height } });
    return { page, cspErrors: cspErrorsOf(page) };
  }

  async function signIn(page: Page, role: 'admin' | 'dispatcher' | 'merchant', account?: string) {
    const user = await newUser(web.t, role, account);
    await submitSignIn(page, web.base, user.email);
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
  }

  const order = async (name: string, lat: number, lng: number, key = shop.test) => {
    const res = await client(web.t.app, key)(
      'POST',
      '/v1/orders',
      validOrder({
        external_order_id: `MAP-${name}`,
        customer: { name, phone: '+51987654321' },
        delivery_address: { address: 'Av. Larco 123', city: 'Lima', lat, lng },
      }),
    );
    expect(res.status).toBe(201);
    return res.body as { id: string; tracking_code: string };
  };
  const marker = (page: Page, id: string) => page.locator(`path[data-order="${id}"]`);

  it.skipIf(!hasChromium)(
    `assigns orders from the map by marker, box and keyboard, shows the API's refusal, and the board follows${skipNote}`,
    async () => {
      const op = client(web.t.app, operator);
      const ana = (await op('POST', '/v1/couriers', { name: 'Ana Map' })).body;
      await op('POST', `/v1/couriers/${ana.id}/location`, { lat: -12.09, lng: -77.06 });
      const beto = (await op('POST', '/v1/couriers', { name: 'Beto Box' })).body;
      // A sandbox courier of the shop (made with its test key) serves only the shop's orders.
      const sandy = (await client(web.t.app, shop.test)('POST', '/v1/couriers', { name: 'Sandy Sandbox' })).body;
      const other = await newMerchant(web.t, 'Other Shop');
      const rosa = await order('Rosa Click', -12.1, -77.01);
      const luis = await order('Luis Other', -12.12, -77.0, other.test);
      const marta = await order('Marta Box', -12.14, -77.045);
      const nico = await order('Nico Box', -12.142, -77.048);
      const kiko = await order('Kiko Keys', -12.105, -77.035);

      const { page, cspErrors } = await newPage();
      await signIn(page, 'dispatcher');
      await page.getByRole('link', { name: 'Live map' }).click();
      await marker(page, rosa.id).waitFor();
      // The courier too: its marker arriving after the orders' widens the view, which would move the
      // marker under a click already aimed at it.
      await page.locator(`path[data-courier="${ana.id}"]`).waitFor();

      // A click on a marker selects it, in the list too.
      await marker(page, rosa.id).click();
      await expect.poll(() => marker(page, rosa.id).getAttribute('data-selected')).toBe('true');
      expect(await page.getByLabel(`Select Rosa Click (${rosa.tracking_code})`).isChecked()).toBe(true);
      // The keyboard's way: the list beside the map.
      await page.getByLabel(`Select Luis Other (${luis.tracking_code})`).focus();
      await page.keyboard.press('Space');
      await expect.poll(() => marker(page, luis.id).getAttribute('data-selected')).toBe('true');
      await page.getByText('2 orders selected').waitFor();
      // The first ping of a courier not yet on the map reads the couriers again, which redraws every
      // marker (new elements): the selected ones keep their ring.
      await page.evaluate(`document.querySelector('path[data-order="${rosa.id}"]').dataset.before = '1'`);
      await op('POST', `/v1/couriers/${beto.id}/location`, { lat: -12.091, lng: -77.061 });
      await page.locator(`path[data-courier="${beto.id}"]`).waitFor();
      await expect
        .poll(() => page.evaluate(`document.querySelector('path[data-order="${rosa.id}"]')?.dataset.before ?? 'new'`))
        .toBe('new');
      expect(await marker(page, rosa.id).getAttribute('data-selected')).toBe('true');
      expect(await marker(page, luis.id).getAttribute('data-selected')).toBe('true');

      // The shop's sandbox courier: the API refuses the other shop's order, and says why.
      await page.getByLabel('Courier', { exact: true }).selectOption(sandy.id);
      await page.getByRole('button', { name: 'Assign', exact: true }).click();
      await page.getByText('Assigned 1 of 2 to Sandy Sandbox.').waitFor();
      const alert = page.getByRole('alert').filter({ hasText: 'Not assigned' });
      await expect(alert.textContent()).resolves.toContain(`${luis.tracking_code}: Invalid courier_id`);
      expect((await op('GET', `/v1/orders/${rosa.id}`)).body).toMatchObject({
        status: 'assigned',
        courier: { id: sandy.id },
      });
      expect((await op('GET', `/v1/orders/${luis.id}`)).body.status).toBe('pending');
      // The refused order stays selected; a click on a courier's marker picks that courier.
      await page.getByText('1 order selected').waitFor();
      await page.locator(`path[data-courier="${ana.id}"]`).click();
      expect(await page.getByLabel('Courier', { exact: true }).inputValue()).toBe(ana.id);
      await page.getByRole('button', { name: 'Assign', exact: true }).click();
      await page.getByText('Assigned 1 of 1 to Ana Map.').waitFor();
      expect((await op('GET', `/v1/orders/${luis.id}`)).body).toMatchObject({
        status: 'assigned',
        courier: { id: ana.id },
      });
      expect(await page.getByRole('alert').filter({ hasText: 'Not assigned' }).count()).toBe(0);

      // Shift + drag draws a box: the two orders inside it are selected, none outside.
      expect(await page.getByRole('button', { name: 'Clear selection' }).isDisabled()).toBe(true);
      // Read both markers' boxes in one go: a live update redraws the markers (new elements) at any time.
      const [b1, b2] = await waitFor(async () => {
        const found: ({ x: number; y: number; width: number; height: number } | null)[] = await page.evaluate(
          `${JSON.stringify([marta.id, nico.id])}.map((id) => {
            const r = document.querySelector('path[data-order="' + id + '"]')?.getBoundingClientRect();
            return r?.width ? { x: r.x, y: r.y, width: r.width, height: r.height } : null;
          })`,
        );
        return found.every((b) => b !== null) && (found as { x: number; y: number; width: number; height: number }[]);
      });
      const left = Math.min(b1.x, b2.x) - 12;
      const top = Math.min(b1.y, b2.y) - 12;
      const right = Math.max(b1.x + b1.width, b2.x + b2.width) + 12;
      const bottom = Math.max(b1.y + b1.height, b2.y + b2.height) + 12;
      await page.keyboard.down('Shift');
      await page.mouse.move(left, top);
      await page.mouse.down();
      await page.mouse.move(right, bottom, { steps: 6 });
      await page.mouse.up();
      await page.keyboard.up('Shift');
      await page.getByText('2 orders selected').waitFor();
      for (const id of [marta.id, nico.id]) expect(await marker(page, id).getAttribute('data-selected')).toBe('true');
      expect(await marker(page, kiko.id).getAttribute('data-selected')).toBe('false');
      await page.getByLabel('Courier', { exact: true }).selectOption(beto.id);
      await page.getByRole('button', { name: 'Assign', exact: true }).click();
      await page.getByText('Assigned 2 of 2 to Beto Box.').waitFor();
      for (const id of [marta.id, nico.id]) {
        expect((await op('GET', `/v1/orders/${id}`)).body).toMatchObject({
          status: 'assigned',
          courier: { id: beto.id },
        });
      }
      expect((await op('GET', `/v1/orders/${kiko.id}`)).body.status).toBe('pending');
      mkdirSync(IMAGES, { recursive: true });
      await page.getByLabel(`Select Kiko Keys (${kiko.tracking_code})`).check();
      if (engine === 'sqlite') await page.screenshot({ path: join(IMAGES, 'console-map-assign.png') });

      // The board shows the assignment (its status and courier) without a reload of the API's data.
      await page.getByRole('link', { name: 'Orders', exact: true }).click();
      const row = page.locator(`li.row[data-order="${rosa.id}"]`);
      await row.waitFor();
      await expect(row.locator('.courier').textContent()).resolves.toBe('Sandy Sandbox');
      await expect(row.locator('.badge').textContent()).resolves.toBe('assigned');
      expect(cspErrors).toEqual([]);
      await page.context().close();
    },
  );

  it.skipIf(!hasChromium)(
    `watches the day: a colour per route on map and board, the depot, stale couriers, progress and late stops, done stops dimmed; the order page names its route${skipNote}`,
    async () => {
      const op = client(web.t.app, operator);
      const m = client(web.t.app, shop.test);
      expect((await op('POST', '/v1/depots', { name: 'Surquillo Hub', lat: -12.11, lng: -77.02 })).status).toBe(201);
      const cruz = (await op('POST', '/v1/couriers', { name: 'Cruz Colour' })).body;
      const dora = (await op('POST', '/v1/couriers', { name: 'Dora Stale' })).body;
      // The page's clock is held 10 min ahead (the API takes no fix older than its courier): Cruz's
      // position is 6 min old there, Dora's 14 min, past the 10-min staleness.
      const now = Date.now();
      const at = (min: number) => new Date(now + min * 60_000).toISOString();
      await op('POST', `/v1/couriers/${cruz.id}/location`, { lat: -12.1, lng: -77.03, recorded_at: at(4) });
      await op('POST', `/v1/couriers/${dora.id}/location`, { lat: -12.13, lng: -77.02, recorded_at: at(-4) });
      const mk = async (name: string, lat: number, extra: Record<string, unknown> = {}) => {
        const res = await m(
          'POST',
          '/v1/orders',
          validOrder({
            external_order_id: `LIVE-${name}`,
            customer: { name, phone: '+51987654321' },
            delivery_address: { address: 'Av. Arequipa 100', city: 'Lima', lat, lng: -77.03 },
            requires_signature: false,
            cash_on_delivery: 0,
            ...extra,
          }),
        );
        expect(res.status).toBe(201);
        return res.body as { id: string };
      };
      const done = await mk('Carla Done', -12.101);
      const open = await mk('Cesar Open', -12.106);
      // Due on a day long gone: late whatever the hour the test runs.
      const late = await mk('Celia Late', -12.111, { requested_date: '2020-01-02' });
      const dario = await mk('Dario Route', -12.131);
      const route = (await op('POST', '/v1/routes', { courier_id: cruz.id, order_ids: [done.id, open.id, late.id] }))
        .body;
      expect(route.id).toMatch(/^rte_/);
      expect((await op('POST', '/v1/routes', { courier_id: dora.id, order_ids: [dario.id] })).status).toBe(201);
      for (const [move, body] of [
        ['pickup', {}],
        ['depart', {}],
        ['deliver', { receiver_name: 'Carla' }],
      ] as const) {
        expect((await op('POST', `/v1/orders/${done.id}/${move}`, body)).status).toBe(200);
      }

      const { page, cspErrors } = await newPage(1440, 900);
      await page.clock.setFixedTime(now + 10 * 60_000);
      await signIn(page, 'dispatcher');
      await page.getByRole('link', { name: 'Live map' }).click();
      const list = page.getByRole('region', { name: 'Couriers' });
      const cruzRow = list.locator(`li[data-courier="${cruz.id}"]`);
      await cruzRow.getByText('1 of 3 done').waitFor();
      await expect(cruzRow.locator('.late').textContent()).resolves.toContain('1 late');
      await cruzRow.getByText(/last seen 6 min ago/).waitFor();
      expect(await cruzRow.getAttribute('class')).toBeNull();
      const doraRow = list.locator(`li[data-courier="${dora.id}"]`);
      await doraRow.getByText(/last seen 14 min ago \(/).waitFor();
      expect(await doraRow.getAttribute('class')).toBe('stale');
      await expect.poll(() => page.locator(`path[data-courier="${dora.id}"]`).getAttribute('data-stale')).toBe('true');
      // The depot, and the delivered stop kept on the map, dimmed.
      await page.locator('.depot-pin[title="Depot Surquillo Hub"]').waitFor();
      await page.locator(`path[data-done="${done.id}"]`).waitFor();
      // The route's line is in the colour of its courier's swatch.
      const line = page.locator(`path[data-route="${route.id}"]`);
      const color = (await line.getAttribute('data-color'))!;
      expect(await line.getAttribute('stroke')).toBe(color);
      const rgb = (hex: string) => `rgb(${[1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16)).join(', ')})`;
      const swatch = (loc: ReturnType<Page['locator']>) =>
        loc
          .locator('.route-swatch')
          .first()
          .evaluate((el) => (globalThis as unknown as Css).getComputedStyle(el).backgroundColor);
      expect(await swatch(cruzRow)).toBe(rgb(color));
      mkdirSync(IMAGES, { recursive: true });
      if (engine === 'sqlite') await page.screenshot({ path: join(IMAGES, 'console-map-day.png') });

      // The board shows the same colour beside the courier's name.
      // Every day: the page's clock, 10 min ahead, may already be tomorrow where the board's day is.
      await page.getByRole('link', { name: 'Orders', exact: true }).click();
      await page.evaluate(`location.hash = '#/board?day=all'`);
      const row = page.locator(`li.row[data-order="${open.id}"]`);
      await row.waitFor();
      expect(await swatch(row)).toBe(rgb(color));

      // The order page names the route and courier (no raw ids) and speaks no API jargon.
      await row.getByRole('link', { name: 'Cesar Open' }).click();
      const details = page.getByRole('region', { name: 'Details' });
      await details.getByRole('link', { name: /^Cruz Colour's route/ }).waitFor();
      await details.getByText('stop 2 of 3').waitFor();
      expect(await details.getByRole('link', { name: 'Cruz Colour', exact: true }).getAttribute('href')).toBe(
        '#/couriers',
      );
      expect(await details.textContent()).not.toContain('rte_');
      await page.getByText("The events and their webhook deliveries are the merchant's").waitFor();
      expect(await page.locator('main').textContent()).not.toContain('Operator keys');
      expect(cspErrors).toEqual([]);
      await page.context().close();
    },
  );

  it.skipIf(!hasChromium)(
    `lists failed webhook deliveries and disabled endpoints of every account on Exceptions${skipNote}`,
    async () => {
      const other = await newMerchant(web.t, 'Quiet Shop');
      const m = client(web.t.app, shop.test);
      const ep = (await m('POST', '/v1/webhook_endpoints', { url: rx.url('/gone'), events: ['order.created'] })).body;
      const o = (await m('POST', '/v1/orders', validOrder({ external_order_id: 'EXC-1' }))).body;
      await waitFor(async () => {
        const e = await m('GET', `/v1/webhook_endpoints/${ep.id}`);
        return e.body.status === 'disabled';
      });
      await waitFor(async () => {
        const list = await client(web.t.app, operator)('GET', '/v1/webhook_deliveries?status=failed');
        return list.body.data.some((d: { endpoint: string }) => d.endpoint === ep.id);
      });

      const { page, cspErrors } = await newPage();
      await signIn(page, 'admin');
      const accountReads: string[] = [];
      page.on('request', (r) => {
        if (new URL(r.url()).pathname === '/v1/accounts') accountReads.push(r.url());
      });
      await page.getByRole('link', { name: 'Exceptions' }).click();
      const deliveries = page.getByRole('table', { name: 'Failed webhook deliveries' });
      const row = deliveries.getByRole('row').filter({ hasText: rx.url('/gone') });
      await row.waitFor();
      const text = (await row.textContent()) ?? '';
      expect(text).toContain('order.created');
      // The account by its name (its id in the cell's title).
      expect(text).toContain('Map Shop');
      expect(await row.getByRole('cell', { name: 'Map Shop' }).getAttribute('title')).toBe(shop.accountId);
      expect(text).toContain('HTTP 410');
      await row.getByRole('link', { name: o.id }).waitFor();
      const endpoints = page.getByRole('table', { name: 'Disabled webhook endpoints' });
      const epRow = endpoints.getByRole('row').filter({ hasText: ep.id });
      await expect(epRow.textContent()).resolves.toContain('the endpoint answered 410 Gone');
      await expect(epRow.textContent()).resolves.toContain('Map Shop');
      // The names and the account filter share one read of the accounts.
      expect(accountReads).toHaveLength(1);
      if (engine === 'sqlite') await page.screenshot({ path: join(IMAGES, 'console-exceptions.png'), fullPage: true });

      // Narrowed to another account: nothing of this shop.
      await page.getByLabel('Webhooks of one account').fill(other.accountId);
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.getByText('No failed deliveries.').waitFor();
      await page.getByText('No disabled endpoints.').waitFor();
      expect(cspErrors).toEqual([]);
      await page.context().close();
    },
  );

  it.skipIf(!hasChromium)(
    `lets a merchant change an endpoint's events, with the API's error shown, and disable and enable it${skipNote}`,
    async () => {
      const merchant = await newMerchant(web.t, 'Events Shop');
      const m = client(web.t.app, merchant.test);
      const ep = (await m('POST', '/v1/webhook_endpoints', { url: rx.url('/events'), events: ['*'] })).body;
      const { page, cspErrors } = await newPage(390, 844);
      await signIn(page, 'merchant', merchant.accountId);
      await page.goto(`${web.base}/console/#/webhooks/${ep.id}`);
      await page.getByRole('heading', { name: 'Events', exact: true }).waitFor();
      const all = page.getByLabel('All events (*), including ones added later');
      expect(await all.isChecked()).toBe(true);

      // None chosen: the API's 422 on `events` shows under the list, and nothing changes.
      await all.uncheck();
      await page.getByRole('button', { name: 'Save events' }).click();
      await expect(page.locator('.event-picker [role=alert]').textContent()).resolves.toMatch(/at least one event/);
      expect((await m('GET', `/v1/webhook_endpoints/${ep.id}`)).body.events).toEqual(['*']);

      await page.getByLabel('order.failed', { exact: true }).check();
      await page.getByLabel('order.delivered', { exact: true }).check();
      await page.getByRole('button', { name: 'Save events' }).click();
      await page.getByText('Events saved.').waitFor();
      expect((await m('GET', `/v1/webhook_endpoints/${ep.id}`)).body.events).toEqual([
        'order.delivered',
        'order.failed',
      ]);
      expect(await page.locator('.event-picker [role=alert]').count()).toBe(0);

      await page.getByRole('button', { name: 'Disable' }).click();
      await page.getByRole('button', { name: 'Enable' }).waitFor();
      expect((await m('GET', `/v1/webhook_endpoints/${ep.id}`)).body).toMatchObject({
        status: 'disabled',
        disabled_reason: 'manual',
      });
      await page.getByRole('button', { name: 'Enable' }).click();
      await page.getByRole('button', { name: 'Disable' }).waitFor();
      expect((await m('GET', `/v1/webhook_endpoints/${ep.id}`)).body.status).toBe('enabled');
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
      expect(cspErrors).toEqual([]);
      await page.context().close();
    },
  );
  it.skipIf(!hasChromium)(
    `names on the map are text, never markup: a courier's label and an order's tooltip${skipNote}`,
    async () => {
      const op = client(web.t.app, operator);
      const courierName = '<b>Bold</b> Rider';
      const rider = (await op('POST', '/v1/couriers', { name: courierName })).body;
      await op('POST', `/v1/couriers/${rider.id}/location`, { lat: -12.2, lng: -76.93 });
      const customer = '<img src=x onerror="window.pwned=1">Eve';
      const eve = await order(customer, -12.21, -76.96);

      const { page, cspErrors } = await newPage();
      await signIn(page, 'dispatcher');
      await page.getByRole('link', { name: 'Live map' }).click();
      // The courier's label is always shown; the order's tooltip on pointing at its marker (the
      // event itself: other tests' markers and labels may lie over it).
      await page.locator('.leaflet-tooltip', { hasText: courierName }).first().waitFor();
      await marker(page, eve.id).dispatchEvent('mouseover');
      await page.locator('.leaflet-tooltip', { hasText: customer }).first().waitFor();
      expect(await page.locator('.leaflet-tooltip b, .leaflet-tooltip img').count()).toBe(0);
      expect(await page.evaluate('window.pwned')).toBeUndefined();
      expect(cspErrors).toEqual([]);
      await page.context().close();
    },
  );
});
