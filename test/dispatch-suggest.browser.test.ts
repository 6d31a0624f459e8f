import { expect, it } from 'vitest';
import { hasChromium, openPage, skipNote, submitSignIn, useBrowserApp } from './browser-helpers.js';
import { client, describeEachInBrowser, newMerchant, newOperator, validOrder } from './helpers.js';
import { newUser } from './people-helpers.js';

/**
 * Auto-dispatch `suggest` on the board (DESIGN §16, docs/dispatch.md): with the board open and no
 * order selected, a new order opens its suggested couriers by itself when its account's mode is
 * `suggest` (here an account's override of the carrier's `off`, then the carrier's own), and not
 * when it is `off`. A pickup-and-delivery order's suggestion names its pickup's stop too.
 */
describeEachInBrowser('the board opens a new order\u2019s suggestions by itself (auto_dispatch: suggest)', (engine) => {
  const web = useBrowserApp(engine);

  it.skipIf(!hasChromium)(`off: nothing opens; suggest: the new order\u2019s couriers open${skipNote}`, async () => {
    const m = await newMerchant(web.t, 'Acme');
    const mc = client(web.t.app, m.test);
    const op = client(web.t.app, await newOperator(web.t, 'test'));
    const courier = (await mc('POST', '/v1/couriers', { name: 'Juan Pérez', shift_start: '00:00', shift_end: '23:59' }))
      .body;
    expect((await mc('POST', `/v1/couriers/${courier.id}/location`, { lat: -12.1, lng: -77.03 })).status).toBe(200);
    const order = (name: string, extra: Record<string, unknown> = {}) =>
      validOrder({
        customer: { name },
        delivery_address: { address: 'Av. Larco 1', lat: -12.12, lng: -77.03 },
        ...extra,
      });

    const desk = await openPage(web.browser, { viewport: { width: 1280, height: 800 } });
    // The board's stream answers once it is subscribed; an order created before that would reach the
    // board only on its next refresh (its stream starts at the moment it opened, and the list was read
    // before), which under CI's load came after this test's wait.
    const streaming = desk.waitForResponse((r) => new URL(r.url()).pathname === '/v1/stream', { timeout: 30_000 });
    await submitSignIn(desk, web.base, (await newUser(web.t, 'dispatcher')).email);
    await desk.getByRole('heading', { name: 'Orders' }).waitFor();
    await streaming;
    const panels = desk.getByRole('region', { name: /^Suggested couriers for / });

    // off (the default): the new order is listed, nothing opens.
    const quiet = (await mc('POST', '/v1/orders', order('Rosa Quispe'))).body;
    await desk.getByLabel(`Select ${quiet.tracking_code}`).waitFor();
    await desk.waitForTimeout(1000);
    expect(await panels.count()).toBe(0);
    expect(await desk.getByLabel(`Select ${quiet.tracking_code}`).isChecked()).toBe(false);

    // The carrier stays off; this account's override is suggest: the order's own mode decides.
    const set = await op('PATCH', '/v1/dispatch_settings', {
      accounts: [{ account: m.accountId, auto_dispatch: 'suggest' }],
    });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    const fresh = (
      await mc(
        'POST',
        '/v1/orders',
        order('Lucía Vargas', { pickup_address: { address: 'Jr. Flores 45', lat: -12.11, lng: -77.02 } }),
      )
    ).body;
    const panel = desk.getByRole('region', { name: `Suggested couriers for ${fresh.tracking_code}` });
    await panel.locator(`li[data-courier="${courier.id}"]`).waitFor({ timeout: 15_000 });
    expect(await desk.getByLabel(`Select ${fresh.tracking_code}`).isChecked()).toBe(true);
    expect(await panel.locator(`li[data-courier="${courier.id}"]`).textContent()).toMatch(/pickup at stop 1 · stop 2/);
    await desk
      .getByRole('status')
      .filter({ hasText: `New order ${fresh.tracking_code}` })
      .waitFor();

    // While one is open, another new order does not take its place.
    const other = (await mc('POST', '/v1/orders', order('Ana Torres'))).body;
    await desk.getByLabel(`Select ${other.tracking_code}`).waitFor();
    await desk.waitForTimeout(1000);
    expect(await panels.count()).toBe(1);
    expect(await panel.count()).toBe(1);

    // Assigning it closes the panel; the carrier's own suggest then opens the next new order.
    await panel.getByRole('button', { name: `Assign ${fresh.tracking_code} to Juan Pérez` }).click();
    await desk.getByRole('status').filter({ hasText: 'inserted as stop' }).waitFor();
    expect(
      (
        await op('PATCH', '/v1/dispatch_settings', {
          auto_dispatch: 'suggest',
          accounts: [{ account: m.accountId, auto_dispatch: null }],
        })
      ).status,
    ).toBe(200);
    const next = (await mc('POST', '/v1/orders', order('Carlos Mendoza'))).body;
    await desk
      .getByRole('region', { name: `Suggested couriers for ${next.tracking_code}` })
      .locator(`li[data-courier="${courier.id}"]`)
      .waitFor({ timeout: 15_000 });
    await desk.close();
  });
});
