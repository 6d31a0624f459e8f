import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { type ImportRunner, startImportRunner } from '../src/features/imports/runner.js';
import {
  cspErrorsOf,
  hasChromium,
  IMAGES,
  openPage,
  skipNote,
  submitSignIn,
  useBrowserApp,
} from './browser-helpers.js';
import { client, describeEachInBrowser, type Merchant, newMerchant } from './helpers.js';
import { csv } from './imports-helpers.js';
import { newUser } from './people-helpers.js';

const HEADER = [
  'external_order_id',
  'customer_name',
  'customer_phone',
  'address',
  'city',
  'item_description',
  'item_quantity',
];

describeEachInBrowser('console imports page in headless Chromium', (engine) => {
  let runner: ImportRunner;
  let dir: string;
  let merchant: Merchant;
  let email: string;

  const web = useBrowserApp(
    engine,
    {},
    {
      setup: async (t) => {
        // What `ruta serve` runs in the background: imports are claimed and run by it, not by the test.
        runner = startImportRunner(t.ctx, pino({ level: 'silent' }));
        merchant = await newMerchant(t, 'Tienda Imports');
        email = (await newUser(t, 'merchant', merchant.accountId)).email;
        dir = mkdtempSync(join(tmpdir(), 'ruta-imports-browser-'));
      },
      teardown: async () => {
        await runner?.stop();
        if (dir) rmSync(dir, { recursive: true, force: true });
      },
    },
  );

  async function signIn(userEmail: string, width = 1280, height = 900): Promise<{ page: Page; cspErrors: string[] }> {
    const page = await openPage(web.browser, { viewport: { width, height }, acceptDownloads: true });
    const cspErrors = cspErrorsOf(page);
    await submitSignIn(page, web.base, userEmail);
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
    return { page, cspErrors };
  }

  function file(name: string, text: string): string {
    const path = join(dir, `${engine}-${name}`);
    writeFileSync(path, text);
    return path;
  }

  /** The page's width, and what sticks out past the viewport (the message when the check fails). */
  async function overflow(page: Page): Promise<{ width: number; culprits: string }> {
    // A string, run in the page: the test's own compiler has no DOM types.
    return page.evaluate(`(() => {
      const out = [...document.querySelectorAll('body *')]
        .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1)
        .slice(0, 5)
        .map((e) => e.tagName.toLowerCase() + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right) + 'px');
      return { width: document.documentElement.scrollWidth, culprits: out.join('; ') };
    })()`);
  }

  const fileInput = (page: Page) => page.getByLabel('Spreadsheet (.csv or .xlsx) *');
  const count = (page: Page, name: string) => page.locator(`.import-counts dd[data-count="${name}"]`).textContent();

  it.skipIf(!hasChromium)(
    `imports a CSV as a merchant: progress, counts, row errors, failed rows, orders with source excel${skipNote}`,
    async () => {
      const { page, cspErrors } = await signIn(email);
      await page.getByRole('link', { name: 'Imports', exact: true }).click();
      await page.getByRole('heading', { name: 'Imports', exact: true }).waitFor();
      await page.getByText('No imports yet.').waitFor();

      // Not a spreadsheet: the API's 415, said in terms of the file, next to the file field.
      await fileInput(page).setInputFiles(file('notes.txt', 'customer_name,address\nAna,Av. Uno 1\n'));
      await page.getByRole('button', { name: 'Upload' }).click();
      const fileError = page.locator('.field.has-error', { hasText: 'Spreadsheet' }).getByRole('alert');
      await fileError.waitFor();
      expect(await fileError.textContent()).toMatch(/notes\.txt is neither a CSV nor an \.xlsx workbook/);

      // A file the upload itself refuses (an unknown column): the 422 is shown next to the file field.
      await fileInput(page).setInputFiles(
        file(
          'unknown.csv',
          csv([
            ['customer_name', 'address', 'colour'],
            ['Ana', 'Av. Uno 1', 'red'],
          ]),
        ),
      );
      await page.getByRole('button', { name: 'Upload' }).click();
      await fileError.filter({ hasText: 'colour' }).waitFor();
      expect(await fileError.textContent()).toMatch(/^Unknown column "colour"/);
      expect(await page.evaluate('document.activeElement.name')).toBe('file');

      // Three good rows (the first two one order with two items) and row 5 with a bad phone and no quantity.
      const text = csv([
        HEADER,
        ['IMP-1', 'Rosa Quispe', '+51987654321', 'Av. Arequipa 100', 'Lima', 'Zapatos', 1],
        ['IMP-1', 'Rosa Quispe', '+51987654321', 'Av. Arequipa 100', 'Lima', 'Medias', 2],
        ['IMP-2', 'Carlos Mendoza', '+51987654322', 'Jr. Cusco 200', 'Lima', 'Polo', 1],
        ['IMP-3', 'Pedro Sin Prefijo', '987654321', 'Av. Brasil 300', 'Lima', 'Gorra', 0],
      ]);
      await fileInput(page).setInputFiles(file('orders.csv', text));
      await page.getByRole('button', { name: 'Upload' }).click();
      const title = page.getByRole('heading', { name: /^Import imp_/ });
      await title.waitFor();
      const id = ((await title.textContent()) ?? '').replace(/^Import /, '');
      expect(id).toMatch(/^imp_[0-9A-Z]+$/);
      expect(page.url()).toBe(`${web.base}/console/#/imports/${id}`);

      await page.getByRole('status').filter({ hasText: 'Import finished' }).waitFor({ timeout: 20_000 });
      expect(await page.getByRole('status').filter({ hasText: 'Import finished' }).textContent()).toBe(
        'Import finished: 2 orders created, 1 row rejected.',
      );
      const bar = page.getByRole('progressbar', { name: 'Import progress' });
      expect(await bar.getAttribute('aria-valuenow')).toBe('100');
      expect(await bar.getAttribute('aria-valuetext')).toBe('4 of 4 rows');
      expect(await count(page, 'total')).toBe('4');
      expect(await count(page, 'processed')).toBe('4');
      expect(await count(page, 'created')).toBe('2');
      expect(await count(page, 'failed')).toBe('1');

      // Both of row 5's errors, in the order of the columns: one round of fixes is enough.
      const rows = page.locator('table.import-errors tbody tr');
      expect(await rows.count()).toBe(2);
      const cells = await rows.first().locator('td').allTextContents();
      expect(cells.slice(0, 4)).toEqual(['5', 'customer_phone', 'customer.phone', 'parameter_invalid']);
      expect(cells[4]).toMatch(/^Invalid customer\.phone: .*E\.164/);
      expect((await rows.nth(1).locator('td').allTextContents()).slice(0, 4)).toEqual([
        '5',
        'item_quantity',
        'items[0].quantity',
        'parameter_invalid',
      ]);

      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: 'Download failed rows' }).click(),
      ]);
      expect(download.suggestedFilename()).toBe(`${id}-failed-rows.csv`);
      const failedRows = readFileSync((await download.path()) as string, 'utf8')
        .replace(/^\uFEFF/, '')
        .trim()
        .split('\r\n');
      expect(failedRows).toHaveLength(2);
      expect(failedRows[0]).toBe(`${HEADER.join(',')},error`);
      expect(failedRows[1]).toMatch(
        /^IMP-3,Pedro Sin Prefijo,987654321,Av\. Brasil 300,Lima,Gorra,0,"Row 5 \(column customer_phone\): Invalid customer\.phone: [^\n]*\nRow 5 \(column item_quantity\): Invalid items\[0\]\.quantity: /,
      );

      // Through the API with the account's own secret key: the orders exist, made from the file.
      const api = client(web.t.app, merchant.test);
      const one = (await api('GET', '/v1/orders?external_order_id=IMP-1')).body.data;
      expect(one).toHaveLength(1);
      expect(one[0].source).toBe('excel');
      expect(one[0].items.map((i: { description: string; quantity: number }) => [i.description, i.quantity])).toEqual([
        ['Zapatos', 1],
        ['Medias', 2],
      ]);
      const two = (await api('GET', '/v1/orders?external_order_id=IMP-2')).body.data;
      expect(two.map((o: { source: string; customer: { name: string } }) => [o.source, o.customer.name])).toEqual([
        ['excel', 'Carlos Mendoza'],
      ]);
      expect((await api('GET', '/v1/orders?external_order_id=IMP-3')).body.data).toEqual([]);

      mkdirSync(IMAGES, { recursive: true });
      if (engine === 'sqlite') await page.screenshot({ path: join(IMAGES, 'console-imports.png'), fullPage: true });

      // A second import; the list shows both, newest first, each linking to its page.
      await page.getByRole('link', { name: '← Imports' }).click();
      await fileInput(page).setInputFiles(
        file('more.csv', csv([HEADER, ['IMP-4', 'Lucía Flores', '+51987654323', 'Av. Sol 4', 'Cusco', 'Caja', 1]])),
      );
      await page.getByRole('button', { name: 'Upload' }).click();
      await page.getByRole('status').filter({ hasText: 'Import finished: 1 order created, 0 rows rejected.' }).waitFor({
        timeout: 20_000,
      });
      const second = ((await page.getByRole('heading', { name: /^Import imp_/ }).textContent()) ?? '').slice(7);
      expect(second).not.toBe(id);
      await page.getByRole('link', { name: '← Imports' }).click();
      const links = page.locator('table a[href^="#/imports/imp_"]');
      await expect.poll(() => links.count()).toBe(2);
      expect(await links.allTextContents()).toEqual([second, id]);
      await page.getByRole('link', { name: id }).click();
      await page.getByRole('heading', { name: `Import ${id}` }).waitFor();
      expect(await count(page, 'created')).toBe('2');

      // Usable at 360 px: nothing wider than the screen (tables scroll inside their box).
      await page.setViewportSize({ width: 360, height: 740 });
      const wide = await overflow(page);
      expect(wide.width, wide.culprits).toBeLessThanOrEqual(360);
      await page.getByRole('link', { name: '← Imports' }).click();
      await page.getByRole('button', { name: 'Upload' }).waitFor();
      const wideList = await overflow(page);
      expect(wideList.width, wideList.culprits).toBeLessThanOrEqual(360);
      expect(cspErrors).toEqual([]);
      await page.context().close();

      // Another account's merchant: the same address is not found.
      const other = await newMerchant(web.t, 'Otra Tienda');
      const otherUser = await newUser(web.t, 'merchant', other.accountId);
      const { page: otherPage } = await signIn(otherUser.email);
      await otherPage.goto(`${web.base}/console/#/imports/${id}`);
      await otherPage.getByRole('heading', { name: 'Import not found' }).waitFor();
      expect(await otherPage.getByText('Orders created').count()).toBe(0);
      await otherPage.getByRole('link', { name: '← Imports' }).click();
      await otherPage.getByText('No imports yet.').waitFor();
      await otherPage.context().close();
    },
  );

  it.skipIf(!hasChromium)(
    `the same file again: the warnings name the orders it already made, and "Skip orders already imported" leaves them out${skipNote}`,
    async () => {
      const shop = await newMerchant(web.t, 'Tienda Repetida');
      const user = await newUser(web.t, 'merchant', shop.accountId);
      const { page, cspErrors } = await signIn(user.email);
      await page.goto(`${web.base}/console/#/imports`);
      const text = csv([
        HEADER,
        ['REP-1', 'Rosa Quispe', '+51987654321', 'Av. Arequipa 100', 'Lima', 'Zapatos', 1],
        ['REP-2', 'Carlos Mendoza', '+51987654322', 'Jr. Cusco 200', 'Lima', 'Polo', 1],
      ]);
      const finished = page.getByRole('status').filter({ hasText: 'Import finished' });
      const uploadAgain = async (skip: boolean) => {
        await page.goto(`${web.base}/console/#/imports`);
        await fileInput(page).setInputFiles(file('repeat.csv', text));
        await page.getByLabel('Skip orders already imported').setChecked(skip);
        await page.getByRole('button', { name: 'Upload' }).click();
        await page.getByRole('heading', { name: /^Import imp_/ }).waitFor();
        await finished.waitFor({ timeout: 20_000 });
      };
      await uploadAgain(false);
      expect(await finished.textContent()).toBe('Import finished: 2 orders created, 0 rows rejected.');
      expect(await page.getByRole('heading', { name: 'Warnings' }).count()).toBe(0);
      const api = client(web.t.app, shop.test);
      const [first] = (await api('GET', '/v1/orders?external_order_id=REP-1')).body.data;

      // Again, unticked: made again, and each row says which order had its id.
      await uploadAgain(false);
      expect(await finished.textContent()).toBe('Import finished: 2 orders created, 0 rows rejected.');
      await page.getByRole('heading', { name: 'Warnings' }).waitFor();
      const warnings = page.locator('table.import-warnings tbody tr');
      expect(await warnings.count()).toBe(2);
      const cells = await warnings.first().locator('td').allTextContents();
      expect(cells).toEqual([
        '2',
        'external_order_id',
        'external_order_id',
        'duplicate_external_order_id',
        `external_order_id "REP-1" already belongs to order ${first.id}: this row makes another order with it (tick “Skip orders already imported” in the upload form on Imports to leave such orders out).`,
      ]);
      expect(await page.locator('table.import-errors').count()).toBe(0);

      // Ticked: nothing made; the counts and the warnings say so.
      await uploadAgain(true);
      expect(await finished.textContent()).toBe(
        'Import finished: 0 orders created, 0 rows rejected, 2 orders skipped (already imported).',
      );
      expect(await count(page, 'skipped')).toBe('2');
      expect(await page.locator('table.import-warnings tbody tr').first().locator('td').last().textContent()).toMatch(
        /^Skipped: external_order_id "REP-1" already belongs to order ord_\w+ \(and 1 more\); no order was created from this row\.$/,
      );
      expect((await api('GET', '/v1/orders?external_order_id=REP-1')).body.data).toHaveLength(2);
      expect((await api('GET', '/v1/orders?external_order_id=REP-2')).body.data).toHaveLength(2);

      // The list counts the skipped orders too.
      await page.getByRole('link', { name: '← Imports' }).click();
      const newest = page.locator('table tbody tr').first().locator('td');
      await expect.poll(async () => (await newest.allTextContents()).slice(3)).toEqual(['2', '0', '0', '2']);
      expect(cspErrors).toEqual([]);
      await page.context().close();
    },
  );
  it.skipIf(!hasChromium)(
    `an upload whose answer was lost is sent again with the same key: one import, not two${skipNote}`,
    async () => {
      const shop = await newMerchant(web.t, 'Tienda Sin Señal');
      const user = await newUser(web.t, 'merchant', shop.accountId);
      const { page, cspErrors } = await signIn(user.email);
      await page.goto(`${web.base}/console/#/imports`);
      const keys: string[] = [];
      // The first upload reaches the server and is done there; its answer never reaches the page.
      await page.route('**/v1/order_imports?**', async (route) => {
        if (route.request().method() !== 'POST') return route.continue();
        keys.push(route.request().headers()['idempotency-key'] ?? '');
        if (keys.length > 1) return route.continue();
        await route.fetch();
        await route.abort('connectionreset');
      });
      const text = csv([HEADER, ['LOST-1', 'Rosa Quispe', '+51987654321', 'Av. Arequipa 100', 'Lima', 'Zapatos', 1]]);
      await fileInput(page).setInputFiles(file('lost.csv', text));
      await page.getByRole('button', { name: 'Upload' }).click();
      await page.locator('.field.has-error', { hasText: 'Spreadsheet' }).getByRole('alert').waitFor();

      await page.getByRole('button', { name: 'Upload' }).click();
      const title = page.getByRole('heading', { name: /^Import imp_/ });
      await title.waitFor();
      expect(keys).toHaveLength(2);
      expect(keys[1]).toBe(keys[0]);
      const imports = (await client(web.t.app, shop.test)('GET', '/v1/order_imports')).body.data;
      expect(imports.map((i: { id: string }) => i.id)).toEqual([
        ((await title.textContent()) ?? '').replace(/^Import /, ''),
      ]);
      expect(cspErrors).toEqual([]);
      await page.context().close();
    },
  );

  it.skipIf(!hasChromium)(
    `a date that could be day/month or month/day: the row says to pick the format in the upload form, which reads it${skipNote}`,
    async () => {
      const shop = await newMerchant(web.t, 'Tienda Fechas');
      const user = await newUser(web.t, 'merchant', shop.accountId);
      const { page, cspErrors } = await signIn(user.email);
      const text = csv([
        [...HEADER, 'requested_date'],
        ['DATE-1', 'Rosa Quispe', '+51987654321', 'Av. Arequipa 100', 'Lima', 'Zapatos', 1, '01/02/2030'],
      ]);
      const finished = page.getByRole('status').filter({ hasText: 'Import finished' });
      const upload = async (format: string) => {
        await page.goto(`${web.base}/console/#/imports`);
        await fileInput(page).setInputFiles(file('dates.csv', text));
        await page.getByLabel('Dates like 01/02/2026').selectOption({ label: format });
        await page.getByRole('button', { name: 'Upload' }).click();
        await page.getByRole('heading', { name: /^Import imp_/ }).waitFor();
        await finished.waitFor({ timeout: 20_000 });
      };
      await upload('Unambiguous dates only (ISO, or a day above 12)');
      expect(await finished.textContent()).toBe('Import finished: 0 orders created, 1 row rejected.');
      // The API's message names its ?date_format= parameter; the console names its own field.
      const message = await page.locator('table.import-errors tbody tr td').last().textContent();
      expect(message).toMatch(/could be day\/month or month\/day;/);
      expect(message).toMatch(
        /pick Day\/month\/year or Month\/day\/year under “Dates like 01\/02\/2026” in the upload form on Imports, and upload the file again\.$/,
      );
      expect(message).not.toContain('?date_format');
      // Doing as it says reads the date.
      await upload('Day/month/year (31/12/2026)');
      expect(await finished.textContent()).toBe('Import finished: 1 order created, 0 rows rejected.');
      const [made] = (await client(web.t.app, shop.test)('GET', '/v1/orders?external_order_id=DATE-1')).body.data;
      expect(made.requested_day).toBe('2030-02-01');

      // A header that names its format, against the field: said in the field's words, not the
      // API's "Drop the parameter", and nothing is imported.
      await page.goto(`${web.base}/console/#/imports`);
      const headed = csv([
        [...HEADER, 'requested_date (MM/DD/YYYY)'],
        ['DATE-2', 'Rosa Quispe', '+51987654321', 'Av. Arequipa 100', 'Lima', 'Zapatos', 1, '02/01/2030'],
      ]);
      await fileInput(page).setInputFiles(file('headed.csv', headed));
      const field = page.getByLabel('Dates like 01/02/2026');
      await field.selectOption({ label: 'Day/month/year (31/12/2026)' });
      await page.getByRole('button', { name: 'Upload' }).click();
      await expect.poll(() => field.getAttribute('aria-invalid')).toBe('true');
      const said = await page.locator('.field.has-error .field-error').textContent();
      expect(said).toBe(
        'The column “requested_date (MM/DD/YYYY)” says its dates are Month/day/year, and this field says Day/month/year: pick “Unambiguous dates only (ISO, or a day above 12)” to go by the column, or change the header.',
      );
      await field.selectOption({ label: 'Unambiguous dates only (ISO, or a day above 12)' });
      await page.getByRole('button', { name: 'Upload' }).click();
      await page.getByRole('heading', { name: /^Import imp_/ }).waitFor();
      await finished.waitFor({ timeout: 20_000 });
      expect(await finished.textContent()).toBe('Import finished: 1 order created, 0 rows rejected.');
      expect(cspErrors).toEqual([]);
      await page.context().close();
    },
  );
});
