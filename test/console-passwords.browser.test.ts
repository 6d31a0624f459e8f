import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { hasChromium, openPage, skipNote, submitSignIn, useBrowserApp } from './browser-helpers.js';
import { client, describeEachInBrowser } from './helpers.js';
import { newUser, PASSWORD } from './people-helpers.js';

/** Issue #18, defect 6 in the console: changing one's password, and an admin's reset link. */
describeEachInBrowser('console passwords in headless Chromium', (engine) => {
  const web = useBrowserApp(engine);

  const newPage = (): Promise<Page> => openPage(web.browser, { viewport: { width: 1280, height: 900 } });
  async function signIn(page: Page, email: string, password = PASSWORD) {
    await submitSignIn(page, web.base, email, password);
    await page.getByRole('heading', { name: 'Orders', exact: true }).waitFor();
  }
  const signInStatus = async (email: string, password: string) =>
    (await client(web.t.app)('POST', '/v1/session', { email, password })).status;

  it.skipIf(!hasChromium)(
    `a user changes their password: a wrong current one is shown at its field; other browsers are signed out${skipNote}`,
    async () => {
      const u = await newUser(web.t, 'dispatcher');
      const here = await newPage();
      const elsewhere = await newPage();
      await signIn(here, u.email);
      await signIn(elsewhere, u.email);

      await here.getByRole('link', { name: 'Change password' }).click();
      await here.getByRole('heading', { name: 'Change password' }).waitFor();
      const form = here.getByRole('form', { name: 'Change password' });
      await form.getByLabel('Current password').fill('not my password');
      await form.getByLabel('New password (at least 10 characters)').fill('my new password 7');
      await form.getByLabel('Repeat the new password').fill('my new password 7');
      await form.getByRole('button', { name: 'Change password' }).click();
      await form.getByText('The current password is not correct.').waitFor();

      await form.getByLabel('Current password').fill(PASSWORD);
      await form.getByLabel('Repeat the new password').fill('my new password 8');
      await form.getByRole('button', { name: 'Change password' }).click();
      await form.getByText('The two new passwords differ.').waitFor();

      await form.getByLabel('Repeat the new password').fill('my new password 7');
      await form.getByRole('button', { name: 'Change password' }).click();
      await here.getByRole('status').getByText('Password changed. 1 other session signed out.').waitFor();
      expect(await form.getByLabel('Current password').inputValue()).toBe('');

      // This browser goes on; the other one is back at the sign-in page.
      await here.reload();
      await here.getByRole('heading', { name: 'Change password' }).waitFor();
      await elsewhere.reload();
      await elsewhere.getByRole('heading', { name: 'Sign in to Ruta' }).waitFor();
      expect(await signInStatus(u.email, PASSWORD)).toBe(401);
      await signIn(elsewhere, u.email, 'my new password 7');
      await here.context().close();
      await elsewhere.context().close();
    },
  );

  it.skipIf(!hasChromium)(
    `an admin resets a user's password; the link lets the user choose a new one and signs them in${skipNote}`,
    async () => {
      const adminUser = await newUser(web.t, 'admin');
      const u = await newUser(web.t, 'dispatcher');
      const admin = await newPage();
      const user = await newPage();
      await signIn(admin, adminUser.email);
      await signIn(user, u.email);

      await admin.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Users' }).click();
      await admin.getByRole('heading', { name: 'Users' }).waitFor();
      // No reset for oneself (that is "Change password").
      await admin.getByRole('cell', { name: adminUser.email, exact: true }).waitFor();
      expect(await admin.getByRole('button', { name: `Reset password for ${adminUser.email}` }).count()).toBe(0);
      let asked = '';
      admin.once('dialog', (d) => {
        asked = d.message();
        void d.accept();
      });
      await admin.getByRole('button', { name: `Reset password for ${u.email}` }).click();
      const shown = admin.getByRole('status');
      await shown.getByText(`Password reset link for ${u.email}`).waitFor();
      expect(asked).toContain(u.email);
      const url = /(http\S+#password_reset=\S+)/.exec((await shown.textContent()) ?? '')?.[1] as string;
      expect(url?.startsWith(`${web.base}/console/#password_reset=`), (await shown.textContent()) ?? '').toBe(true);
      expect(await signInStatus(u.email, PASSWORD)).toBe(401);

      // The user's open console is signed out at its next request.
      await user.reload();
      await user.getByRole('heading', { name: 'Sign in to Ruta' }).waitFor();

      const fresh = await newPage();
      await fresh.goto(url);
      await fresh.getByRole('heading', { name: 'Choose a new password' }).waitFor();
      await fresh.getByText(`For ${u.email}`).waitFor();
      await fresh.getByLabel('New password (at least 10 characters)').fill('chosen again 123');
      await fresh.getByRole('button', { name: 'Set password and sign in' }).click();
      await fresh.getByRole('heading', { name: 'Orders', exact: true }).waitFor();
      expect(await fresh.locator('.who').textContent()).toBe(`${u.name} · dispatcher`);
      // The token left the address bar (and the history entry).
      expect(fresh.url()).not.toContain('password_reset');

      // The link was single use.
      const again = await newPage();
      await again.goto(url);
      await again.getByText('This password reset link is not valid any more').waitFor();
      expect(await signInStatus(u.email, 'chosen again 123')).toBe(200);
      for (const p of [admin, user, fresh, again]) await p.context().close();
    },
  );
});
