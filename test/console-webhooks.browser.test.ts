import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { Dispatcher } from '../src/features/webhooks/dispatcher.js';
import { hasChromium, openPage, skipNote, submitSignIn, useBrowserApp } from './browser-helpers.js';
import { client, describeEachInBrowser, type Merchant, newMerchant, validOrder } from './helpers.js';
import { newUser } from './people-helpers.js';
import { Clock, Receiver, waitFor } from './webhook-receiver.js';

const LIMA = 'America/Lima';

/**
 * A merchant's webhook endpoint page in Chromium: the attempt log names each attempt's event type
 * and links its order, marks the last attempt of a delivery that gave up apart from a failure that
 * will be retried (with the retry's time in the merchant's zone, named), pages past 100 attempts
 * with the API's cursor, and "Save events" sends one PATCH for a double click.
 *
 * The dispatcher runs on a held clock: a failed attempt's retry comes only when the test moves it.
 * Three attempts per delivery (RUTA_WEBHOOK_RETRY_SCHEDULE: two retries).
 */
describeEachInBrowser('console webhook endpoint page in headless Chromium', (engine) => {
  let shop: Merchant;
  let rx: Receiver;
  let dispatcher: Dispatcher | undefined;
  const clock = new Clock();

  const web = useBrowserApp(
    engine,
    {
      RUTA_DEFAULT_TIMEZONE: LIMA,
      // The receiver is a local address (no DNS, no TLS in tests).
      RUTA_WEBHOOK_ALLOW_INSECURE: '1',
      RUTA_WEBHOOK_RETRY_SCHEDULE: '0.05,0.05',
    },
    {
      setup: async (t) => {
        shop = await newMerchant(t, 'Hooks Shop');
        rx = await new Receiver().start();
        dispatcher = new Dispatcher({ ...t.ctx, clock: clock.now }, { pollMs: 20 }).start();
      },
      teardown: async () => {
        await dispatcher?.stop();
        await rx?.close();
      },
    },
  );

  async function signedIn(): Promise<Page> {
    const page = await openPage(web.browser, {
      viewport: { width: 1280, height: 800 },
      timezoneId: 'Europe/Madrid',
      locale: 'en-US',
    });
    const user = await newUser(web.t, 'merchant', shop.accountId);
    await submitSignIn(page, web.base, user.email);
    await page.getByRole('heading', { name: 'Orders' }).waitFor();
    return page;
  }

  type Attempt = { id: string; event: string; attempt: number; next_attempt_at: string | null; gave_up: boolean };
  /** Every attempt of the endpoint, newest first, as the API pages them. */
  async function allAttempts(endpoint: string): Promise<Attempt[]> {
    const m = client(web.t.app, shop.test);
    const out: Attempt[] = [];
    for (;;) {
      const after = out.at(-1)?.id;
      const page = await m(
        'GET',
        `/v1/webhook_endpoints/${endpoint}/deliveries?limit=100${after ? `&starting_after=${after}` : ''}`,
      );
      out.push(...page.body.data);
      if (!page.body.has_more) return out;
    }
  }

  /** An instant as the console shows it to a person in Lima, the zone named (whenIn). */
  const inLima = (iso: string) =>
    `${new Date(iso).toLocaleString('en-US', { dateStyle: 'medium', timeStyle: 'short', timeZone: LIMA })} (${LIMA})`;
  /** Text with its spaces as one kind: ICU puts a narrow no-break space before AM and PM. */
  const plain = (s: string | null) => (s ?? '').replace(/\s+/g, ' ');

  it.skipIf(!hasChromium)(
    `the attempt log names events and orders, tells a retry from giving up, and pages with Show older${skipNote}`,
    async () => {
      const m = client(web.t.app, shop.test);
      const ep = (await m('POST', '/v1/webhook_endpoints', { url: rx.url('/log'), events: ['*'] })).body as {
        id: string;
      };
      // 101 test events answered 200: the oldest attempts, past the first page of 100.
      rx.respond = () => ({ status: 200 });
      for (let i = 0; i < 101; i++) {
        expect((await m('POST', `/v1/webhook_endpoints/${ep.id}/test`)).status).toBe(202);
      }
      await waitFor(async () => (await allAttempts(ep.id)).length === 101, 30_000);

      // An order whose order.created is refused three times: the delivery gives up.
      rx.respond = () => ({ status: 500, body: 'down' });
      const given = (await m('POST', '/v1/orders', validOrder({ external_order_id: 'GIVE-UP' }))).body;
      for (const n of [102, 103, 104]) {
        await waitFor(async () => (await allAttempts(ep.id)).length === n);
        clock.advance(1000);
      }
      // Another order's first attempt fails; its retry waits for a clock that no longer moves.
      const waiting = (await m('POST', '/v1/orders', validOrder({ external_order_id: 'RETRY' }))).body;
      const log = await waitFor(async () => {
        const all = await allAttempts(ep.id);
        return all.length === 105 && all[0]?.next_attempt_at ? all : false;
      });
      expect(log[0]).toMatchObject({ attempt: 1, gave_up: false });
      expect(log[1]).toMatchObject({ attempt: 3, gave_up: true, next_attempt_at: null });

      const page = await signedIn();
      await page.goto(`${web.base}/console/#/webhooks/${ep.id}`);
      const table = page.getByRole('table', { name: 'Attempt log' });
      const rows = table.locator('tbody tr');
      await expect.poll(() => rows.count()).toBe(100);

      // The retry to come: the event's type, a link to its order, and when, in Lima's time, named.
      const retry = rows.nth(0);
      expect(plain(await retry.textContent())).toContain('order.created');
      await expect(retry.getByRole('link').getAttribute('href')).resolves.toBe(`#/orders/${waiting.id}`);
      expect(plain(await retry.textContent())).toContain(
        `Next retry at ${plain(inLima(log[0]?.next_attempt_at ?? ''))}`,
      );
      expect(await retry.getByText('Gave up').count()).toBe(0);

      // The delivery that gave up, on its last attempt only; the earlier two were retried.
      const gaveUp = rows.nth(1);
      await gaveUp.getByText('Gave up — no more retries').waitFor();
      expect(await gaveUp.getAttribute('class')).toContain('gave-up');
      await expect(gaveUp.getByRole('link').getAttribute('href')).resolves.toBe(`#/orders/${given.id}`);
      for (const i of [2, 3]) {
        const text = plain(await rows.nth(i).textContent());
        expect(text).toContain('Retried');
        expect(text).not.toContain('Gave up');
        expect(text).not.toContain('Next retry');
      }
      expect(await table.getByText('Gave up — no more retries').count()).toBe(1);
      expect(await table.getByText(/Next retry at/).count()).toBe(1);

      // A test event is about no order; the rest of the log is one click away.
      const testRow = rows.nth(4);
      expect(plain(await testRow.textContent())).toContain('webhook.test');
      expect(await testRow.getByRole('link').count()).toBe(0);
      const older = page.getByRole('button', { name: 'Show older' });
      await older.click();
      await expect.poll(() => rows.count()).toBe(105);
      expect(await older.count()).toBe(0);
      const ids = await rows.evaluateAll((trs) => trs.map((tr) => tr.querySelector('td .muted')?.textContent));
      expect(ids).toEqual(log.map((a) => a.event));

      // The order's link opens its page.
      await retry.getByRole('link').click();
      await page.waitForURL(`**/#/orders/${waiting.id}`);
      await page.getByText(waiting.tracking_code).first().waitFor();
      await page.context().close();
    },
    120_000,
  );

  it.skipIf(!hasChromium)(`a double click on Save events sends one PATCH${skipNote}`, async () => {
    const m = client(web.t.app, shop.test);
    const ep = (await m('POST', '/v1/webhook_endpoints', { url: rx.url('/events'), events: ['*'] })).body as {
      id: string;
    };
    const page = await signedIn();
    await page.goto(`${web.base}/console/#/webhooks/${ep.id}`);
    await page.getByRole('heading', { name: 'Events', exact: true }).waitFor();
    await page.getByLabel('All events (*), including ones added later').uncheck();
    await page.getByLabel('order.delivered', { exact: true }).check();
    const patches = { sent: 0 };
    page.on('request', (r) => {
      if (r.method() === 'PATCH' && new URL(r.url()).pathname === `/v1/webhook_endpoints/${ep.id}`) patches.sent++;
    });
    // Two clicks in one task, before React renders the button disabled.
    await page.getByRole('button', { name: 'Save events' }).evaluate((b) => {
      const button = b as unknown as { click(): void };
      button.click();
      button.click();
    });
    await page.getByText('Events saved.').waitFor();
    expect(patches.sent).toBe(1);
    expect((await m('GET', `/v1/webhook_endpoints/${ep.id}`)).body.events).toEqual(['order.delivered']);
    await page.context().close();
  });
});
