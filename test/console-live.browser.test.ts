import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { Dispatcher } from '../src/features/webhooks/dispatcher.js';
import { POLL_MS } from '../web/src/console/poll.js';
import { hasChromium, openPage, skipNote, submitSignIn, useBrowserApp } from './browser-helpers.js';
import { client, describeEachInBrowser, type Merchant, newMerchant, newOperator, validOrder } from './helpers.js';
import { courierSession, newUser } from './people-helpers.js';
import { Receiver, waitFor } from './webhook-receiver.js';

/**
 * The console's live parts in a real browser, signed in with a password (the stream needs a
 * session: EventSource sends the cookie, never an API key): the board follows the stream in test
 * and in live mode, a merchant redelivers an event to a real receiver, and the couriers page
 * disables a courier and signs its phones out.
 */
describeEachInBrowser('console live parts in headless Chromium', (engine) => {
  let operator: string;
  let shop: Merchant;
  let rx: Receiver;
  let dispatcher: { stop(): Promise<void> } | undefined;

  const web = useBrowserApp(
    engine,
    {
      // The receiver is a local address (no DNS, no TLS in tests).
      RUTA_WEBHOOK_ALLOW_INSECURE: '1',
    },
    {
      setup: async (t) => {
        operator = await newOperator(t, 'test');
        shop = await newMerchant(t, 'Live Shop');
        rx = await new Receiver().start();
        // What `ruta serve` runs in the background: the webhook dispatcher, polling often for the test.
        dispatcher = new Dispatcher(t.ctx, { pollMs: 50 }).start();
      },
      teardown: async () => {
        await dispatcher?.stop();
        await rx?.close();
      },
    },
  );

  async function newPage(): Promise<Page> {
    return openPage(web.browser, { viewport: { width: 1280, height: 800 } });
  }

  async function signIn(page: Page, email: string) {
    await submitSignIn(page, web.base, email);
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
  }

  /** The board's stream answered (its headers arrived): from then on every commit reaches it. */
  const streamOpened = (page: Page, mode: 'test' | 'live') =>
    page.waitForResponse((r) => {
      const u = new URL(r.url());
      return u.pathname === '/v1/stream' && (u.searchParams.get('mode') ?? 'test') === mode;
    });

  it.skipIf(!hasChromium)(
    `the board shows an order created through the API within a second, in test and in live mode${skipNote}`,
    async () => {
      const page = await newPage();
      // Counts the stream's order events: each may make the board read the newest page once, as a
      // poll would, so the quiet spell below allows that many reads and no more.
      await page.addInitScript(() => {
        const w = globalThis as unknown as { EventSource: typeof EventSource; orderEvents: number };
        const Native = w.EventSource;
        w.orderEvents = 0;
        w.EventSource = class extends Native {
          constructor(url: string | URL, init?: EventSourceInit) {
            super(url, init);
            this.addEventListener('order', () => {
              w.orderEvents++;
            });
          }
        };
      });
      const orderEvents = () => page.evaluate(() => (globalThis as unknown as { orderEvents: number }).orderEvents);
      // The page's timers on a clock the test moves: the polling fallback's interval is run below
      // without waiting for it (time flows as usual otherwise).
      await page.clock.install();
      // The polling fallback reads the newest 50 orders every POLL_MS; with a stream it never runs
      // (the board reads the newest page after a stream event too, so only a quiet spell tells them
      // apart).
      const polls: string[] = [];
      page.on('request', (r) => {
        const u = new URL(r.url());
        if (u.pathname === '/v1/orders' && u.searchParams.get('limit') === '50') polls.push(u.search);
      });
      const user = await newUser(web.t, 'dispatcher');
      const m = client(web.t.app, shop.test);
      await m(
        'POST',
        '/v1/orders',
        validOrder({ external_order_id: 'LIVE-0', customer: { name: 'Rosa Quispe', phone: '+51987654321' } }),
      );
      const opened = streamOpened(page, 'test');
      // Once the stream has opened and the first page is in, the board reads the newest page once
      // (what was created between the two comes in no event): that read is not a poll.
      const gapRead = page.waitForRequest((r) => {
        const u = new URL(r.url());
        return u.pathname === '/v1/orders' && u.searchParams.get('limit') === '50';
      });
      await signIn(page, user.email);
      await page.getByRole('link', { name: 'Rosa Quispe' }).waitFor();
      expect((await opened).status()).toBe(200);
      await gapRead;
      // Four poll intervals of the page's clock, run at once: a poll timer, had one been set, fires
      // four times and asks for the page each time. Its requests would go out before the
      // sentinel's, which the page sends after them, so once the sentinel is seen every poll has
      // been. An order event arriving meanwhile (work after LIVE-0's create, e.g. its geocoding, on a
      // slow machine) reads the page too, once per event at most; and events that arrived just
      // before the spell may still have their one read due (a burst waits 250 ms and reads once).
      // So at most one read more than the spell's events; a poll timer makes four.
      const eventsBefore = await orderEvents();
      const readsBefore = polls.length;
      await page.clock.runFor(POLL_MS * 4);
      const sentinel = page.waitForRequest((r) => new URL(r.url()).pathname === '/healthz');
      await page.evaluate(() => fetch('/healthz').then((r) => r.status));
      await sentinel;
      expect(polls.length - readsBefore).toBeLessThanOrEqual((await orderEvents()) - eventsBefore + 1);

      const created = await m(
        'POST',
        '/v1/orders',
        validOrder({ external_order_id: 'LIVE-1', customer: { name: 'Carlos Mendoza', phone: '+51987654322' } }),
      );
      expect(created.status).toBe(201);
      // A bound for a broken stream, not a measurement: the polling fallback would take POLL_MS.
      await page.getByRole('link', { name: 'Carlos Mendoza' }).waitFor({ timeout: 2000 });

      // Live mode: the stream reconnects with ?mode=live and carries live orders only.
      const openedLive = streamOpened(page, 'live');
      await page.getByRole('radio', { name: 'Live' }).check();
      await page.getByText('No orders due on this day.').waitFor();
      expect((await openedLive).status()).toBe(200);
      const live = await client(web.t.app, shop.live)(
        'POST',
        '/v1/orders',
        validOrder({ external_order_id: 'LIVE-2', customer: { name: 'Lucía Live', phone: '+51987654323' } }),
      );
      expect(live.status).toBe(201);
      expect(live.body.livemode).toBe(true);
      await page.getByRole('link', { name: 'Lucía Live' }).waitFor({ timeout: 2000 });
      expect(await page.getByRole('link', { name: 'Carlos Mendoza' }).count()).toBe(0);
      await page.context().close();
    },
  );

  it.skipIf(!hasChromium)(
    `a merchant redelivers an event from the attempt log, and the receiver gets it again${skipNote}`,
    async () => {
      const merchant = await newMerchant(web.t, 'Redeliver SAC');
      const m = client(web.t.app, merchant.test);
      const ep = await m('POST', '/v1/webhook_endpoints', { url: rx.url('/redeliver'), events: ['order.created'] });
      expect(ep.status).toBe(201);
      const order = await m('POST', '/v1/orders', validOrder({ external_order_id: 'RD-1' }));
      expect(order.status).toBe(201);
      // The dispatcher delivers it once.
      const first = await waitFor(() => rx.on('/redeliver')[0] ?? false);
      const event = JSON.parse(first.body) as { id: string; data: { id: string } };
      expect(event.data.id).toBe(order.body.id);
      await waitFor(async () => {
        const log = await m('GET', `/v1/webhook_endpoints/${ep.body.id}/deliveries`);
        return log.body.data.length === 1;
      });

      const user = await newUser(web.t, 'merchant', merchant.accountId);
      const page = await newPage();
      await signIn(page, user.email);
      await page.goto(`${web.base}/console/#/webhooks/${ep.body.id}`);
      await page.getByRole('heading', { name: 'Attempt log' }).waitFor();
      const row = page.getByRole('row', { name: new RegExp(event.id) });
      await row.waitFor();
      expect(rx.on('/redeliver')).toHaveLength(1);
      await row.getByRole('button', { name: 'Redeliver' }).click();
      await expect(page.locator('p.note[role=status]').textContent()).resolves.toBe('Redelivery queued.');
      const second = await waitFor(() => rx.on('/redeliver')[1] ?? false);
      expect((JSON.parse(second.body) as { id: string }).id).toBe(event.id);
      expect(rx.on('/redeliver')).toHaveLength(2);
      // Once the attempt is recorded, the log shows both attempts of the event.
      await waitFor(async () => {
        const log = await m('GET', `/v1/webhook_endpoints/${ep.body.id}/deliveries`);
        return log.body.data.length === 2;
      });
      await page.reload();
      await page.getByRole('heading', { name: 'Attempt log' }).waitFor();
      await page
        .getByRole('row', { name: new RegExp(event.id) })
        .nth(1)
        .waitFor();
      expect(await page.getByRole('row', { name: new RegExp(event.id) }).count()).toBe(2);
      await page.context().close();
    },
  );

  it.skipIf(!hasChromium)(
    `the couriers page signs a courier's phones out, and disables and enables the courier${skipNote}`,
    async () => {
      const op = client(web.t.app, operator);
      const courier = (await op('POST', '/v1/couriers', { name: 'Nina Phone' })).body as { id: string };
      const phoneAnswers = (cookie: string) =>
        web.t.app
          .inject({ method: 'GET', url: `/v1/couriers/${courier.id}`, headers: { cookie } })
          .then((r) => r.statusCode);
      const phone = await courierSession(web.t, operator, courier.id);
      expect(await phoneAnswers(phone.cookie)).toBe(200);

      const user = await newUser(web.t, 'dispatcher');
      const page = await newPage();
      await signIn(page, user.email);
      await page.getByRole('link', { name: 'Couriers' }).click();
      const card = page.locator('li.card', { hasText: 'Nina Phone' });
      await card.getByText(`${courier.id} · active`).waitFor();
      await card.getByRole('button', { name: 'Sign out everywhere' }).click();
      await expect(card.getByRole('status').textContent()).resolves.toBe('Signed out of 1 phone session.');
      expect(await phoneAnswers(phone.cookie)).toBe(401);

      // Disabling ends the phone sessions too, and the courier cannot sign in until enabled.
      const again = await courierSession(web.t, operator, courier.id);
      expect(await phoneAnswers(again.cookie)).toBe(200);
      await card.getByRole('button', { name: 'Disable' }).click();
      await card.getByText(`${courier.id} · disabled`).waitFor();
      await expect(card.getByRole('status').textContent()).resolves.toBe('Nina Phone is disabled.');
      expect((await op('GET', `/v1/couriers/${courier.id}`)).body.status).toBe('disabled');
      expect(await phoneAnswers(again.cookie)).toBe(401);
      await card.getByRole('button', { name: 'Enable' }).click();
      await card.getByText(`${courier.id} · active`).waitFor();
      expect((await op('GET', `/v1/couriers/${courier.id}`)).body.status).toBe('active');
      await expect(card.getByRole('button', { name: 'Disable' }).isVisible()).resolves.toBe(true);
      await page.context().close();
    },
  );
});
