import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { hasChromium, openPage, skipNote, submitSignIn, useBrowserApp } from './browser-helpers.js';
import { client, newMerchant, newOperator, validOrder } from './helpers.js';
import { csv, drain, good, HEADER, upload } from './imports-helpers.js';
import { orderIn } from './lifecycle-helpers.js';
import { newUser, PASSWORD } from './people-helpers.js';

/**
 * DESIGN §8: the console is accessible (labels, keyboard, focus) and usable from 360 px; the courier
 * app and the public tracking page too. axe-core checks each page as rendered with real data; the
 * keyboard walk and the 360 px check drive what axe cannot see. Not per engine: what is checked is
 * the markup, which does not depend on the database (the pages' data paths run on both engines in
 * the other browser suites).
 */

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; failureSummary?: string }[];
}

/** axe-core's serious and critical findings on the page as it is now (WCAG 2.1 A/AA and best practices). */
async function seriousViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate('typeof window.axe !== "undefined"'))) await page.addScriptTag({ content: AXE });
  const found = (await page.evaluate(`axe.run(document, {
    runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
    resultTypes: ['violations'],
  }).then((r) => r.violations)`)) as Violation[];
  return found
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** Wider than the viewport means a horizontal scroll bar on the page itself (tables scroll inside their box). */
const overflowOf = (page: Page) =>
  page.evaluate(`(() => {
    const w = document.documentElement.clientWidth;
    const wide = [...document.querySelectorAll('body *')]
      .filter((el) => el.getBoundingClientRect().right > w + 1 && !el.parentElement.closest('.table-wrap, .leaflet-container'))
      .slice(0, 3)
      .map((el) => el.tagName.toLowerCase() + (el.className && typeof el.className === 'string' ? '.' + el.className.split(' ').join('.') : ''));
    return { scroll: document.documentElement.scrollWidth, width: w, wide };
  })()`) as Promise<{ scroll: number; width: number; wide: string[] }>;

/** What has the focus: its role-ish description, and whether a focus indicator is drawn. */
const focused = (page: Page) =>
  page.evaluate(`(() => {
    const el = document.activeElement;
    if (!el || el === document.body) return { name: '', ring: false, tag: 'body' };
    const s = getComputedStyle(el);
    const ring = (s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0) || (s.boxShadow && s.boxShadow !== 'none');
    const name = (el.getAttribute('aria-label') || el.textContent || '').trim();
    return { name, ring: !!ring, tag: el.tagName.toLowerCase(), nav: !!el.closest('nav') };
  })()`) as Promise<{ name: string; ring: boolean; tag: string; nav?: boolean }>;

describe('accessibility: console, courier app and tracking page in headless Chromium', () => {
  let operator: string;
  let admin: string;
  let merchantUser: string;
  let orderId: string;
  let importId: string;
  let trackingCode: string;
  let courierId: string;

  const web = useBrowserApp(
    'sqlite',
    {
      RUTA_WEBHOOK_ALLOW_INSECURE: '1',
    },
    {
      setup: async (t) => {
        operator = await newOperator(t, 'test');
        const shop = await newMerchant(t, 'Acme Shoes');
        const op = client(t.app, operator);
        courierId = (await op('POST', '/v1/couriers', { name: 'Eva Ruiz', phone: '+51911111111' })).body.id;
        await client(t.app, shop.test)('POST', '/v1/orders', validOrder({ customer: { name: 'Rosa Quispe' } }));
        const failed = await orderIn(t, shop.test, operator, courierId, 'failed', {
          customer: { name: 'Fallida Fabiola' },
        });
        orderId = failed.id;
        const moving = await orderIn(t, shop.test, operator, courierId, 'in_transit', {
          customer: { name: 'Viajera Vera' },
          cash_on_delivery: 100,
        });
        trackingCode = moving.tracking_code;
        await client(t.app, shop.test)('POST', '/v1/webhook_endpoints', {
          url: 'http://127.0.0.1:9/ruta',
          events: ['order.created'],
        });
        // One good row and one without an address: the import page then shows its rejected rows too.
        const noAddress = good(2).map((v, i) => (HEADER[i] === 'address' ? '' : v));
        const imported = await upload(t, shop.test, csv([HEADER, good(1), noAddress]));
        importId = imported.body.id;
        await drain(t);
        admin = (await newUser(t, 'admin')).email;
        merchantUser = (await newUser(t, 'merchant', shop.accountId)).email;
      },
    },
  );

  async function newPage(width = 1280, height = 800): Promise<Page> {
    // bypassCSP: axe-core is injected as an inline script, which the console's CSP rightly refuses.
    return openPage(web.browser, { viewport: { width, height }, bypassCSP: true });
  }

  async function signIn(page: Page, email: string) {
    await submitSignIn(page, web.base, email, PASSWORD);
    await page.getByRole('heading', { name: 'Orders', exact: true }).waitFor();
  }

  /** The console's pages for each role, each with what shows it has loaded its data. */
  const adminPages: [string, string, (p: Page) => Promise<unknown>][] = [
    ['board', '#/board', (p) => p.getByRole('link', { name: 'Rosa Quispe' }).waitFor()],
    ['map', '#/map', (p) => p.getByRole('heading', { name: 'Live map' }).waitFor()],
    ['planning', '#/planning', (p) => p.getByRole('heading', { name: 'Planning', level: 1 }).waitFor()],
    ['exceptions', '#/exceptions', (p) => p.getByRole('link', { name: 'Fallida Fabiola' }).waitFor()],
    ['order page', '', (p) => p.getByRole('heading', { name: /Fallida Fabiola/ }).waitFor()],
    ['couriers', '#/couriers', (p) => p.getByRole('heading', { name: 'Eva Ruiz' }).waitFor()],
    ['users', '#/admin/users', (p) => p.getByRole('table', { name: 'Users' }).getByRole('cell').first().waitFor()],
    ['accounts', '#/admin/accounts', (p) => p.getByRole('cell', { name: 'Acme Shoes', exact: true }).waitFor()],
    ['operator keys', '#/admin/operator-keys', (p) => p.getByRole('heading', { name: 'Operator keys' }).waitFor()],
    ['change password', '#/account/password', (p) => p.getByRole('heading', { name: 'Change password' }).waitFor()],
    ['money', '#/money', (p) => p.getByRole('figure', { name: 'Volume' }).waitFor()],
    [
      'orders behind a figure',
      '#/money/orders?outcome=failed',
      (p) => p.getByRole('link', { name: 'Fallida Fabiola' }).waitFor(),
    ],
    ['message settings', '#/messages', (p) => p.getByRole('form', { name: 'Message settings' }).waitFor()],
    ['proof settings', '#/proof', (p) => p.getByRole('form', { name: 'Proof settings' }).waitFor()],
    ['message templates', '#/messages/templates', (p) => p.getByTestId('segments').waitFor()],
    ['message log', '#/messages/log', (p) => p.getByRole('table', { name: 'Messages' }).waitFor()],
  ];
  const merchantPages: [string, string, (p: Page) => Promise<unknown>][] = [
    ['webhooks', '#/webhooks', (p) => p.getByRole('link', { name: 'http://127.0.0.1:9/ruta' }).waitFor()],
    ['imports', '#/imports', (p) => p.getByRole('heading', { name: 'Imports', level: 1 }).waitFor()],
    ['import page', '', (p) => p.getByRole('heading', { name: 'Rejected rows' }).waitFor()],
    ['new order', '#/new-order', (p) => p.getByRole('heading', { name: 'New order' }).waitFor()],
    ['API keys', '#/keys', (p) => p.getByRole('heading', { name: 'API keys' }).waitFor()],
    ['message settings (merchant)', '#/messages', (p) => p.getByRole('form', { name: 'Message settings' }).waitFor()],
    ['proof settings (merchant)', '#/proof', (p) => p.getByRole('form', { name: 'Proof settings' }).waitFor()],
  ];
  const hashOf = (name: string, hash: string) =>
    name === 'order page' ? `#/orders/${orderId}` : name === 'import page' ? `#/imports/${importId}` : hash;

  async function visit(page: Page, name: string, hash: string, ready: (p: Page) => Promise<unknown>) {
    await page.evaluate(`location.hash = ${JSON.stringify(hashOf(name, hash))}`);
    await ready(page);
  }

  it.skipIf(!hasChromium)(
    `no serious or critical axe-core violation on any console page${skipNote}`,
    { timeout: 180_000 },
    async () => {
      const found: string[] = [];
      const page = await newPage();
      await page.goto(`${web.base}/console/`);
      await page.getByRole('heading', { name: 'Sign in to Ruta' }).waitFor();
      for (const v of await seriousViolations(page)) found.push(`sign-in: ${v}`);
      await signIn(page, admin);
      for (const [name, hash, ready] of adminPages) {
        await visit(page, name, hash, ready);
        for (const v of await seriousViolations(page)) found.push(`${name}: ${v}`);
      }
      // Live mode: the environment switch changes the page's colours (the test banner goes).
      await page.getByLabel('Live').check();
      await page.getByText('Test data').waitFor({ state: 'detached' });
      await page.evaluate(`location.hash = '#/board'`);
      await page.getByRole('heading', { name: 'Orders', exact: true }).waitFor();
      for (const v of await seriousViolations(page)) found.push(`board (live): ${v}`);
      await page.context().close();

      const shop = await newPage();
      await signIn(shop, merchantUser);
      for (const [name, hash, ready] of merchantPages) {
        await visit(shop, name, hash, ready);
        for (const v of await seriousViolations(shop)) found.push(`${name}: ${v}`);
      }
      await shop.context().close();
      expect(found).toEqual([]);
    },
  );

  it.skipIf(!hasChromium)(
    `the courier app and the public tracking page have no serious or critical violation${skipNote}`,
    { timeout: 90_000 },
    async () => {
      const found: string[] = [];
      const page = await newPage(360, 740);
      await page.goto(`${web.base}/track/${trackingCode}`);
      await page.getByRole('heading', { level: 1 }).first().waitFor();
      for (const v of await seriousViolations(page)) found.push(`tracking page: ${v}`);
      await page.goto(`${web.base}/track/NOPE0000`);
      for (const v of await seriousViolations(page)) found.push(`tracking page (unknown code): ${v}`);

      await page.goto(`${web.base}/courier/`);
      await page.getByLabel('Sign-in code from your dispatcher').waitFor();
      for (const v of await seriousViolations(page)) found.push(`courier sign-in: ${v}`);
      const code = (await client(web.t.app, operator)('POST', `/v1/couriers/${courierId}/sign_in_codes`, {})).body.code;
      await page.getByLabel('Sign-in code from your dispatcher').fill(code);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: "Today's route" }).waitFor();
      await page.getByText('Viajera').first().waitFor();
      // With its map of the stops drawn (loaded after the first screen).
      await page.locator('.stops-map .leaflet-marker-icon').first().waitFor();
      for (const v of await seriousViolations(page)) found.push(`courier route: ${v}`);
      await page.getByRole('button', { name: 'Deliver' }).first().click();
      await page.getByRole('button', { name: 'Confirm delivery' }).waitFor();
      for (const v of await seriousViolations(page)) found.push(`courier deliver form: ${v}`);
      await page.context().close();
      expect(found).toEqual([]);
    },
  );

  it.skipIf(!hasChromium)(
    `keyboard only: the sign-in form submits with Enter; Tab reaches the skip link and the nav with a visible focus ring${skipNote}`,
    // A password sign-in (a slow hash by design) and reloads: more than the default 30 s on a loaded machine.
    { timeout: 90_000 },
    async () => {
      const page = await newPage();
      await page.goto(`${web.base}/console/`);
      await page.getByRole('heading', { name: 'Sign in to Ruta' }).waitFor();
      // Tab into the form from the top of the page, type, and press Enter: no mouse anywhere.
      let guard = 0;
      while ((await focused(page)).tag !== 'input' && guard++ < 10) await page.keyboard.press('Tab');
      expect(await page.evaluate('document.activeElement.getAttribute("type")')).toBe('email');
      expect((await focused(page)).ring).toBe(true);
      await page.keyboard.type(admin);
      await page.keyboard.press('Tab');
      await page.keyboard.type(PASSWORD);
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: 'Orders', exact: true }).waitFor();

      // From the top of a fresh load: the skip link first, then every nav link in order, each with a focus ring.
      await page.reload();
      await page.getByRole('heading', { name: 'Orders', exact: true }).waitFor();
      await page.keyboard.press('Tab');
      const first = await focused(page);
      expect(first.name).toBe('Skip to content');
      expect(first.ring).toBe(true);
      const navNames = await page
        .getByRole('navigation', { name: 'Main' })
        .getByRole('link')
        .evaluateAll((els) => els.map((e) => (e.textContent ?? '').trim()));
      expect(navNames).toContain('Users');
      const reached: string[] = [];
      for (let i = 0; i < navNames.length; i++) {
        await page.keyboard.press('Tab');
        const f = await focused(page);
        expect(f.nav, `tab ${i + 2} went to ${f.tag} ${f.name}`).toBe(true);
        expect(f.ring, `no focus ring on ${f.name}`).toBe(true);
        reached.push(f.name);
      }
      expect(reached).toEqual(navNames);
      // Enter on a nav link goes there, and the focus moves to the page (screen readers hear it).
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: 'Operator keys' }).waitFor();
      expect(await page.evaluate('document.activeElement.id')).toBe('main');
      // The skip link jumps over the header to the page.
      await page.reload();
      await page.getByRole('heading', { name: 'Operator keys' }).waitFor();
      await page.keyboard.press('Tab');
      expect((await focused(page)).name).toBe('Skip to content');
      await page.keyboard.press('Enter');
      expect(await page.evaluate('document.activeElement.id')).toBe('main');
      // The console opens no modal: nothing that would need to trap the focus.
      expect(await page.locator('[role=dialog], [aria-modal=true], dialog[open]').count()).toBe(0);
      await page.context().close();
    },
  );

  it.skipIf(!hasChromium)(
    `keyboard only: a confirmation (revoking a key) is dismissed with Escape and nothing happens${skipNote}`,
    { timeout: 60_000 },
    async () => {
      const page = await newPage();
      await signIn(page, admin);
      await visit(page, ...adminPages[8]);
      await page.getByRole('button', { name: 'Create key' }).focus();
      await page.keyboard.press('Enter');
      const table = page.getByRole('table', { name: 'Operator keys' });
      const revoke = table.getByRole('button', { name: /^Revoke / }).first();
      await revoke.waitFor();
      const asked: string[] = [];
      page.once('dialog', (d) => {
        asked.push(d.message());
        // What Escape does to a browser's confirmation.
        void d.dismiss();
      });
      await revoke.focus();
      await page.keyboard.press('Enter');
      await expect.poll(() => asked.length).toBe(1);
      expect(asked[0]).toMatch(/stops working at once/);
      expect(await revoke.isEnabled()).toBe(true);
      await page.context().close();
    },
  );

  it.skipIf(!hasChromium)(
    `keyboard only: the courier's delivery form opens with the focus in it and Escape takes it back${skipNote}`,
    { timeout: 60_000 },
    async () => {
      const page = await newPage(360, 740);
      await page.goto(`${web.base}/courier/`);
      const code = (await client(web.t.app, operator)('POST', `/v1/couriers/${courierId}/sign_in_codes`, {})).body.code;
      await page.getByLabel('Sign-in code from your dispatcher').fill(code);
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: "Today's route" }).waitFor();
      const deliver = page.getByRole('button', { name: 'Deliver' }).first();
      await deliver.focus();
      await page.keyboard.press('Enter');
      const form = page.getByRole('form', { name: /^Deliver to/ });
      await form.waitFor();
      expect(await page.evaluate("document.querySelector('form.sheet').contains(document.activeElement)")).toBe(true);
      await page.keyboard.press('Escape');
      await page.getByRole('heading', { name: "Today's route" }).waitFor();
      expect(await form.count()).toBe(0);
      // Back on the button that opened it, so the courier continues where they were.
      expect(await page.evaluate('document.activeElement.textContent')).toBe('Deliver');
      await page.context().close();
    },
  );

  it.skipIf(!hasChromium)(`at 360 px wide no page scrolls sideways${skipNote}`, { timeout: 120_000 }, async () => {
    const wide: string[] = [];
    const check = async (page: Page, name: string) => {
      const o = await overflowOf(page);
      if (o.scroll > o.width) wide.push(`${name}: ${o.scroll} > ${o.width} (${o.wide.join(', ')})`);
    };
    const page = await newPage(360, 740);
    await page.goto(`${web.base}/console/`);
    await page.getByRole('heading', { name: 'Sign in to Ruta' }).waitFor();
    await check(page, 'sign-in');
    await signIn(page, admin);
    for (const [name, hash, ready] of adminPages) {
      await visit(page, name, hash, ready);
      await check(page, name);
    }
    await page.context().close();
    const shop = await newPage(360, 740);
    await signIn(shop, merchantUser);
    for (const [name, hash, ready] of merchantPages) {
      await visit(shop, name, hash, ready);
      await check(shop, name);
    }
    await shop.goto(`${web.base}/track/${trackingCode}`);
    await shop.getByRole('heading', { level: 1 }).first().waitFor();
    await check(shop, 'tracking page');
    await shop.context().close();
    expect(wide).toEqual([]);
  });
});
