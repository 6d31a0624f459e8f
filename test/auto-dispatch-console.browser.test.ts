import type { Page } from 'playwright-core';
import { expect, it, onTestFinished } from 'vitest';
import { hasChromium, openPage, skipNote, submitSignIn, useBrowserApp } from './browser-helpers.js';
import { client, describeEachInBrowser, newMerchant, newOperator, validOrder } from './helpers.js';
import { newUser } from './people-helpers.js';

/**
 * The console's auto-dispatch controls (DESIGN §16, docs/dispatch.md): the environment's mode on
 * the board for admins and dispatchers (not merchants), set with PATCH /v1/dispatch_settings in the
 * environment the console is in, one PATCH per double-click, its error shown; an account's override
 * on the admins' Accounts page; the suggestions' Assign sends one POST per double-click.
 */
describeEachInBrowser('auto-dispatch in the console', (engine) => {
  const web = useBrowserApp(engine);
  const SETTINGS = '/v1/dispatch_settings';

  async function board(role: 'admin' | 'dispatcher' | 'merchant', account?: string): Promise<Page> {
    const page = await openPage(web.browser, { viewport: { width: 1280, height: 800 } });
    await submitSignIn(page, web.base, (await newUser(web.t, role, account)).email);
    await page.getByRole('heading', { name: 'Orders' }).waitFor();
    return page;
  }
  /** Holds each PATCH of the settings for `ms` before it goes on, counting them. */
  async function slowPatches(page: Page, ms: number): Promise<{ count: number }> {
    const seen = { count: 0 };
    await page.route(`**${SETTINGS}`, async (route) => {
      if (route.request().method() !== 'PATCH') return route.continue();
      seen.count += 1;
      await new Promise((r) => setTimeout(r, ms));
      await route.continue();
    });
    return seen;
  }

  it.skipIf(!hasChromium)(
    `a dispatcher sets the mode of the console's environment on the board; two clicks send one PATCH; a refusal is shown${skipNote}`,
    async () => {
      const testOp = client(web.t.app, await newOperator(web.t, 'test'));
      const liveOp = client(web.t.app, await newOperator(web.t, 'live'));
      // Back to off however this ends: another test's orders must not be assigned by the worker.
      onTestFinished(async () => {
        await testOp('PATCH', SETTINGS, { auto_dispatch: 'off' });
        await liveOp('PATCH', SETTINGS, { auto_dispatch: 'off' });
      });
      const page = await board('dispatcher');
      const form = page.getByRole('form', { name: 'Auto-dispatch' });
      const select = form.getByLabel('Auto-dispatch (test data)');
      const apply = form.getByRole('button', { name: 'Apply' });
      const help = form.locator('small.muted');

      // The environment's current mode (off by default), explained; nothing to apply yet.
      // Disabled until the settings are read.
      await expect.poll(() => select.isEnabled()).toBe(true);
      expect(await select.inputValue()).toBe('off');
      expect(await apply.isDisabled()).toBe(true);
      expect(await help.textContent()).toMatch(/Nothing automatic/);

      // Picking assign only explains it; the API still says off.
      await select.selectOption('assign');
      expect(await help.textContent()).toMatch(/best courier’s route within 30 s.*Not applied yet: it is Off/);
      expect((await testOp('GET', SETTINGS)).body.auto_dispatch).toBe('off');

      // Two clicks in one task (before React can render the button disabled) send one PATCH.
      const patches = await slowPatches(page, 600);
      await apply.evaluate((b) => {
        const button = b as unknown as { click(): void };
        button.click();
        button.click();
      });
      await form.getByRole('status').filter({ hasText: 'Auto-dispatch is now Assign (test data).' }).waitFor();
      expect(patches.count).toBe(1);
      expect((await testOp('GET', SETTINGS)).body.auto_dispatch).toBe('assign');
      expect((await liveOp('GET', SETTINGS)).body.auto_dispatch).toBe('off');
      expect(await select.inputValue()).toBe('assign');
      expect(await apply.isDisabled()).toBe(true);

      // Live: the board reads and sets live's own mode; test keeps assign.
      await page.getByRole('group', { name: 'Environment' }).getByLabel('Live').check();
      const liveSelect = page.getByRole('form', { name: 'Auto-dispatch' }).getByLabel('Auto-dispatch (live)');
      await expect.poll(() => liveSelect.isEnabled()).toBe(true);
      expect(await liveSelect.inputValue()).toBe('off');
      await liveSelect.selectOption('suggest');
      await page.getByRole('form', { name: 'Auto-dispatch' }).getByRole('button', { name: 'Apply' }).click();
      await page.getByRole('status').filter({ hasText: 'Auto-dispatch is now Suggest (live).' }).waitFor();
      expect((await liveOp('GET', SETTINGS)).body.auto_dispatch).toBe('suggest');
      expect((await testOp('GET', SETTINGS)).body.auto_dispatch).toBe('assign');

      // A refusal: its message under the control, the choice kept and Apply offered again.
      await page.unroute(`**${SETTINGS}`);
      await page.route(`**${SETTINGS}`, (route) =>
        route.request().method() === 'PATCH'
          ? route.fulfill({
              status: 403,
              contentType: 'application/json',
              body: JSON.stringify({
                error: { type: 'invalid_request_error', code: 'permission_denied', message: 'Not allowed here.' },
              }),
            })
          : route.continue(),
      );
      await liveSelect.selectOption('off');
      await page.getByRole('form', { name: 'Auto-dispatch' }).getByRole('button', { name: 'Apply' }).click();
      await page.getByRole('alert').filter({ hasText: 'Not allowed here.' }).waitFor();
      expect(await liveSelect.inputValue()).toBe('off');
      expect(
        await page.getByRole('form', { name: 'Auto-dispatch' }).getByRole('button', { name: 'Apply' }).isEnabled(),
      ).toBe(true);
      expect((await liveOp('GET', SETTINGS)).body.auto_dispatch).toBe('suggest');
      await page.close();
    },
  );

  it.skipIf(!hasChromium)(
    `an admin sees it with the accounts' overrides; a merchant does not see it${skipNote}`,
    async () => {
      const m = await newMerchant(web.t, 'Quipu');
      const op = client(web.t.app, await newOperator(web.t, 'test'));
      expect(
        (await op('PATCH', SETTINGS, { accounts: [{ account: m.accountId, auto_dispatch: 'suggest' }] })).status,
      ).toBe(200);
      // The tests of this file run in any order: another may have left overrides of its own.
      const n = (await op('GET', SETTINGS)).body.accounts.length;
      expect(n).toBeGreaterThanOrEqual(1);
      const admin = await board('admin');
      const form = admin.getByRole('form', { name: 'Auto-dispatch' });
      await expect.poll(() => form.getByLabel('Auto-dispatch (test data)').isEnabled()).toBe(true);
      expect(await form.getByLabel('Auto-dispatch (test data)').inputValue()).toBe('off');
      expect(await form.textContent()).toContain(
        n === 1 ? '1 account has its own mode' : `${n} accounts have their own mode`,
      );
      expect(await form.getByRole('link', { name: 'see Accounts' }).getAttribute('href')).toBe('#/admin/accounts');
      await admin.close();

      const merchant = await board('merchant', m.accountId);
      // The board is up (its counts read) before asking what it lacks.
      await merchant.locator('.counts').waitFor();
      await merchant.waitForTimeout(500);
      expect(await merchant.getByRole('form', { name: 'Auto-dispatch' }).count()).toBe(0);
      expect(await merchant.getByText(/Auto-dispatch/).count()).toBe(0);
      await merchant.close();
      expect((await op('PATCH', SETTINGS, { accounts: [{ account: m.accountId, auto_dispatch: null }] })).status).toBe(
        200,
      );
    },
  );

  it.skipIf(!hasChromium)(`an admin sets an account's override on Accounts, and removes it${skipNote}`, async () => {
    const a = await newMerchant(web.t, 'Acme Andina');
    const b = await newMerchant(web.t, 'Bodega Sur');
    const op = client(web.t.app, await newOperator(web.t, 'test'));
    // This test's two accounts' overrides (another test may have left its own).
    const overrides = async () =>
      Object.fromEntries(
        ((await op('GET', SETTINGS)).body.accounts as { account: string; auto_dispatch: string }[])
          .filter((x) => x.account === a.accountId || x.account === b.accountId)
          .map((x) => [x.account, x.auto_dispatch]),
      );
    expect((await op('PATCH', SETTINGS, { accounts: [{ account: b.accountId, auto_dispatch: 'off' }] })).status).toBe(
      200,
    );
    const page = await board('admin');
    await page.goto(`${web.base}/console/#/admin/accounts`);
    const table = page.getByRole('table', { name: 'Accounts' });
    const rowOf = (name: string) => table.getByRole('row').filter({ hasText: name });
    await table.getByRole('columnheader', { name: 'Auto-dispatch (test data)' }).waitFor();
    // The existing override, and the carrier's mode where there is none.
    await expect.poll(() => rowOf('Bodega Sur').textContent()).toMatch(/Off \(its own\)/);
    expect(await rowOf('Acme Andina').textContent()).toMatch(/The carrier’s \(Off\)/);

    await page.getByRole('button', { name: 'Edit Acme Andina' }).click();
    const edit = page.getByRole('form', { name: 'Edit Acme Andina' });
    const field = edit.getByLabel('Auto-dispatch (test data)');
    expect(await field.inputValue()).toBe('');
    await field.selectOption('assign');
    expect(await edit.textContent()).toMatch(/within 30 s/);
    await edit.getByRole('button', { name: 'Save account' }).click();
    await expect.poll(() => rowOf('Acme Andina').textContent()).toMatch(/Assign \(its own\)/);
    expect(await overrides()).toEqual({ [a.accountId]: 'assign', [b.accountId]: 'off' });
    // The carrier's own mode did not move.
    expect((await op('GET', SETTINGS)).body.auto_dispatch).toBe('off');

    // Opened again, it shows the override; inheriting removes it.
    await page.getByRole('button', { name: 'Edit Acme Andina' }).click();
    const again = page.getByRole('form', { name: 'Edit Acme Andina' }).getByLabel('Auto-dispatch (test data)');
    expect(await again.inputValue()).toBe('assign');
    await again.selectOption('');
    await page.getByRole('form', { name: 'Edit Acme Andina' }).getByRole('button', { name: 'Save account' }).click();
    await expect.poll(() => rowOf('Acme Andina').textContent()).toMatch(/The carrier’s \(Off\)/);
    expect(await overrides()).toEqual({ [b.accountId]: 'off' });
    // Live has none of it.
    const live = client(web.t.app, await newOperator(web.t, 'live'));
    expect((await live('GET', SETTINGS)).body.accounts).toEqual([]);
    await page.close();
    expect((await op('PATCH', SETTINGS, { accounts: [{ account: b.accountId, auto_dispatch: null }] })).status).toBe(
      200,
    );
  });

  it.skipIf(!hasChromium)(`two clicks on a suggestion's Assign send one POST${skipNote}`, async () => {
    const m = await newMerchant(web.t, 'Pachamama');
    const mc = client(web.t.app, m.test);
    const courier = (await mc('POST', '/v1/couriers', { name: 'Luis Rojas', shift_start: '00:00', shift_end: '23:59' }))
      .body;
    expect((await mc('POST', `/v1/couriers/${courier.id}/location`, { lat: -12.1, lng: -77.03 })).status).toBe(200);
    const order = (
      await mc(
        'POST',
        '/v1/orders',
        validOrder({
          customer: { name: 'Rosa Quispe' },
          delivery_address: { address: 'Av. Larco 1', lat: -12.12, lng: -77.03 },
        }),
      )
    ).body;
    const page = await board('dispatcher');
    const posts: string[] = [];
    await page.route('**/v1/orders/*/dispatch', async (route) => {
      posts.push(route.request().url());
      await new Promise((r) => setTimeout(r, 600));
      await route.continue();
    });
    await page.getByLabel(`Select ${order.tracking_code}`).check();
    const panel = page.getByRole('region', { name: `Suggested couriers for ${order.tracking_code}` });
    // Two clicks in one task: a busy state would still be false for the second (it raced before useGuard).
    await panel.getByRole('button', { name: `Assign ${order.tracking_code} to Luis Rojas` }).evaluate((b) => {
      const button = b as unknown as { click(): void };
      button.click();
      button.click();
    });
    await page.getByRole('status').filter({ hasText: 'inserted as stop 1' }).waitFor();
    expect(posts.length).toBe(1);
    const after = (await mc('GET', `/v1/orders/${order.id}`)).body;
    expect(after.status).toBe('assigned');
    expect(after.courier?.id).toBe(courier.id);
    await page.close();
  });
});
