import type { Page, Route } from 'playwright-core';
import { expect, it } from 'vitest';
import { hasChromium, openPage, signInPhone, skipNote, submitSignIn, useBrowserApp } from './browser-helpers.js';
import { client, describeEachInBrowser, type Merchant, newMerchant, newOperator, validOrder } from './helpers.js';
import { newUser } from './people-helpers.js';

/**
 * The gap between a page's first read and its stream's open. The stream starts at the moment it
 * opens (no Last-Event-ID the first time), so an order created after the board or the map read
 * their lists but before the stream subscribed comes in no event, and neither does a stop inserted
 * into a courier's route after the phone read it. Each page reads again once its stream has
 * opened: here the stream's first request is held until such a change exists, and it must appear
 * without a reload (with a stream the pages never poll).
 */
describeEachInBrowser('console and courier app: a change made while the page opened its stream', (engine) => {
  let shop: Merchant;

  const web = useBrowserApp(
    engine,
    {},
    {
      setup: async (t) => {
        shop = await newMerchant(t, 'Gap Shop');
      },
    },
  );

  const order = async (name: string, i: number) => {
    const res = await client(web.t.app, shop.test)(
      'POST',
      '/v1/orders',
      validOrder({
        external_order_id: `GAP-${name}-${i}`,
        customer: { name, phone: `+5198765431${i}` },
        delivery_address: { address: 'Av. Larco 123', city: 'Lima', lat: -12.1 - i / 100, lng: -77.03 },
      }),
    );
    expect(res.status).toBe(201);
    return res.body as { id: string };
  };

  /** The page's stream requests wait until `release` is called; `asked()` counts them. */
  async function holdStreams(page: Page) {
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let asked = 0;
    await page.route('**/v1/stream*', async (route: Route) => {
      asked++;
      await gate;
      // A page that moved on (the board left for the map) closed its stream meanwhile.
      await route.continue().catch(() => {});
    });
    return { asked: () => asked, release };
  }

  /** A console page signed in as `role`, its streams held (holdStreams). */
  async function heldStream(role: 'dispatcher' | 'merchant') {
    const user = await newUser(web.t, role, role === 'merchant' ? shop.accountId : undefined);
    const page: Page = await openPage(web.browser, { viewport: { width: 1280, height: 800 } });
    const held = await holdStreams(page);
    await submitSignIn(page, web.base, user.email);
    return { page, ...held };
  }

  const streamAnswered = (page: Page) =>
    page.waitForResponse((r) => new URL(r.url()).pathname === '/v1/stream' && r.ok());

  it.skipIf(!hasChromium)(`the board shows it${skipNote}`, async () => {
    await order('Rosa Antes', 0);
    const { page, asked, release } = await heldStream('merchant');
    await page.getByRole('link', { name: 'Rosa Antes' }).waitFor();
    await expect.poll(asked).toBe(1);
    // The board has read its list; its stream has not subscribed yet.
    await order('Gabi Hueco', 1);
    const answered = streamAnswered(page);
    release();
    await answered;
    await page.getByRole('link', { name: 'Gabi Hueco' }).waitFor({ timeout: 5000 });
    await page.context().close();
  });

  it.skipIf(!hasChromium)(`the live map shows it${skipNote}`, async () => {
    const before = await order('Mapa Antes', 2);
    const { page, asked, release } = await heldStream('dispatcher');
    // Signed in, the dispatcher is on the board (its stream asked once); the map asks again.
    await expect.poll(asked).toBe(1);
    await page.getByRole('link', { name: 'Live map' }).click();
    await page.locator(`path[data-order="${before.id}"]`).waitFor();
    await expect.poll(asked).toBe(2);
    const gap = await order('Mapa Hueco', 3);
    const answered = streamAnswered(page);
    release();
    await answered;
    await page.locator(`path[data-order="${gap.id}"]`).waitFor({ timeout: 5000 });
    await page.context().close();
  });

  it.skipIf(!hasChromium)(
    `the courier app shows a stop inserted meanwhile${skipNote}`,
    async () => {
      const mc = client(web.t.app, shop.test);
      const operator = await newOperator(web.t, 'test');
      const op = client(web.t.app, operator);
      // A whole-day shift, so the insertion is feasible whatever the hour the test runs at.
      const courier = (
        await mc('POST', '/v1/couriers', { name: 'Gabi Ruta', shift_start: '00:00', shift_end: '23:59' })
      ).body;
      expect((await mc('POST', `/v1/couriers/${courier.id}/location`, { lat: -12.1, lng: -77.03 })).status).toBe(200);
      const first = await order('Rosa Ruta', 4);
      expect((await mc('POST', '/v1/routes', { courier_id: courier.id, order_ids: [first.id] })).status).toBe(201);
      const phone = await web.browser.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true });
      const app = await phone.newPage();
      app.setDefaultTimeout(20_000);
      const { asked, release } = await holdStreams(app);
      await signInPhone(app, web, operator, courier.id);
      const stops = () =>
        app.locator('li[data-order]').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')));
      await expect.poll(stops).toEqual(['Stop 1: Rosa']);
      await expect.poll(asked).toBe(1);
      // The phone has read its route; its stream has not subscribed yet.
      const later = await order('Lucía Ruta', 5);
      const dispatched = await op('POST', `/v1/orders/${later.id}/dispatch`, { courier_id: courier.id });
      expect(dispatched.status, JSON.stringify(dispatched.body)).toBe(200);
      const answered = streamAnswered(app);
      release();
      await answered;
      // Where dispatch put it (before or after Rosa) is the insertion's business, not this test's.
      const names = async () => (await stops()).map((l) => l?.replace(/^Stop \d+: /, '')).sort();
      await expect.poll(names).toEqual(['Lucía', 'Rosa']);
      await phone.close();
    },
    60_000,
  );
});
