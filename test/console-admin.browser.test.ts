import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { hasChromium, openPage, skipNote, submitSignIn, useBrowserApp } from './browser-helpers.js';
import { client, describeEachInBrowser, newMerchant, newOperator, validOrder } from './helpers.js';
import { orderIn } from './lifecycle-helpers.js';
import { newUser, PASSWORD, sessionClient, userSession } from './people-helpers.js';

/** The admin pages, the Exceptions page, and the session's guards, driven through the console. */
describeEachInBrowser('console admin pages in headless Chromium', (engine) => {
  let operator: string;
  let adminEmail: string;

  const web = useBrowserApp(
    engine,
    {},
    {
      setup: async (t) => {
        operator = await newOperator(t, 'test');
        adminEmail = (await newUser(t, 'admin')).email;
      },
    },
  );

  async function newPage(): Promise<Page> {
    return openPage(web.browser, { viewport: { width: 1280, height: 900 } });
  }

  async function signIn(page: Page, email: string, password = PASSWORD) {
    await submitSignIn(page, web.base, email, password);
    await page.getByRole('heading', { name: 'Orders', exact: true }).waitFor();
  }

  const userByEmail = (email: string) =>
    web.t.ctx.db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();

  it.skipIf(!hasChromium)(
    `an admin invites a dispatcher, who sets a password from the link and signs in; the admin disables them${skipNote}`,
    async () => {
      const admin = await newPage();
      await signIn(admin, adminEmail);
      await admin.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Users' }).click();
      await admin.getByRole('heading', { name: 'Users' }).waitFor();
      const email = `dora-${engine}@example.com`;
      await admin.getByLabel('Email').fill(email);
      // The role select is left at its first option: the default role must be sent too.
      expect(await admin.getByLabel('Role').inputValue()).toBe('dispatcher');
      await admin.getByRole('button', { name: 'Invite' }).click();
      const shown = admin.getByRole('status');
      await shown.waitFor();
      const url = /(http\S+#invitation=\S+)/.exec((await shown.textContent()) ?? '')?.[1];
      expect(url, (await shown.textContent()) ?? '').toBeDefined();
      expect(url?.startsWith(`${web.base}/console/#invitation=`)).toBe(true);
      // Listed among the open invitations (never with its link).
      const open = admin.getByRole('table', { name: 'Open invitations' });
      await open.getByRole('cell', { name: email, exact: true }).waitFor();
      expect(await open.textContent()).not.toContain('#invitation=');

      // A fresh browser context: no cookie of the admin's.
      const invited = await newPage();
      await invited.goto(url as string);
      await invited.getByRole('heading', { name: 'Join Ruta' }).waitFor();
      await invited.getByText(`Invitation for ${email}`).waitFor();
      await invited.getByLabel('Your name').fill('Dora Díaz');
      await invited.getByLabel('Choose a password (at least 10 characters)').fill('dora password 42');
      await invited.getByRole('button', { name: 'Set password and sign in' }).click();
      await invited.getByRole('heading', { name: 'Orders', exact: true }).waitFor();
      expect(await invited.locator('.who').textContent()).toBe('Dora Díaz · dispatcher');
      const nav = invited.getByRole('navigation', { name: 'Main' });
      await nav.getByRole('link', { name: 'Exceptions' }).waitFor();
      expect(await nav.getByRole('link', { name: 'Users' }).count()).toBe(0);
      expect(await userByEmail(email)).toMatchObject({ role: 'dispatcher', status: 'active', name: 'Dora Díaz' });
      // The password they chose signs them in again.
      await invited.getByRole('button', { name: 'Sign out' }).click();
      await invited.getByRole('heading', { name: 'Sign in to Ruta' }).waitFor();
      await signIn(invited, email, 'dora password 42');

      // The admin's lists: the invitation is used, the user is there; disabling ends their session.
      await admin.reload();
      const users = admin.getByRole('table', { name: 'Users' });
      await users.getByRole('cell', { name: email, exact: true }).waitFor();
      await admin.getByText('No open invitations.').waitFor();
      await admin.getByRole('button', { name: `Disable ${email}` }).click();
      await admin.getByRole('button', { name: `Enable ${email}` }).waitFor();
      expect((await userByEmail(email))?.status).toBe('disabled');
      await invited.reload();
      await invited.getByRole('heading', { name: 'Sign in to Ruta' }).waitFor();
      await admin.context().close();
      await invited.context().close();
    },
  );

  it.skipIf(!hasChromium)(
    `an admin creates an operator key and an account (secrets shown once) and edits its pricing${skipNote}`,
    async () => {
      const page = await newPage();
      await signIn(page, adminEmail);
      const nav = page.getByRole('navigation', { name: 'Main' });
      await nav.getByRole('link', { name: 'Operator keys' }).click();
      await page.getByRole('heading', { name: 'Operator keys' }).waitFor();
      await page.getByLabel('Key environment').selectOption('live');
      await page.getByRole('button', { name: 'Create key' }).click();
      const status = page.getByRole('status');
      await status.waitFor();
      const opKey = /(ok_live_[0-9A-Za-z]{32})/.exec((await status.textContent()) ?? '')?.[1];
      expect(opKey, (await status.textContent()) ?? '').toBeDefined();
      // The key works, as an operator key of live.
      const asOp = await client(web.t.app, opKey as string)('GET', '/v1/couriers');
      expect(asOp.status).toBe(200);
      const display = `${(opKey as string).slice(0, 12)}…${(opKey as string).slice(-4)}`;
      await page.getByRole('table', { name: 'Operator keys' }).getByText(display).waitFor();

      await nav.getByRole('link', { name: 'Accounts' }).click();
      const form = page.getByRole('form', { name: 'New account' });
      await form.getByLabel('Name').fill('Tienda Nueva');
      await form.getByLabel('Currency').fill('PEN');
      await form.getByLabel('Origin latitude').fill('-12.09');
      await form.getByLabel('Origin longitude').fill('-77.05');
      await form.getByLabel('Base fee (minor units)').fill('700');
      await form.getByRole('button', { name: 'Create account' }).click();
      await page.getByRole('status').waitFor();
      const text = (await page.getByRole('status').textContent()) ?? '';
      const test = /(sk_test_[0-9A-Za-z]{32})/.exec(text)?.[1];
      const live = /(sk_live_[0-9A-Za-z]{32})/.exec(text)?.[1];
      expect(test, text).toBeDefined();
      expect(live, text).toBeDefined();
      const id = /(acct_[0-9A-Za-z]+)/.exec(text)?.[1] as string;
      const account = await web.t.ctx.db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
      expect(account).toMatchObject({ name: 'Tienda Nueva', currency: 'PEN', origin_lat: -12.09, origin_lng: -77.05 });
      expect(JSON.parse(account?.pricing ?? 'null')).toEqual({ base_fee: 700 });
      const made = await client(web.t.app, test as string)('POST', '/v1/orders', validOrder());
      expect(made.status).toBe(201);
      expect(made.body.currency).toBe('PEN');
      expect((await client(web.t.app, live as string)('GET', '/v1/orders')).status).toBe(200);
      // The account's row, by its id cell (the edit form below it has the name in an input, not the id).
      const row = page
        .getByRole('table', { name: 'Accounts' })
        .locator('tr', { has: page.getByRole('cell', { name: id, exact: true }) });
      await row.getByText('base fee 700').waitFor();

      // Edit the pricing and the pickup origin, and pick its depot by name (its zone then wins).
      const depotName = `Surquillo ${engine} ${Date.now()}`;
      const depot = await client(web.t.app, operator)('POST', '/v1/depots', {
        name: depotName,
        lat: -12.11,
        lng: -77.02,
        timezone: 'America/Lima',
      });
      expect(depot.status).toBe(201);
      await page.getByRole('button', { name: 'Edit Tienda Nueva' }).click();
      const edit = page.getByRole('form', { name: 'Edit Tienda Nueva' });
      expect(await edit.getByLabel('Base fee (minor units)').inputValue()).toBe('700');
      await edit.getByLabel('Base fee (minor units)').fill('900');
      await edit.getByLabel('Per km (minor units)').fill('150');
      await edit.getByLabel('Origin latitude').fill('-12.1');
      const depotSelect = edit.getByLabel('Depot (its time zone wins)');
      expect(await depotSelect.inputValue()).toBe('');
      await depotSelect.selectOption({ label: `${depotName} (America/Lima)` });
      await edit.getByRole('button', { name: 'Save account' }).click();
      await row.getByText('base fee 900, per km 150').waitFor();
      // The form closes on save, and the page says it was saved.
      await page
        .getByRole('status')
        .filter({ hasText: /^Saved\.$/ })
        .waitFor();
      expect(await row.textContent()).toContain('-12.1, -77.05');
      expect(await row.textContent()).toContain('America/Lima (its depot’s)');
      const after =
        (await web.t.ctx.db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst()) ?? null;
      expect(JSON.parse(after?.pricing ?? 'null')).toEqual({ base_fee: 900, per_km: 150 });
      expect(after?.origin_lat).toBe(-12.1);
      expect(after?.depot_id).toBe(depot.body.id);

      // Shown once: after a reload, no secret is anywhere in the page.
      await page.reload();
      await row.getByText('base fee 900, per km 150').waitFor();
      const html = await page.content();
      for (const secret of [test, live, opKey]) expect(html).not.toContain(secret);
      await page.context().close();
    },
  );

  it.skipIf(!hasChromium)(
    `an admin revokes an open invitation, and manages a merchant account's API keys from Accounts${skipNote}`,
    async () => {
      const page = await newPage();
      await signIn(page, adminEmail);
      const nav = page.getByRole('navigation', { name: 'Main' });
      await nav.getByRole('link', { name: 'Users' }).click();
      const email = `wrong-address-${engine}@example.com`;
      await page.getByLabel('Email').fill(email);
      await page.getByRole('button', { name: 'Invite' }).click();
      const url = /(http\S+#invitation=\S+)/.exec((await page.getByRole('status').textContent()) ?? '')?.[1] as string;
      const open = page.getByRole('table', { name: 'Open invitations' });
      await open.getByRole('cell', { name: email, exact: true }).waitFor();
      await page.getByRole('button', { name: `Revoke the invitation for ${email}` }).click();
      await open.getByRole('cell', { name: email, exact: true }).waitFor({ state: 'detached' });
      // The link is dead: the person who opens it is told so, and cannot join.
      const token = url.split('#invitation=')[1] as string;
      expect((await client(web.t.app)('GET', `/v1/invitations/${token}`)).status).toBe(404);

      const shop = await newMerchant(web.t, 'Keyed Shop');
      await nav.getByRole('link', { name: 'Accounts' }).click();
      await page.getByRole('button', { name: 'API keys of Keyed Shop' }).click();
      const keys = page.getByRole('table', { name: 'API keys of Keyed Shop' });
      // The two keys the account was made with are listed (never their secrets).
      await expect.poll(async () => keys.getByRole('row').count()).toBe(3);
      const form = page.getByRole('form', { name: 'New api keys of keyed shop' });
      await form.getByLabel('Key environment').selectOption('live');
      // A double click (two clicks in one task, before React renders the button disabled) creates
      // one key: a second would be a live credential whose secret nobody saw.
      const creations = { sent: 0, answered: 0 };
      const isCreate = (r: { url(): string; method(): string }) =>
        r.method() === 'POST' && new URL(r.url()).pathname === '/v1/api_keys';
      page.on('request', (r) => void (isCreate(r) && creations.sent++));
      page.on('requestfinished', (r) => void (isCreate(r) && creations.answered++));
      await form.getByRole('button', { name: 'Create key' }).evaluate((b) => {
        const button = b as unknown as { click(): void };
        button.click();
        button.click();
      });
      const status = page.getByRole('status').filter({ hasText: 'shown once' });
      await status.waitFor();
      const shown = (await status.textContent()) ?? '';
      const secret = /(sk_live_[0-9A-Za-z]{32})/.exec(shown)?.[1];
      expect(secret, shown).toBeDefined();
      await expect.poll(async () => keys.getByRole('row').count()).toBe(4);
      // Every request sent has its answer: a second creation, if any, is done by now.
      await expect.poll(() => creations.answered).toBe(creations.sent);
      expect(creations.sent).toBe(1);
      // Read back with the API: the account's two first keys and one more, in live.
      const admin = sessionClient(web.t, await userSession(web.t, 'admin'));
      const listed = await admin('GET', `/v1/api_keys?account=${shop.accountId}`);
      expect(listed.status).toBe(200);
      expect(listed.body.data.map((k: { mode: string }) => k.mode).sort()).toEqual(['live', 'live', 'test']);
      // A key of that account, in live: it reads the account's orders, and only those.
      const made = await client(web.t.app, secret as string)('GET', '/v1/orders');
      expect(made.status).toBe(200);
      const row = await web.t.ctx.db
        .selectFrom('api_keys')
        .selectAll()
        .where('account_id', '=', shop.accountId)
        .where('mode', '=', 'live')
        .orderBy('created_at', 'desc')
        .executeTakeFirstOrThrow();
      expect(row.role).toBe('merchant');
      // Revoke it from the same table (the browser asks first).
      page.once('dialog', (d) => void d.accept());
      const display = `${(secret as string).slice(0, 12)}…${(secret as string).slice(-4)}`;
      await keys.getByRole('button', { name: `Revoke ${display}` }).click();
      await keys
        .getByRole('button', { name: `Revoke ${display}` })
        .and(page.locator('[disabled]'))
        .waitFor();
      expect((await client(web.t.app, secret as string)('GET', '/v1/orders')).status).toBe(401);
      // The account's other keys still work.
      expect((await client(web.t.app, shop.test)('GET', '/v1/orders')).status).toBe(200);
      await page.context().close();
    },
  );

  it.skipIf(!hasChromium)(`a merchant user opening another account's order sees not-found${skipNote}`, async () => {
    const mine = await newMerchant(web.t, 'Mine');
    const theirs = await newMerchant(web.t, 'Theirs');
    const own = (
      await client(web.t.app, mine.test)('POST', '/v1/orders', validOrder({ customer: { name: 'Own Olga' } }))
    ).body;
    const other = (
      await client(web.t.app, theirs.test)('POST', '/v1/orders', validOrder({ customer: { name: 'Other Omar' } }))
    ).body;
    const user = await newUser(web.t, 'merchant', mine.accountId);
    const page = await newPage();
    await signIn(page, user.email);
    await page.goto(`${web.base}/console/#/orders/${other.id}`);
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toBe(`No such order: '${other.id}'`);
    expect(await page.content()).not.toContain('Other Omar');
    // Its own order opens on the same page (so the not-found above is about the account, not the page).
    await page.goto(`${web.base}/console/#/board`);
    await page.getByRole('heading', { name: 'Orders', exact: true }).waitFor();
    await page.goto(`${web.base}/console/#/orders/${own.id}`);
    await page.getByRole('heading', { name: /Own Olga/ }).waitFor();
    // Straight from its own order to the other account's: the page must not keep showing the first.
    await page.evaluate(`location.hash = '#/orders/${other.id}'`);
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').textContent()).toBe(`No such order: '${other.id}'`);
    expect(await page.getByRole('heading', { name: /Own Olga/ }).count()).toBe(0);
    await page.context().close();
  });

  it.skipIf(!hasChromium)(
    `a state change with the session cookie but without the CSRF token is refused (403)${skipNote}`,
    async () => {
      const page = await newPage();
      await signIn(page, adminEmail);
      const operatorKeys = async () =>
        (
          await web.t.ctx.db
            .selectFrom('api_keys')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('account_id', 'is', null)
            .executeTakeFirstOrThrow()
        ).n;
      const before = Number(await operatorKeys());
      const post = (csrf: boolean) =>
        page.evaluate(async (withToken) => {
          const headers: Record<string, string> = { 'Content-Type': 'application/json' };
          if (withToken) {
            const s = (await (await fetch('/v1/session', { credentials: 'include' })).json()) as { csrf_token: string };
            headers['X-CSRF-Token'] = s.csrf_token;
          }
          const res = await fetch('/v1/api_keys', {
            method: 'POST',
            credentials: 'include',
            headers,
            body: JSON.stringify({ mode: 'test' }),
          });
          return { status: res.status, body: (await res.json()) as { error?: { code: string } } };
        }, csrf);
      const refused = await post(false);
      expect(refused.status).toBe(403);
      expect(refused.body.error?.code).toBe('csrf_failed');
      expect(Number(await operatorKeys())).toBe(before);
      // The same request with the token passes: the cookie alone was the difference.
      const allowed = await post(true);
      expect(allowed.status).toBe(201);
      expect(Number(await operatorKeys())).toBe(before + 1);
      await page.context().close();
    },
  );

  it.skipIf(!hasChromium)(`the Exceptions page lists failed orders and short collections${skipNote}`, async () => {
    const shop = await newMerchant(web.t, 'Exceptional');
    const op = client(web.t.app, operator);
    const courier = (await op('POST', '/v1/couriers', { name: 'Eva Exc' })).body.id;
    const failed = await orderIn(web.t, shop.test, operator, courier, 'failed', {
      customer: { name: 'Fallida Fabiola', phone: '+51987650001' },
    });
    await orderIn(web.t, shop.test, operator, courier, 'in_transit', {
      customer: { name: 'Viajera Vera', phone: '+51987650002' },
    });
    const short = await orderIn(web.t, shop.test, operator, courier, 'in_transit', {
      customer: { name: 'Corta Carla', phone: '+51987650003' },
      cash_on_delivery: 100,
    });
    expect(
      (
        await op('POST', `/v1/orders/${short.id}/deliver`, {
          receiver_name: 'Carla',
          collected_amount: 60,
          payment_method: 'cash',
        })
      ).status,
    ).toBe(200);
    const dispatcher = await newUser(web.t, 'dispatcher');
    const page = await newPage();
    await signIn(page, dispatcher.email);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Exceptions' }).click();
    await page.getByRole('heading', { name: 'Exceptions', level: 1 }).waitFor();
    const failedTable = page.getByRole('table', { name: 'Failed deliveries' });
    const link = failedTable.getByRole('link', { name: 'Fallida Fabiola' });
    await link.waitFor();
    expect(await failedTable.textContent()).toContain('customer absent');
    expect(await failedTable.textContent()).not.toContain('Viajera Vera');
    expect(await failedTable.textContent()).not.toContain('Corta Carla');
    const shortTable = page.getByRole('table', { name: 'Cash on delivery short' });
    await shortTable.getByRole('link', { name: 'Corta Carla' }).waitFor();
    // What the courier collected beside what it was to collect: the list carries both amounts.
    expect(await shortTable.getByRole('row').filter({ hasText: 'Corta Carla' }).textContent()).toMatch(
      /to collect \D*100\.00\D* · collected \D*60\.00/,
    );
    expect(await shortTable.textContent()).not.toContain('Fallida Fabiola');
    await page.getByText('No over collections.').waitFor();
    await link.click();
    await page.getByRole('heading', { name: /Fallida Fabiola/ }).waitFor();
    expect(page.url()).toContain(`#/orders/${failed.id}`);
    await page.context().close();
  });
});
