import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { hasChromium, launch, openPage, serveApp, skipNote, submitSignIn } from './browser-helpers.js';
import { client, describeEachInBrowser, type Merchant, newMerchant, type TestApp, validOrder } from './helpers.js';
import { newUser } from './people-helpers.js';

/**
 * The dispatch board in a real browser (DESIGN §8, issue #9): the day filter (default today, kept
 * in the URL), counts per status from GET /v1/orders/counts that follow the stream, the server's
 * search behind the debounced box, API errors under their field, keyboard use, 360 px.
 */
describeEachInBrowser('console board in headless Chromium', (engine) => {
  let t: TestApp;
  let browser: Browser;
  let base: string;
  let a: Merchant;
  let b: Merchant;

  /** YYYY-MM-DD of the browser's day (the test's machine is the browser's). */
  const dayOf = (d: Date) =>
    `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
  const today = dayOf(new Date());
  const tomorrowDate = new Date();
  tomorrowDate.setDate(tomorrowDate.getDate() + 1);
  const tomorrow = dayOf(tomorrowDate);

  /** An app with the board's orders: due today in two accounts, and one due tomorrow at noon. */
  async function board(): Promise<{ t: TestApp; base: string; a: Merchant; b: Merchant }> {
    const app = await serveApp(engine);
    const a = await newMerchant(app.t, 'Acme');
    const b = await newMerchant(app.t, 'Bodega');
    const make = async (key: string, name: string, phone: string, over: Record<string, unknown> = {}) => {
      const res = await client(app.t.app, key)(
        'POST',
        '/v1/orders',
        validOrder({ customer: { name, phone }, ...over }),
      );
      expect(res.status).toBe(201);
      return res.body;
    };
    // Due today (no requested date: due when created), in two accounts; one due tomorrow at noon.
    await make(a.test, 'Rosa Quispe', '+51987654321');
    await make(a.test, 'Carlos Mendoza', '+51911110000');
    await make(b.test, 'Rolando Díaz', '+51922220000');
    const noon = new Date(tomorrowDate);
    noon.setHours(12, 0, 0, 0);
    await make(a.test, 'Mañana Uno', '+51933330000', { requested_date: noon.toISOString() });
    return { ...app, a, b };
  }

  beforeAll(async () => {
    if (!hasChromium) return;
    ({ t, base, a, b } = await board());
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  async function signedIn(width = 1280, on: { t: TestApp; base: string } = { t, base }): Promise<Page> {
    const page = await openPage(browser, { viewport: { width, height: 800 } });
    const user = await newUser(on.t, 'dispatcher');
    await submitSignIn(page, on.base, user.email);
    await page.getByRole('heading', { name: 'Orders' }).waitFor();
    return page;
  }
  const names = async (page: Page) => (await page.locator('.row .main a').allTextContents()).sort();
  const count = (page: Page, status: string) => page.locator(`.counts b[data-count="${status}"]`).textContent();
  /** Waits until the list shows exactly `expected` (the server answers after the debounce). */
  async function waitNames(page: Page, expected: string[]) {
    await expect.poll(() => names(page), { timeout: 15_000 }).toEqual([...expected].sort());
  }

  it.skipIf(!hasChromium)(
    `filters by day (today by default, kept in the URL) and by an account picked by name, with the server's counts; a pasted address applies${skipNote}`,
    async () => {
      // Its own board: the exact counts are the point, and another test adds orders to the shared one.
      const own = await board();
      const page = await signedIn(1280, own);
      await waitNames(page, ['Carlos Mendoza', 'Rolando Díaz', 'Rosa Quispe']);
      expect(page.url()).toContain(`day=${today}`);
      expect(await page.getByLabel('Day', { exact: true }).inputValue()).toBe(today);
      await expect.poll(() => count(page, 'total')).toBe('3');
      expect(await count(page, 'pending')).toBe('3');

      await page.getByLabel('Day', { exact: true }).fill(tomorrow);
      await waitNames(page, ['Mañana Uno']);
      await expect.poll(() => count(page, 'total')).toBe('1');
      expect(page.url()).toContain(`day=${tomorrow}`);
      // A reload (or a shared link) shows the same board.
      await page.reload();
      await waitNames(page, ['Mañana Uno']);
      expect(await page.getByLabel('Day', { exact: true }).inputValue()).toBe(tomorrow);

      // Created tomorrow: nothing yet.
      await page.getByLabel('Date', { exact: true }).selectOption('created');
      await expect.poll(() => count(page, 'total')).toBe('0');
      await page.getByText('No orders created on this day.').waitFor();
      await page.getByLabel('Date', { exact: true }).selectOption('due');
      await page.getByRole('button', { name: 'All days' }).click();
      await waitNames(page, ['Carlos Mendoza', 'Mañana Uno', 'Rolando Díaz', 'Rosa Quispe']);
      await expect.poll(() => count(page, 'total')).toBe('4');
      expect(page.url()).toContain('day=all');

      // The account filter is picked by name (the carrier's readable list), not typed as acct_….
      const account = page.getByLabel('Account', { exact: true });
      expect(
        await page.locator('#f-account-list option').evaluateAll((os) => os.map((o) => o.getAttribute('value'))),
      ).toEqual(expect.arrayContaining(['Acme', 'Bodega']));
      await account.fill('Bodega');
      await waitNames(page, ['Rolando Díaz']);
      expect(page.url()).toContain(`account=${own.b.accountId}`);
      // A shared address pasted into the same tab changes the list, not just the address bar.
      await page.evaluate(`location.hash = '#/board?day=${tomorrow}'`);
      await waitNames(page, ['Mañana Uno']);
      expect(await page.getByLabel('Day', { exact: true }).inputValue()).toBe(tomorrow);
      expect(await account.inputValue()).toBe('');
      await page.evaluate(`location.hash = '#/board?day=all&account=${own.a.accountId}'`);
      await waitNames(page, ['Carlos Mendoza', 'Mañana Uno', 'Rosa Quispe']);
      expect(await account.inputValue()).toBe('Acme');
      await page.context().close();
      await own.t.close();
    },
  );

  it.skipIf(!hasChromium)(
    `an account name typed before the list arrives is picked once it does${skipNote}`,
    async () => {
      const page = await signedIn();
      // The picker's GET /v1/accounts held back, as on a slow network, while the dispatcher types.
      let release = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      await page.route(/\/v1\/accounts(\?|$)/, async (route) => {
        await held;
        await route.continue();
      });
      await page.evaluate(`location.hash = '#/imports'`);
      const field = page.getByLabel('Merchant account');
      await field.fill('Bodega');
      release();
      await page.locator('#import-account-list option[value="Bodega"]').waitFor({ state: 'attached' });
      expect(await field.inputValue()).toBe('Bodega');
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByLabel('Spreadsheet (.csv or .xlsx) *').waitFor();
      expect(page.url()).toContain(`account=${b.accountId}`);
      await page.context().close();
    },
  );

  it.skipIf(!hasChromium)(
    `searches on the server and keeps list and counts live while filtered${skipNote}`,
    async () => {
      const page = await signedIn();
      await waitNames(page, ['Carlos Mendoza', 'Rolando Díaz', 'Rosa Quispe']);
      const search = page.getByLabel('Search', { exact: true });
      // The start of a name, any case, accents ignored; across accounts for the carrier.
      await search.fill('ro');
      await waitNames(page, ['Rolando Díaz', 'Rosa Quispe']);
      await expect.poll(() => count(page, 'total')).toBe('2');
      // The last digits of the phone.
      await search.fill('4321');
      await waitNames(page, ['Rosa Quispe']);
      expect(page.url()).toContain('q=4321');
      await search.fill('rolando diaz');
      await waitNames(page, ['Rolando Díaz']);
      await search.fill('ros');
      await waitNames(page, ['Rosa Quispe']);

      // Live, through the stream: a new match appears and the counts follow, without a reload.
      const rosalia = (
        await client(t.app, a.test)('POST', '/v1/orders', validOrder({ customer: { name: 'Rosalía Paz' } }))
      ).body;
      await waitNames(page, ['Rosa Quispe', 'Rosalía Paz']);
      await expect.poll(() => count(page, 'total')).toBe('2');
      // A cancellation moves a count from one status to another.
      expect((await client(t.app, a.test)('POST', `/v1/orders/${rosalia.id}/cancel`)).status).toBe(200);
      await expect.poll(() => count(page, 'cancelled'), { timeout: 15_000 }).toBe('1');
      expect(await count(page, 'pending')).toBe('1');
      // Filtered to pending, the cancelled order leaves the list.
      await page.getByLabel('Status', { exact: true }).selectOption('pending');
      await waitNames(page, ['Rosa Quispe']);
      // A non-matching new order never shows.
      await client(t.app, b.test)('POST', '/v1/orders', validOrder({ customer: { name: 'Zoe Ramos' } }));
      await expect.poll(() => count(page, 'pending')).toBe('1');
      expect(await names(page)).toEqual(['Rosa Quispe']);
      await page.context().close();
    },
  );

  it.skipIf(!hasChromium)(
    `shows an API error under its field, works by keyboard and from 360 px${skipNote}`,
    async () => {
      const page = await signedIn(360);
      await page.getByRole('heading', { name: 'Orders' }).waitFor();
      // Longer than the API takes (the box stops at 100; a URL need not).
      await page.goto(`${base}/console/#/board?day=all&q=${'x'.repeat(101)}`);
      await page.reload();
      const err = page.locator('#f-search-err');
      await err.waitFor();
      expect(await err.getAttribute('role')).toBe('alert');
      expect(await err.textContent()).toMatch(/search/i);
      expect(await page.locator('#f-search').getAttribute('aria-invalid')).toBe('true');
      expect(await page.locator('#f-search').getAttribute('aria-describedby')).toBe('f-search-err');
      await page.locator('#f-search').fill('carlos');
      await waitNames(page, ['Carlos Mendoza']);
      expect(await err.count()).toBe(0);
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);

      // Keyboard: a count is a button; Enter filters by its status, and says it is pressed.
      await page.locator('#f-search').fill('');
      const pending = page.getByRole('button', { name: /^Pending/ });
      await pending.focus();
      await page.keyboard.press('Enter');
      await expect.poll(() => page.getByLabel('Status', { exact: true }).inputValue()).toBe('pending');
      expect(await pending.getAttribute('aria-pressed')).toBe('true');
      expect(page.url()).toContain('status=pending');
      // The list takes focus and scrolls by keyboard.
      await page.getByRole('region', { name: 'Orders list' }).focus();
      expect(await page.evaluate('document.activeElement?.getAttribute("aria-label")')).toBe('Orders list');
      await page.context().close();
    },
  );
});
