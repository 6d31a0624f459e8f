import { expect, it } from 'vitest';
import { hasChromium, heldDay, openPage, skipNote, submitSignIn, useBrowserApp } from './browser-helpers.js';
import { client, describeEachInBrowser, newMerchant, newOperator, validOrder } from './helpers.js';
import { newUser } from './people-helpers.js';

/**
 * What the board's *Suggested couriers* panel says (docs/dispatch.md, "In the console"): a wait at
 * the order's window (it arrives early and starts when the window opens), the later stops an
 * insertion delays even when the route's end does not move, and the couriers on duty that could
 * not be ranked, with why (rather than "no courier is on duty"). The server's day is held at 08:00
 * UTC (the carrier's zone); every order and courier here is this test's merchants' own.
 */
describeEachInBrowser('the suggestions panel says when a stop waits, what it delays and who is left out', (engine) => {
  const day = heldDay('UTC', '08:00');
  const web = useBrowserApp(engine, {}, { clock: day.clock });

  it.skipIf(!hasChromium)(`waits, delays and unavailable couriers are shown${skipNote}`, async () => {
    const m = await newMerchant(web.t, 'Panel');
    const mc = client(web.t.app, m.test);
    const order = (name: string, lat: number, extra: Record<string, unknown> = {}) =>
      validOrder({ customer: { name }, delivery_address: { address: 'Av. Arequipa 1', lat, lng: -77.03 }, ...extra });
    const created = async (body: Record<string, unknown>) => {
      const res = await mc('POST', '/v1/orders', body);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body;
    };
    const courier = async (name: string, lat: number) => {
      const c = (await mc('POST', '/v1/couriers', { name, shift_start: '00:00', shift_end: '23:59' })).body;
      expect((await mc('POST', `/v1/couriers/${c.id}/location`, { lat, lng: -77.03 })).status).toBe(200);
      return c;
    };
    // Diego, north, has no route. Carmen, south, has two stops, the last one waiting for its 12:00–13:00
    // window: her route ends when it does whatever comes before.
    const diego = await courier('Diego', -12.05);
    const carmen = await courier('Carmen', -12.2);
    const noon = { time_window: { start: '12:00', end: '13:00' } };
    const s1 = await created(order('Stop Uno', -12.22));
    const s2 = await created(order('Stop Dos', -12.225, noon));
    const route = await mc('POST', '/v1/routes', { courier_id: carmen.id, order_ids: [s1.id, s2.id], date: day.date });
    expect(route.status, JSON.stringify(route.body)).toBe(201);
    // A 09:00–11:00 order a few minutes from Diego: he is there after 08:00 and waits for 09:00.
    const early = await created(order('Rosa Quispe', -12.06, { time_window: { start: '09:00', end: '11:00' } }));
    // An order on Carmen's way to her stops: it costs her nothing at the end (she waits for noon
    // anyway), but both stops are reached later.
    const onTheWay = await created(order('Lucía Vargas', -12.21));

    const desk = await openPage(web.browser, { viewport: { width: 1280, height: 800 } });
    // The board lists the page's today: the held day.
    await desk.context().clock.setSystemTime(day.now());
    await submitSignIn(desk, web.base, (await newUser(web.t, 'dispatcher')).email);
    await desk.getByRole('heading', { name: 'Orders' }).waitFor();
    const panelOf = (code: string) => desk.getByRole('region', { name: `Suggested couriers for ${code}` });
    const select = async (code: string, on: boolean) => {
      const box = desk.getByLabel(`Select ${code}`);
      await box.waitFor();
      await box.setChecked(on);
    };

    await select(early.tracking_code, true);
    const diegoRow = panelOf(early.tracking_code).locator(`li[data-courier="${diego.id}"]`);
    await diegoRow.waitFor();
    expect(await diegoRow.locator('small.wait').textContent()).toMatch(
      /^Arrives .+, waits \d+ min: starts at 0?9:00.*, when its 09:00–11:00 window opens$/,
    );
    await select(early.tracking_code, false);

    await select(onTheWay.tracking_code, true);
    const carmenRow = panelOf(onTheWay.tracking_code).locator(`li[data-courier="${carmen.id}"]`);
    await carmenRow.waitFor();
    expect(await carmenRow.textContent()).toMatch(/stop 1 · \+[\d.]+ km · route ends \+0 min/);
    expect(await carmenRow.locator('small.delay').textContent()).toMatch(/^2 later stops (up to )?\d+ min later$/);
    await select(onTheWay.tracking_code, false);

    // Another merchant: no courier at all, then one with a route of the day but nowhere to start from.
    const other = client(web.t.app, (await newMerchant(web.t, 'Nobody')).test);
    const alone = (await other('POST', '/v1/orders', order('Ana Torres', -12.1))).body;
    await select(alone.tracking_code, true);
    await panelOf(alone.tracking_code).getByText('No courier is on duty for this order’s day.').waitFor();
    await select(alone.tracking_code, false);
    const luis = (await other('POST', '/v1/couriers', { name: 'Luis' })).body;
    const his = (await other('POST', '/v1/orders', order('Carlos Mendoza', -12.11))).body;
    expect((await other('POST', '/v1/routes', { courier_id: luis.id, order_ids: [his.id] })).status).toBe(201);
    await select(alone.tracking_code, true);
    const panel = panelOf(alone.tracking_code);
    await panel.getByText('No courier can be ranked for this order’s day:').waitFor();
    expect(await panel.locator(`[data-unavailable="${luis.id}"]`).textContent()).toMatch(
      /^Luis has route .* but nowhere to start from.*Give the courier a start depot/,
    );
    expect(await panel.getByText('No courier is on duty').count()).toBe(0);
    await desk.close();
  });

  it.skipIf(!hasChromium)(`an order assigned by someone else meanwhile: the panel says so${skipNote}`, async () => {
    const m = await newMerchant(web.t, 'Meanwhile');
    const mc = client(web.t.app, m.test);
    const courier = async (name: string, lat: number) => {
      const c = (await mc('POST', '/v1/couriers', { name, shift_start: '00:00', shift_end: '23:59' })).body;
      expect((await mc('POST', `/v1/couriers/${c.id}/location`, { lat, lng: -77.03 })).status).toBe(200);
      return c;
    };
    const ana = await courier('Ana', -12.06);
    const beto = await courier('Beto', -12.07);
    const body = validOrder({
      customer: { name: 'Rosa Quispe' },
      delivery_address: { address: 'Av. Brasil 9', lat: -12.065, lng: -77.03 },
    });
    const order = (await mc('POST', '/v1/orders', body)).body;
    const desk = await openPage(web.browser, { viewport: { width: 1024, height: 768 } });
    await desk.context().clock.setSystemTime(day.now());
    await submitSignIn(desk, web.base, (await newUser(web.t, 'dispatcher')).email);
    await desk.getByLabel(`Select ${order.tracking_code}`).setChecked(true);
    const panel = desk.getByRole('region', { name: `Suggested couriers for ${order.tracking_code}` });
    await panel.locator(`li[data-courier="${beto.id}"]`).waitFor();
    expect(await panel.locator('[data-assigned]').count()).toBe(0);
    // Another dispatcher puts it on Ana's route while the panel is open: the board's row shows it on
    // the stream, and the panel, ranked again, says so before Assign would take it off her route.
    const op = client(web.t.app, await newOperator(web.t));
    const other = await op('POST', `/v1/orders/${order.id}/dispatch`, { courier_id: ana.id });
    expect(other.status, JSON.stringify(other.body)).toBe(200);
    await panel.locator(`[data-assigned="${ana.id}"]`).waitFor();
    expect(await panel.locator('[data-assigned]').textContent()).toBe(
      'Already assigned to Ana. Assign moves it to another courier\u2019s route.',
    );
    await panel.locator(`li[data-courier="${beto.id}"]`).waitFor();
    await desk.getByRole('button', { name: `Assign ${order.tracking_code} to Beto` }).click();
    await desk
      .getByText(`${order.tracking_code} inserted as stop 1 of Beto\u2019s route (taken off Ana\u2019s).`)
      .waitFor();
    await desk.close();
  });
});
