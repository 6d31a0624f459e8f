import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { Dispatcher } from '../src/features/webhooks/dispatcher.js';
import { addDays, localDay } from '../src/shared/local-time.js';
import { hasChromium, openPage, skipNote, submitSignIn, useBrowserApp } from './browser-helpers.js';
import { client, describeEachInBrowser, type Merchant, newMerchant, newOperator, validOrder } from './helpers.js';
import { orderIn } from './lifecycle-helpers.js';
import { newUser, sessionClient, userSession } from './people-helpers.js';
import { Receiver, waitFor } from './webhook-receiver.js';

const LIMA = 'America/Lima';

/**
 * Issue #18, defects 12 and 13, in the console: a carrier in Lima (RUTA_DEFAULT_TIMEZONE), its
 * dispatcher's browser set to Tokyo (14 hours ahead, so the two days differ most of the time). The
 * board's "today" is Lima's, and shows the orders requested for Lima's today; the order page says
 * the day in Lima's zone, named; a reschedule sends the picked day; a courier's shift is set in
 * its form. The other pages' times (keys, invitations, a webhook endpoint's attempt log, Exceptions)
 * are Lima's too, named, for a browser in Madrid.
 */
describeEachInBrowser('console local days in headless Chromium', (engine) => {
  let m: Merchant;
  let op: string;
  let rx: Receiver;
  let dispatcher: { stop(): Promise<void> } | undefined;
  const today = () => localDay(Date.now(), LIMA);

  const web = useBrowserApp(
    engine,
    // The webhook receiver is a local address (no DNS, no TLS in tests).
    { RUTA_DEFAULT_TIMEZONE: LIMA, RUTA_WEBHOOK_ALLOW_INSECURE: '1' },
    {
      setup: async (t) => {
        m = await newMerchant(t, 'Bodega Lima');
        op = await newOperator(t);
        // An endpoint answering 410 Gone: its delivery fails for good and the endpoint is disabled.
        rx = await new Receiver().start();
        rx.respond = () => ({ status: 410 });
        dispatcher = new Dispatcher(t.ctx, { pollMs: 20 }).start();
      },
      teardown: async () => {
        await dispatcher?.stop();
        await rx?.close();
      },
    },
  );

  async function order(name: string, requested: string) {
    const res = await client(web.t.app, m.test)(
      'POST',
      '/v1/orders',
      validOrder({ customer: { name, phone: '+51987654321' }, requested_date: requested }),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body;
  }

  async function signedIn(
    role: 'dispatcher' | 'admin' | 'merchant' = 'dispatcher',
    timezoneId = 'Asia/Tokyo',
    account?: string,
  ): Promise<Page> {
    const page = await openPage(web.browser, { viewport: { width: 1280, height: 800 }, timezoneId, locale: 'en-US' });
    const user = await newUser(web.t, role, account);
    await submitSignIn(page, web.base, user.email);
    await page.getByRole('heading', { name: 'Orders' }).waitFor();
    return page;
  }

  /** An instant as the console shows it to a person in Lima, the zone named (whenIn, web/src/shared/api.ts). */
  const inLima = (iso: string) =>
    `${new Date(iso).toLocaleString('en-US', { dateStyle: 'medium', timeStyle: 'short', timeZone: LIMA })} (${LIMA})`;
  /** Text with its spaces as one kind: ICU puts a narrow no-break space before AM and PM. */
  const plain = (s: string | null) => (s ?? '').replace(/\s+/g, ' ');
  const textOf = async (l: { textContent(): Promise<string | null> }) => plain(await l.textContent());

  it.skipIf(!hasChromium)(`the board's today is Lima's, with Lima's orders of the day${skipNote}`, async () => {
    const day = today();
    const mine = await order('Hoy Lima', day);
    await order('Mañana Lima', addDays(day, 1));
    await order('Ayer Lima', addDays(day, -1));
    const page = await signedIn();
    expect(await page.getByLabel('Day', { exact: true }).inputValue()).toBe(day);
    const row = page.locator('.row', { hasText: 'Hoy Lima' });
    await row.waitFor();
    expect(await page.locator('.row', { hasText: 'Mañana Lima' }).count()).toBe(0);
    expect(await page.locator('.row', { hasText: 'Ayer Lima' }).count()).toBe(0);
    // The due day in the order's zone, named, without a time: it was requested as a day.
    const due = (await row.locator('.time').textContent()) ?? '';
    expect(due).toContain(`(${LIMA})`);
    expect(due).not.toMatch(/\d:\d\d/);

    // The order page says the same, and a reschedule sends the picked day, read in Lima.
    await row.getByRole('link', { name: 'Hoy Lima' }).click();
    await page.getByRole('button', { name: 'Reschedule' }).click();
    const next = addDays(day, 3);
    await page.getByLabel('New date').fill(next);
    await page.getByRole('form', { name: 'Reschedule' }).getByRole('button', { name: 'Reschedule' }).click();
    await expect
      .poll(async () => (await client(web.t.app, op)('GET', `/v1/orders/${mine.id}`)).body.requested_day, {
        timeout: 8000,
      })
      .toBe(next);
    const after = (await client(web.t.app, op)('GET', `/v1/orders/${mine.id}`)).body;
    expect(after.requested_date).toBe(`${next}T00:00:00-05:00`);
    await page.context().close();
  });

  it.skipIf(!hasChromium)(
    `sets a courier's shift, capacity, depots and constraints in its form${skipNote}`,
    async () => {
      const depot = (await client(web.t.app, op)('POST', '/v1/depots', { name: 'Surquillo', lat: -12.11, lng: -77.02 }))
        .body;
      const page = await signedIn();
      await page.getByRole('link', { name: 'Couriers' }).click();
      const form = page.getByRole('form', { name: 'New courier' });
      await form.getByLabel('Name').fill('Turno Mañana');
      await form.getByLabel('Shift starts').fill('09:00');
      await form.getByLabel('Shift ends').fill('17:30');
      await form.getByLabel('Capacity (kg)').fill('40.5');
      await form.getByLabel('Capacity (packages)').fill('25');
      await form.getByLabel('Starts at depot').selectOption(depot.id);
      // Issue #21's constraints in the same form.
      await form.getByLabel('Skills').fill('cold, Large');
      await form.getByLabel('Break from').fill('12:00');
      await form.getByLabel('Break starts by').fill('14:00');
      await form.getByLabel('Break (min)').fill('30');
      await form.getByLabel('Most stops').fill('20');
      await form.getByLabel('Route ends').selectOption('last_stop');
      await form.getByRole('button', { name: 'Add courier' }).click();
      const card = page.locator('li.card', { hasText: 'Turno Mañana' });
      await card.waitFor();
      // The sign-in code's expiry in the carrier's zone, named, not the browser's (Tokyo here).
      await card.getByRole('button', { name: 'Sign in a phone' }).click();
      await card
        .getByRole('status')
        .getByText(/valid until .+ \(America\/Lima\), single use/)
        .waitFor();
      const list = (await client(web.t.app, op)('GET', '/v1/couriers?limit=100')).body.data;
      expect(list.find((c: { name: string }) => c.name === 'Turno Mañana')).toMatchObject({
        shift_start: '09:00',
        shift_end: '17:30',
        capacity_kg: 40.5,
        capacity_packages: 25,
        start_depot: depot.id,
        end_depot: null,
        skills: ['cold', 'large'],
        break: { earliest: '12:00', latest: '14:00', duration_min: 30 },
        max_stops: 20,
        max_route_minutes: null,
        route_end: 'last_stop',
      });
      await page.context().close();
    },
  );

  it.skipIf(!hasChromium)(
    `keys, invitations, the attempt log and Exceptions show Lima's times, named, in a browser in Madrid${skipNote}`,
    // A webhook endpoint disabled, a cash day resolved and three sign-ins: past 30 s on a loaded machine.
    { timeout: 90_000 },
    async () => {
      const admin = sessionClient(web.t, await userSession(web.t, 'admin'));
      const opc = client(web.t.app, op);

      // An operator key rolled (the old one expires in 24 h) and its successor revoked.
      const made = (await admin('POST', '/v1/api_keys', { mode: 'test' })).body;
      const rolled = (await admin('POST', `/v1/api_keys/${made.id}/roll`, {})).body;
      expect((await admin('DELETE', `/v1/api_keys/${rolled.id}`)).status).toBe(200);
      const keys = (await admin('GET', '/v1/api_keys')).body.data as {
        id: string;
        display: string;
        created_at: string;
        expires_at: string | null;
        revoked_at: string | null;
      }[];
      const old = keys.find((k) => k.id === made.id);
      const gone = keys.find((k) => k.id === rolled.id);
      expect(old?.expires_at).toBeTruthy();
      expect(gone?.revoked_at).toBeTruthy();

      // A webhook delivery failed for good, its endpoint disabled (410), and a courier's short day resolved.
      const shop = await newMerchant(web.t, 'Webhooks Lima');
      const mk = client(web.t.app, shop.test);
      const ep = (await mk('POST', '/v1/webhook_endpoints', { url: rx.url('/gone'), events: ['order.created'] })).body;
      expect((await mk('POST', '/v1/orders', validOrder({ external_order_id: 'TZ-1' }))).status).toBe(201);
      const disabled = await waitFor(async () => {
        const e = (await mk('GET', `/v1/webhook_endpoints/${ep.id}`)).body;
        return e.status === 'disabled' ? (e as { disabled_at: string }) : false;
      });
      const failed = await waitFor(async () => {
        const list = (await opc('GET', '/v1/webhook_deliveries?status=failed')).body.data as {
          endpoint: string;
          completed_at: string;
        }[];
        return list.find((d) => d.endpoint === ep.id) ?? false;
      });
      const attempt = (await mk('GET', `/v1/webhook_endpoints/${ep.id}/deliveries`)).body.data[0] as {
        event: string;
        started_at: string;
      };
      const courier = (await opc('POST', '/v1/couriers', { name: 'Caja Lima' })).body.id as string;
      const cod = await orderIn(web.t, m.test, op, courier, 'in_transit', { cash_on_delivery: 50 });
      const deliver = { receiver_name: 'Rosa', collected_amount: 50, payment_method: 'cash' };
      expect((await opc('POST', `/v1/orders/${cod.id}/deliver`, deliver)).status).toBe(200);
      const currency = (await opc('GET', `/v1/orders/${cod.id}`)).body.currency as string;
      const handover = { amount: 40, currency, received_by: 'Caja 1' };
      expect((await opc('POST', `/v1/couriers/${courier}/cash_handovers`, handover)).status).toBe(201);
      const short = (await opc('GET', '/v1/cash/exceptions')).body.data.find(
        (x: { courier: { id: string } }) => x.courier.id === courier,
      );
      const resolved = await opc('POST', `/v1/cash/exceptions/${short.id}/resolve`, { note: 'Vuelto dado' });
      expect(resolved.status, JSON.stringify(resolved.body)).toBe(200);
      const resolvedAt = resolved.body.resolution.resolved_at as string;

      // The admin, in Madrid (six or seven hours ahead of Lima): the operator keys.
      const page = await signedIn('admin', 'Europe/Madrid');
      const nav = page.getByRole('navigation', { name: 'Main' });
      await nav.getByRole('link', { name: 'Operator keys' }).click();
      const table = page.getByRole('table', { name: 'Operator keys' });
      const oldRow = table.getByRole('row').filter({ hasText: made.id });
      const goneRow = table.getByRole('row').filter({ hasText: rolled.id });
      await oldRow.waitFor();
      const oldText = await textOf(oldRow);
      expect(oldText).toContain(plain(inLima(old?.created_at as string)));
      expect(oldText).toContain(plain(inLima(old?.expires_at as string)));
      expect(await textOf(goneRow)).toContain(plain(inLima(gone?.revoked_at as string)));

      // Users: the invitation's "valid until", and its Sent and Expires in the open invitations.
      await nav.getByRole('link', { name: 'Users' }).click();
      const email = `lima-${engine}@example.com`;
      await page.getByLabel('Email').fill(email);
      await page.getByRole('button', { name: 'Invite' }).click();
      const shown = page.getByRole('status').filter({ hasText: 'Invitation link' });
      await shown.waitFor();
      const invitation = (
        (await admin('GET', '/v1/invitations')).body.data as { email: string; created_at: string; expires_at: string }[]
      ).find((i) => i.email === email);
      expect(await textOf(shown)).toContain(`valid until ${plain(inLima(invitation?.expires_at as string))}.`);
      const invited = page.getByRole('table', { name: 'Open invitations' }).getByRole('row').filter({ hasText: email });
      const invitedText = await textOf(invited);
      expect(invitedText).toContain(plain(inLima(invitation?.created_at as string)));
      expect(invitedText).toContain(plain(inLima(invitation?.expires_at as string)));

      // Exceptions: the failed delivery, the disabled endpoint, the resolved cash day.
      await nav.getByRole('link', { name: 'Exceptions' }).click();
      const delivery = page
        .getByRole('table', { name: 'Failed webhook deliveries' })
        .getByRole('row')
        .filter({ hasText: rx.url('/gone') });
      await delivery.waitFor();
      expect(await textOf(delivery)).toContain(plain(inLima(failed.completed_at)));
      const endpoint = page
        .getByRole('table', { name: 'Disabled webhook endpoints' })
        .getByRole('row')
        .filter({ hasText: ep.id });
      expect(await textOf(endpoint)).toContain(plain(inLima(disabled.disabled_at)));
      await page.locator('section[aria-labelledby="exc-cash"] select').selectOption('resolved');
      const cash = page
        .getByRole('table', { name: 'Courier cash exceptions' })
        .getByRole('row')
        .filter({ hasText: 'Vuelto dado' });
      await cash.waitFor();
      expect(await textOf(cash)).toContain(plain(inLima(resolvedAt)));
      await page.context().close();

      // The merchant, in Madrid too: its endpoint's attempt log.
      const merchant = await signedIn('merchant', 'Europe/Madrid', shop.accountId);
      await merchant.goto(`${web.base}/console/#/webhooks/${ep.id}`);
      await merchant.getByRole('heading', { name: 'Attempt log' }).waitFor();
      const row = merchant.getByRole('row').filter({ hasText: attempt.event });
      await row.waitFor();
      expect(await textOf(row)).toContain(plain(inLima(attempt.started_at)));
      await merchant.context().close();
    },
  );
});
