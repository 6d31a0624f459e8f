import type { Browser, Page, Route } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { hasChromium, launch, openPage, serveApp, skipNote, submitSignIn } from './browser-helpers.js';
import { client, describeEach, type Merchant, newMerchant, type TestApp, validOrder } from './helpers.js';
import { newUser } from './people-helpers.js';

/**
 * The gap between a page's first read and its stream's open. The stream starts at the moment it
 * opens (no Last-Event-ID the first time), so an order created after the board or the map read
 * their lists but before the stream subscribed comes in no event. Each page reads again once its
 * stream has opened: here the stream's first request is held until such an order exists, and the
 * order must appear without a reload (with a stream the pages never poll).
 */
describeEach('console: an order created while the page opened its stream', (engine) => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let shop: Merchant;

  beforeAll(async () => {
    if (!hasChromium) return;
    ({ t, base } = await serveApp(engine));
    shop = await newMerchant(t, 'Gap Shop');
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const order = async (name: string, i: number) => {
    const res = await client(t.app, shop.test)(
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

  /** A signed-in page whose streams' requests wait until `release` is called; `asked()` counts them. */
  async function heldStream(role: 'dispatcher' | 'merchant') {
    const user = await newUser(t, role, role === 'merchant' ? shop.accountId : undefined);
    const page: Page = await openPage(browser, { viewport: { width: 1280, height: 800 } });
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
    await submitSignIn(page, base, user.email);
    return { page, asked: () => asked, release };
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
});
