import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import {
  hasChromium,
  IMAGES,
  openPage,
  signInPhone,
  skipNote,
  submitSignIn,
  useBrowserApp,
} from './browser-helpers.js';
import { client, describeEachInBrowser, newOperator } from './helpers.js';
import { merchantIn, newCourier, orderWith } from './money-helpers.js';
import { newUser } from './people-helpers.js';

/**
 * Money in the browsers (issue #22): on the console a handover recorded and shown short, the short
 * day resolved on the Exceptions page (a double click sends one POST), a settlement drafted, issued, paid and exported, the report's
 * charts and a figure's orders; the merchant reads its settlement only; the courier's phone shows
 * its balance, and the last known one offline. One app and one browser per engine, five page loads.
 */
describeEachInBrowser('console money in headless Chromium', (engine) => {
  const web = useBrowserApp(engine);

  it.skipIf(!hasChromium)(
    `handover, a short day resolved, a settlement issued and exported, the report, the courier's balance${skipNote}`,
    async () => {
      const op = await newOperator(web.t);
      const m = await merchantIn(web.t, 'Bodega', 'PEN');
      const courier = await newCourier(web.t, op, 'Rosa Cash');
      const paid = await orderWith(web.t, m.test, op, courier, 10, {
        deliver: { collected_amount: 10, payment_method: 'cash' },
      });
      await orderWith(web.t, m.test, op, courier, 0, { fail: true });
      // Two customers rate their deliveries on the tracking page: 4 stars, and 5 for another shop's.
      const other = await merchantIn(web.t, 'Kiosko', 'PEN');
      const fives = await orderWith(web.t, other.test, op, await newCourier(web.t, op, 'Luis Rated'), 0, {
        deliver: {},
      });
      for (const [o, rating] of [
        [paid, 4],
        [fives, 5],
      ] as const) {
        expect((await client(web.t.app)('POST', `/track/${o.tracking_code}/feedback`, { rating })).status).toBe(200);
      }

      const page = await openPage(web.browser, { viewport: { width: 1280, height: 1000 }, acceptDownloads: true });
      const admin = await newUser(web.t, 'admin');
      await submitSignIn(page, web.base, admin.email);
      await page.getByRole('heading', { name: 'Orders' }).waitFor();
      await page.goto(`${web.base}/console/#/money`);
      await page.getByRole('heading', { name: 'Money' }).waitFor();

      // Before any handover the courier holds it all: "to hand over 10.00", not a shortfall.
      await page.getByRole('row', { name: /Rosa Cash.*to hand over\D*10[.,]00/ }).waitFor();
      // A handover short of what the day's cash deliveries asked for.
      // The day's lines (the handovers' table below names Rosa Cash too, once one is recorded).
      const row = page.getByRole('table', { name: 'Courier cash' }).getByRole('row', { name: /Rosa Cash/ });
      await row.getByLabel('Amount').fill('8');
      await row.getByLabel('Received by').fill('Caja 1');
      // A double-click records it once: the button waits for the first request.
      await row.getByRole('button', { name: 'Record handover' }).dblclick();
      // Wait for the recorded handover itself, then for the row to show the day short (2 of 10): an
      // exception now that cash was handed over.
      const handovers = async () =>
        (await client(web.t.app, op)('GET', `/v1/couriers/${courier}/cash`)).body.handovers.map((h: any) => [
          h.amount,
          h.received_by,
        ]);
      await expect.poll(handovers).toEqual([[8, 'Caja 1']]);
      await page.getByRole('row', { name: /Rosa Cash.*short\D*2[.,]00/ }).waitFor();
      // Recorded once: the form is empty again, not ready to record the same 8.00 a second time.
      expect(await row.getByLabel('Amount').inputValue()).toBe('');
      expect(await row.getByLabel('Received by').inputValue()).toBe('');

      // A settlement: drafted for the merchant, its lines, issued, paid, exported.
      const form = page.getByRole('form', { name: 'Draft a settlement' });
      await form.getByLabel('Merchant').selectOption({ label: 'Bodega' });
      await form.getByLabel('From').fill('2000-01-01');
      await form.getByLabel('To').fill('2100-12-31');
      await form.getByRole('button', { name: 'Draft settlement' }).click();
      const lines = page.getByRole('table', { name: /^Lines of Bodega/ });
      await lines.getByRole('link', { name: paid.tracking_code }).waitFor();
      expect(await lines.getByRole('row').count()).toBe(3); // head, the delivered order, the total
      const settlements = page.getByRole('table', { name: 'Settlements' });
      // Issuing is final, so it asks first; a double-click on Mark paid pays once and shows no error.
      let asked = '';
      page.once('dialog', (d) => {
        asked = d.message();
        void d.accept();
      });
      await settlements.getByRole('button', { name: 'Issue' }).click();
      await settlements.getByRole('cell', { name: 'issued' }).waitFor();
      expect(asked).toContain('Issue this settlement to Bodega?');
      await settlements.getByRole('button', { name: 'Mark paid' }).dblclick();
      await settlements.getByRole('cell', { name: 'paid' }).waitFor();
      expect(await page.locator('section[aria-labelledby="settlements-title"] [role="alert"]').count()).toBe(0);
      await page.locator('section[aria-labelledby="settlements-title"]').screenshot({
        path: join(IMAGES, 'console-settlement.png'),
      });
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        settlements.getByRole('button', { name: 'CSV' }).click(),
      ]);
      const csv = await readFile((await download.path()) as string, 'utf8');
      expect(csv).toContain(paid.tracking_code);
      const list = await client(web.t.app, m.test)('GET', '/v1/settlements');
      expect(list.body.data.map((s: any) => s.status)).toEqual(['paid']);

      // The report: charts, and a figure opens exactly the orders it counted.
      const charts = ['Volume', 'On-time rate', 'First-attempt success', 'Delivery time p50 (min)', 'Average rating'];
      for (const title of [...charts, 'Ratings']) {
        await page.getByRole('figure', { name: title }).waitFor();
      }
      await page.getByText(/3 orders/).waitFor();
      await page.getByText(/0 cancelled/).waitFor();
      await page.getByRole('img', { name: '4.5 out of 5 stars' }).waitFor();
      await page.locator('section.reports').screenshot({ path: join(IMAGES, 'console-reports.png') });
      // The export is the report on screen: in Live mode, Live's figures (none here), not test data.
      const exported = async () => {
        const [file] = await Promise.all([
          page.waitForEvent('download'),
          page.locator('section.reports').getByRole('button', { name: 'CSV' }).click(),
        ]);
        return (await readFile((await file.path()) as string, 'utf8')).trim().split('\r\n').at(-1);
      };
      expect(await exported()).toMatch(/^total [^,]*,3,/);
      await page.getByLabel('Live').check();
      await page.getByText(/0 orders/).waitFor();
      expect(await exported()).toMatch(/^total [^,]*,0,/);
      await page.getByLabel('Test').check();
      await page.getByText(/3 orders/).waitFor();
      // By merchant: each bar is named by the merchant, whole (not its last five letters).
      await page.locator('section.reports').getByLabel('By').selectOption('merchant');
      const volume = page.getByRole('figure', { name: 'Volume' });
      await volume.locator('text', { hasText: 'Bodega' }).waitFor();
      await volume.locator('text', { hasText: 'Kiosko' }).waitFor();
      await page.locator('section.reports').getByLabel('By').selectOption('day');
      await page.getByRole('link', { name: '2 customers' }).click();
      const behind = page.getByRole('table', { name: 'Orders behind the figure' });
      await behind.getByText(fives.tracking_code).waitFor();
      expect(await behind.getByRole('row').count()).toBe(3);
      await page.getByText('rated, due').waitFor();
      await page.goBack();
      await page.getByRole('link', { name: '2 delivered' }).click();
      await behind.getByText(paid.tracking_code).waitFor();
      expect(await behind.getByRole('row').count()).toBe(3);

      // The short day on the Exceptions page, resolved with a note.
      await page.goto(`${web.base}/console/#/exceptions`);
      const exceptions = page.getByRole('table', { name: 'Courier cash exceptions' });
      const short = exceptions.getByRole('row', { name: /Rosa Cash.*short/ });
      // Expected, collected, handed over and the difference, each in the currency (10 asked, 10 collected, 8 handed).
      await short.waitFor();
      const heads = await exceptions.getByRole('columnheader').allTextContents();
      const cells = await short.getByRole('cell').allTextContents();
      const cell = (name: string) => cells[heads.indexOf(name)];
      expect([cell('Expected'), cell('Collected'), cell('Handed over'), cell('Difference')]).toEqual(
        [/10\.00/, /10\.00/, /8\.00/, /^short .*2\.00/].map((n) => expect.stringMatching(n)),
      );
      for (const c of [cell('Expected'), cell('Collected'), cell('Handed over')]) expect(c).toMatch(/PEN|S\//);
      await short.getByLabel('Note').fill('Rosa paid a fuel receipt of 2.00');
      await page.locator('section[aria-labelledby="exc-cash"]').screenshot({
        path: join(IMAGES, 'console-cash-exceptions.png'),
      });
      // A double click resolves once: one POST, with an Idempotency-Key.
      const resolves: (string | undefined)[] = [];
      page.on('request', (r) => {
        if (r.method() === 'POST' && /\/v1\/cash\/exceptions\/[^/]+\/resolve$/.test(r.url())) {
          resolves.push(r.headers()['idempotency-key']);
        }
      });
      await short.getByRole('button', { name: 'Resolve' }).dblclick();
      await page.getByText('No open cash exceptions.').waitFor();
      expect(resolves).toEqual([expect.stringMatching(/^[0-9a-f-]{36}$/)]);
      expect(await page.locator('section[aria-labelledby="exc-cash"] [role="alert"]').count()).toBe(0);
      const resolved = await client(web.t.app, op)('GET', '/v1/cash/exceptions?status=resolved');
      expect(resolved.body.data.map((x: any) => [x.courier.name, x.kind, x.resolution.note])).toEqual([
        ['Rosa Cash', 'short', 'Rosa paid a fuel receipt of 2.00'],
      ]);

      // A dispatcher picks the merchant by name too (GET /v1/accounts is the carrier's, not only
      // admins'), and reads the settlement under the merchant's name, not an acct_ id.
      const desk = await openPage(web.browser, { viewport: { width: 1280, height: 900 } });
      await submitSignIn(desk, web.base, (await newUser(web.t, 'dispatcher')).email);
      await desk.getByRole('heading', { name: 'Orders' }).waitFor();
      await desk.goto(`${web.base}/console/#/money`);
      const deskForm = desk.getByRole('form', { name: 'Draft a settlement' });
      await deskForm.getByLabel('Merchant').locator('option', { hasText: 'Bodega' }).waitFor({ state: 'attached' });
      const deskList = desk.getByRole('table', { name: 'Settlements' });
      await deskList.getByRole('cell', { name: 'Bodega', exact: true }).waitFor();
      expect(await deskList.getByText(m.accountId).count()).toBe(0);
      await desk.context().close();

      // The merchant reads its settlement, and can act on none.
      const shop = await openPage(web.browser, { viewport: { width: 1280, height: 900 } });
      await submitSignIn(shop, web.base, (await newUser(web.t, 'merchant', m.accountId)).email);
      await shop.getByRole('heading', { name: 'Orders' }).waitFor();
      await shop.goto(`${web.base}/console/#/money`);
      const theirs = shop.getByRole('table', { name: 'Settlements' });
      await theirs.getByRole('cell', { name: 'paid' }).waitFor();
      expect(await shop.getByRole('form', { name: 'Draft a settlement' }).count()).toBe(0);
      expect(await theirs.getByRole('button', { name: /Issue|Mark paid|Delete/ }).count()).toBe(0);
      // Its own settlements need no Merchant column (it held the bare account id), nor its report a
      // grouping by merchant, which the API refuses it.
      expect(await theirs.getByRole('columnheader', { name: 'Merchant' }).count()).toBe(0);
      expect(await theirs.getByText(m.accountId).count()).toBe(0);
      expect(await shop.locator('section.reports').getByLabel('By').locator('option').allTextContents()).toEqual([
        'day',
        'courier',
        'district',
      ]);

      // The courier's phone: its balance (10 collected, 8 handed over), then the last known one offline.
      const phone = await openPage(web.browser, { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2 });
      await signInPhone(phone, web, op, courier);
      const mine = phone.getByRole('table', { name: 'My cash' });
      const pen = mine.getByRole('row', { name: /PEN/ });
      await pen.waitFor();
      expect(await pen.getByRole('cell').allTextContents()).toEqual(
        ['10.00', '8.00', '2.00'].map((n) => expect.stringContaining(n)),
      );
      await phone.context().setOffline(true);
      await phone.getByRole('button', { name: 'Refresh' }).click();
      await phone
        .getByRole('note')
        .filter({ hasText: /^Last known at/ })
        .waitFor();
      expect(await pen.getByRole('cell').last().textContent()).toContain('2.00');
      await phone.locator('section.cash').screenshot({ path: join(IMAGES, 'courier-cash.png') });
    },
    // Four people's pages (admin, dispatcher, merchant, courier): near 30 s on a busy machine alone.
    60_000,
  );
});
