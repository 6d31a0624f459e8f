import { expect, it } from 'vitest';
import { hasChromium, openPage, signInPhone, skipNote, submitSignIn, useBrowserApp } from './browser-helpers.js';
import { client, describeEachInBrowser, newMerchant, newOperator, validOrder } from './helpers.js';
import { newUser } from './people-helpers.js';

/**
 * Live dispatch in real browsers (DESIGN §16, docs/dispatch.md): a dispatcher selects a new order
 * on the board, reads the suggested couriers and assigns it in one click; the courier's phone,
 * open on its route, shows the inserted stop at its place without a reload (the stream's `route`
 * message), and again after going offline and back.
 */
describeEachInBrowser('live dispatch in headless Chromium', (engine) => {
  const web = useBrowserApp(engine);

  const person = (name: string, lat: number, lng: number) =>
    validOrder({
      customer: { name, phone: '+51987654321' },
      delivery_address: { address: 'Av. Larco 1', city: 'Lima', lat, lng },
    });

  it.skipIf(!hasChromium)(
    `a new order is suggested and assigned from the board; the phone shows the stop at once${skipNote}`,
    async () => {
      const m = await newMerchant(web.t, 'Acme');
      const mc = client(web.t.app, m.test);
      const operator = await newOperator(web.t, 'test');
      const op = client(web.t.app, operator);
      // A whole-day shift, so the suggestion is feasible whatever the hour the test runs at.
      const courier = (
        await mc('POST', '/v1/couriers', { name: 'Juan Pérez', shift_start: '00:00', shift_end: '23:59' })
      ).body;
      expect((await mc('POST', `/v1/couriers/${courier.id}/location`, { lat: -12.1, lng: -77.03 })).status).toBe(200);
      const first = (await mc('POST', '/v1/orders', person('Rosa Quispe', -12.11, -77.03))).body;
      const last = (await mc('POST', '/v1/orders', person('Carlos Mendoza', -12.13, -77.03))).body;
      expect((await mc('POST', '/v1/routes', { courier_id: courier.id, order_ids: [first.id, last.id] })).status).toBe(
        201,
      );

      // The courier's phone, open on its route.
      const phone = await web.browser.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true });
      const app = await phone.newPage();
      app.setDefaultTimeout(20_000);
      await signInPhone(app, web, operator, courier.id);
      await app.getByRole('heading', { name: "Today's route" }).waitFor();
      const stops = () =>
        app.locator('li[data-order]').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')));
      await expect.poll(stops, { timeout: 15_000 }).toEqual(['Stop 1: Rosa', 'Stop 2: Carlos']);
      await app.evaluate('window.notReloaded = true');

      // A new order between the two stops.
      const fresh = (await mc('POST', '/v1/orders', person('Lucía Vargas', -12.12, -77.03))).body;
      const desk = await openPage(web.browser, { viewport: { width: 1280, height: 800 } });
      const user = await newUser(web.t, 'dispatcher');
      await submitSignIn(desk, web.base, user.email);
      await desk.getByRole('heading', { name: 'Orders' }).waitFor();
      await desk.getByLabel(`Select ${fresh.tracking_code}`).check();
      const panel = desk.getByRole('region', { name: `Suggested couriers for ${fresh.tracking_code}` });
      await panel.locator(`li[data-courier="${courier.id}"]`).waitFor();
      expect(await panel.locator(`li[data-courier="${courier.id}"]`).textContent()).toContain('stop 2');
      await panel.getByRole('button', { name: `Assign ${fresh.tracking_code} to Juan Pérez` }).click();
      await desk.getByRole('status').filter({ hasText: 'inserted as stop 2' }).waitFor();

      const order = (await mc('GET', `/v1/orders/${fresh.id}`)).body;
      expect(order).toMatchObject({ status: 'assigned', courier: { id: courier.id } });
      // The phone shows it at its place, without a reload.
      await expect.poll(stops, { timeout: 15_000 }).toEqual(['Stop 1: Rosa', 'Stop 2: Lucía', 'Stop 3: Carlos']);
      expect(await app.evaluate('window.notReloaded')).toBe(true);
      await app.getByText('Dispatch sent you new stops.').waitFor();

      // Offline while another order is dispatched; back online, the phone catches up.
      await phone.setOffline(true);
      const later = (await mc('POST', '/v1/orders', person('Ana Torres', -12.14, -77.03))).body;
      expect((await op('POST', `/v1/orders/${later.id}/dispatch`, { courier_id: courier.id })).status).toBe(200);
      await phone.setOffline(false);
      await expect
        .poll(stops, { timeout: 20_000 })
        .toEqual(['Stop 1: Rosa', 'Stop 2: Lucía', 'Stop 3: Carlos', 'Stop 4: Ana']);

      // Dispatch re-orders the stops left (here, as a dispatcher could, the other way round): the
      // phone shows the new order and says so.
      const routeId = order.route as string;
      const p = (await op('POST', `/v1/routes/${routeId}/reoptimize`, { time_limit_ms: 200 })).body;
      const reversed = [...p.current.order_ids].reverse();
      const applied = await op('POST', `/v1/routes/${routeId}/reoptimize`, {
        apply: true,
        order_ids: reversed,
        route_version: p.route_version,
      });
      expect(applied.status, JSON.stringify(applied.body)).toBe(200);
      await expect.poll(stops).toEqual(['Stop 1: Ana', 'Stop 2: Carlos', 'Stop 3: Lucía', 'Stop 4: Rosa']);
      await app.getByText('Dispatch re-ordered your stops.').waitFor();
      await phone.close();
      await desk.close();
    },
    60_000,
  );
});
