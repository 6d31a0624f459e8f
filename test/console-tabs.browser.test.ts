import type { BrowserContext, Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { hasChromium, skipNote, submitSignIn, useBrowserApp } from './browser-helpers.js';
import { client, describeEachInBrowser, newMerchant, newOperator, validOrder } from './helpers.js';
import { newUser } from './people-helpers.js';

/**
 * Over HTTP/1.1 (plain http, as `npm start` serves) Chromium keeps at most six connections to one
 * server for all its tabs, and each console page's live stream holds one. Before, a dispatcher's
 * sixth tab waited forever for its first request. A tab out of sight now closes its streams and,
 * back on screen, opens them again and reads its lists anew. Headless Chromium shows every page, so
 * the test hides a tab the way the browser tells a page: visibilityState and a visibilitychange.
 */
interface Counted {
  openStreams: string[];
}

async function setHidden(page: Page, hidden: boolean): Promise<void> {
  await page.evaluate((h) => {
    const d = (globalThis as unknown as { document: EventTarget & object }).document;
    Object.defineProperty(d, 'visibilityState', { configurable: true, get: () => (h ? 'hidden' : 'visible') });
    Object.defineProperty(d, 'hidden', { configurable: true, get: () => h });
    d.dispatchEvent(new Event('visibilitychange'));
  }, hidden);
}

/** Counts, in every page of `context`, the streams the page holds open (opened and not closed by the app). */
async function countStreams(context: BrowserContext): Promise<void> {
  await context.addInitScript(() => {
    const w = globalThis as unknown as Counted & { EventSource: typeof EventSource };
    const Native = w.EventSource;
    w.openStreams = [];
    w.EventSource = class extends Native {
      constructor(url: string | URL, init?: EventSourceInit) {
        super(url, init);
        w.openStreams.push(this.url);
      }
      override close() {
        w.openStreams.splice(w.openStreams.indexOf(this.url), 1);
        super.close();
      }
    };
  });
}

const openStreams = (page: Page) => page.evaluate(() => (globalThis as unknown as Counted).openStreams.length);

describeEachInBrowser('console in many tabs over HTTP/1.1', (engine) => {
  const web = useBrowserApp(engine);

  it.skipIf(!hasChromium)(
    `hidden tabs hold no stream: the ninth tab opens, and a tab back on screen shows what it missed${skipNote}`,
    async () => {
      await newOperator(web.t, 'test');
      const merchant = await newMerchant(web.t, 'Tienda Pestañas');
      const user = await newUser(web.t, 'dispatcher');
      const context = await web.browser.newContext({ viewport: { width: 1280, height: 800 } });
      await countStreams(context);
      const first = await context.newPage();
      first.setDefaultTimeout(20_000);
      await submitSignIn(first, web.base, user.email);
      await first.getByRole('heading', { name: 'Orders' }).waitFor();
      await setHidden(first, true);
      // Each page with its stream, then out of sight as the next tab opens in front of it.
      const hashes = ['#/map', '#/planning', '#/routes', '#/', '#/map', '#/planning', '#/routes'];
      for (const hash of hashes) {
        const tab = await context.newPage();
        tab.setDefaultTimeout(20_000);
        await tab.goto(`${web.base}/console/${hash}`);
        await tab.getByRole('navigation').waitFor();
        await setHidden(tab, true);
      }
      // Every hidden tab has closed what its page opened (the map, planning and routes pages load
      // after the shell, so some were hidden before their page had rendered).
      for (const tab of context.pages()) {
        await expect.poll(() => openStreams(tab)).toBe(0);
      }
      // The ninth tab: before, its page never loaded (six streams held the six connections).
      const ninth = await context.newPage();
      ninth.setDefaultTimeout(20_000);
      await ninth.goto(`${web.base}/console/`);
      await ninth.getByRole('heading', { name: 'Orders' }).waitFor();
      expect(await ninth.evaluate(() => fetch('/v1/session').then((r) => r.status))).toBe(200);
      await setHidden(ninth, true);

      // An order created while the first tab was out of sight shows once it is back, and then live.
      const mc = client(web.t.app, merchant.test);
      const missed = await mc(
        'POST',
        '/v1/orders',
        validOrder({ external_order_id: 'TABS-1', customer: { name: 'Olga Oculta', phone: '+51987654321' } }),
      );
      expect(missed.status).toBe(201);
      await setHidden(first, false);
      await first.getByText('Olga Oculta').waitFor();
      const live = await mc(
        'POST',
        '/v1/orders',
        validOrder({ external_order_id: 'TABS-2', customer: { name: 'Vera Visible', phone: '+51987654322' } }),
      );
      expect(live.status).toBe(201);
      await first.getByText('Vera Visible').waitFor();
      await context.close();
    },
    120_000,
  );

  it.skipIf(!hasChromium)(
    `a planning page following a running plan holds one stream, and shows the plan when it ends${skipNote}`,
    async () => {
      const op = client(web.t.app, await newOperator(web.t, 'test'));
      const merchant = client(web.t.app, (await newMerchant(web.t, 'Tienda Una Conexión')).test);
      const depot = await op('POST', '/v1/depots', { name: 'Barranco', lat: -12.14, lng: -77.02 });
      const courier = await op('POST', '/v1/couriers', {
        name: 'Uno Stream',
        shift_start: '08:00',
        shift_end: '20:00',
      });
      expect([depot.status, courier.status]).toEqual([201, 201]);
      const ids: string[] = [];
      for (const [i, name] of ['Ana Uno', 'Beto Uno', 'Cata Uno'].entries()) {
        const address = { address: `Av. Grau ${i + 1}`, city: 'Lima', lat: -12.13 + i * 0.004, lng: -77.025 };
        const made = await merchant(
          'POST',
          '/v1/orders',
          validOrder({ external_order_id: name, customer: { name, phone: '+51987654321' }, delivery_address: address }),
        );
        expect(made.status, JSON.stringify(made.body)).toBe(201);
        ids.push(made.body.id);
      }
      const context = await web.browser.newContext({ viewport: { width: 1280, height: 900 } });
      await countStreams(context);
      const page = await context.newPage();
      page.setDefaultTimeout(20_000);
      await submitSignIn(page, web.base, (await newUser(web.t, 'dispatcher')).email);
      await page.getByRole('heading', { name: 'Orders' }).waitFor();
      // Long enough to be watched running, and made only once signed in: a loaded machine once
      // took longer to sign in than the plan took to end. The test waits for its end below.
      const plan = await op('POST', '/v1/route_plans', {
        date: '2030-03-05',
        depot: depot.body.id,
        couriers: [{ courier_id: courier.body.id }],
        order_ids: ids,
        time_limit_ms: 10_000,
      });
      expect(plan.status, JSON.stringify(plan.body)).toBe(202);
      await page.goto(`${web.base}/console/#/planning/${plan.body.id}`);
      await page.getByRole('progressbar').waitFor();
      await expect.poll(() => openStreams(page)).toBeGreaterThan(0);
      // The page's order events and the plan's progress share one connection: before, the plan
      // follower opened a second stream, two of the six HTTP/1.1 gives all tabs.
      expect(await openStreams(page)).toBe(1);
      await page.getByRole('heading', { name: 'Proposed routes' }).waitFor({ timeout: 40_000 });
      expect(await page.getByRole('list', { name: 'Stops of Uno Stream' }).getByRole('listitem').count()).toBe(3);
      expect(await openStreams(page)).toBe(1);
      await context.close();
    },
    90_000,
  );
});
