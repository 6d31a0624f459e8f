import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { hasChromium, heldDay, IMAGES, openPage, skipNote, submitSignIn, useBrowserApp } from './browser-helpers.js';
import { client, describeEachInBrowser, newMerchant, newOperator, validOrder } from './helpers.js';
import { newUser } from './people-helpers.js';

/**
 * Re-optimizing a route under way from its route page (docs/dispatch.md, DESIGN §16): the proposal
 * with its saving beside the current order, on the map and in two lists, applied only on request;
 * a proposal the route has moved past is refused (409) and taken off the page. The server's day is
 * held at 09:00 in Lima; every order and courier here is this test's merchant's own.
 */
describeEachInBrowser('the console re-optimizes a route under way', (engine) => {
  const day = heldDay('America/Lima', '09:00');
  const web = useBrowserApp(engine, { RUTA_DEFAULT_TIMEZONE: 'America/Lima' }, { clock: day.clock });

  it.skipIf(!hasChromium)(`proposes, shows the saving and applies${skipNote}`, async () => {
    const mc = client(web.t.app, (await newMerchant(web.t, 'Reopt')).test);
    const tag = Math.random().toString(36).slice(2, 6);
    const rosa = (await mc('POST', '/v1/couriers', { name: `Rosa ${tag}`, shift_start: '00:00', shift_end: '23:59' }))
      .body;
    // North of four stops on two parallel streets; the route goes far first and zig-zags back.
    expect((await mc('POST', `/v1/couriers/${rosa.id}/location`, { lat: -12.1, lng: -77.03 })).status).toBe(200);
    const at = async (street: string, lat: number, lng: number) => {
      const body = validOrder({ delivery_address: { address: street, district: 'Surquillo', lat, lng } });
      const res = await mc('POST', '/v1/orders', body);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body;
    };
    const far = await at('Av. Lejana 400', -12.14, -77.04);
    const near = await at('Jr. Cercano 100', -12.11, -77.02);
    const middle = await at('Calle Media 250', -12.125, -77.04);
    const extra = await at('Psje. Extra 300', -12.13, -77.02);
    const made = await mc('POST', '/v1/routes', {
      courier_id: rosa.id,
      order_ids: [far.id, near.id, middle.id, extra.id],
      date: day.date,
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const route = made.body;

    const page = await openPage(web.browser, { viewport: { width: 1280, height: 1000 } });
    await page.context().clock.setSystemTime(day.now());
    await submitSignIn(page, web.base, (await newUser(web.t, 'dispatcher')).email);
    await page.getByRole('heading', { name: 'Orders' }).waitFor();
    await page.goto(`${web.base}/console/#/routes/${route.id}`);
    await page.getByRole('heading', { name: `Route · Rosa ${tag}` }).waitFor();
    const stopsTable = page.locator('table.route-stops');
    await stopsTable.getByText('Jr. Cercano 100, Surquillo').waitFor();
    const tableOrder = () => stopsTable.locator('tbody tr').evaluateAll((rows) => rows.map((r) => r.dataset.order));
    expect(await tableOrder()).toEqual([far.id, near.id, middle.id, extra.id]);

    // The proposal: nothing changes yet.
    await page.getByRole('button', { name: 'Re-optimize' }).click();
    const saving = page.locator('.proposal .saving');
    await saving.waitFor();
    expect(await saving.textContent()).toMatch(
      /^Saves \d+\.\d km and \d+ min: [\d.]+ km → [\d.]+ km, ending at \d+:\d\d AM instead of \d+:\d\d AM\. Setting off from Rosa .+’s last position at 9:0\d AM \(America\/Lima\)\./,
    );
    // The lists give each stop's arrival; the saving line, when the route ends (after the last stop's service).
    expect(await page.getByRole('region', { name: 'Proposed order' }).locator('li').first().textContent()).toMatch(
      / arrives \d+:\d\d AM$/,
    );
    const listed = (name: string) =>
      page
        .getByRole('region', { name })
        .locator('li')
        .evaluateAll((items) => items.map((li) => li.getAttribute('data-order')));
    expect(await listed('Current order')).toEqual([far.id, near.id, middle.id, extra.id]);
    // Down the east street, then back along the west one (by hand: 7.7 km against 9.0 zig-zagging).
    expect(await listed('Proposed order')).toEqual([near.id, extra.id, middle.id, far.id]);
    const map = page.getByRole('region', { name: /Map of the current order/ });
    expect(await map.locator('path.current-path').count()).toBe(1);
    expect(await map.locator('path.proposed-path').count()).toBe(1);
    expect(await map.locator('.stop-number').allTextContents()).toEqual(['1', '2', '3', '4']);
    expect(await tableOrder()).toEqual([far.id, near.id, middle.id, extra.id]);
    mkdirSync(IMAGES, { recursive: true });
    if (engine === 'sqlite') await page.screenshot({ path: join(IMAGES, 'console-reoptimize.png'), fullPage: true });

    // A proposal the route has moved past: refused, and taken away rather than applied.
    const stale = await mc('POST', `/v1/orders/${extra.id}/cancel`, {});
    expect(stale.status).toBe(200);
    // The route page follows the stream: the cancelled stop shows without a reload.
    await stopsTable.locator(`tr[data-order="${extra.id}"]`).getByText('cancelled').waitFor();
    await page.getByRole('button', { name: 'Apply this order' }).click();
    await page
      .getByRole('alert')
      .getByText(/changed since the proposal/)
      .waitFor();
    expect(await page.locator('.proposal').count()).toBe(0);

    // Asked again and applied: the route page shows the new order, as the API does.
    await page.getByRole('button', { name: 'Re-optimize' }).click();
    await saving.waitFor();
    expect(await listed('Proposed order')).toEqual([near.id, middle.id, far.id]);
    await page.getByRole('button', { name: 'Apply this order' }).click();
    await page
      .getByRole('status')
      .getByText(/^Applied: the route saves .+ phone shows the new order\.$/)
      .waitFor();
    await expect.poll(tableOrder).toEqual([extra.id, near.id, middle.id, far.id]);
    const read = await mc('GET', `/v1/routes/${route.id}`);
    expect(read.body.stops.map((s: { order: string }) => s.order)).toEqual([extra.id, near.id, middle.id, far.id]);

    // An order inserted into the route elsewhere (another dispatcher, auto-dispatch): its `route`
    // message brings it onto the open page.
    const late = await at('Av. Tardía 500', -12.12, -77.03);
    const op = client(web.t.app, await newOperator(web.t, 'test'));
    const sent = await op('POST', `/v1/orders/${late.id}/dispatch`, { courier_id: rosa.id });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    await stopsTable.locator(`tr[data-order="${late.id}"]`).waitFor();
    await page.context().close();
  });

  it.skipIf(!hasChromium)(`a Madrid route seen from a Lima desk is timed in Madrid${skipNote}`, async () => {
    const op = client(web.t.app, await newOperator(web.t));
    const mc = client(web.t.app, (await newMerchant(web.t, 'Madrid')).test);
    const depot = await op('POST', '/v1/depots', {
      name: 'Madrid Sur',
      lat: 40.4,
      lng: -3.7,
      timezone: 'Europe/Madrid',
    });
    expect(depot.status, JSON.stringify(depot.body)).toBe(201);
    const pablo = (
      await op('POST', '/v1/couriers', {
        name: 'Pablo Madrid',
        start_depot: depot.body.id,
        shift_start: '00:00',
        shift_end: '23:59',
      })
    ).body;
    expect((await op('POST', `/v1/couriers/${pablo.id}/location`, { lat: 40.41, lng: -3.7 })).status).toBe(200);
    const at = async (street: string, lat: number) =>
      (
        await mc(
          'POST',
          '/v1/orders',
          validOrder({ delivery_address: { address: street, city: 'Madrid', lat, lng: -3.7 } }),
        )
      ).body;
    // A zig-zag north of the courier: far, near, then between them.
    const stops = [
      await at('Calle Lejos 1', 40.46),
      await at('Calle Cerca 2', 40.42),
      await at('Calle Media 3', 40.44),
    ];
    const made = await op('POST', '/v1/routes', {
      courier_id: pablo.id,
      order_ids: stops.map((o) => o.id),
      date: day.date,
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);

    // A Lima dispatcher at 9:00 AM: it is 3:00 PM in Madrid, where the courier's shift is read.
    const page = await openPage(web.browser, { viewport: { width: 1024, height: 768 } });
    await page.context().clock.setSystemTime(day.now());
    await submitSignIn(page, web.base, (await newUser(web.t, 'dispatcher')).email);
    await page.getByRole('heading', { name: 'Orders' }).waitFor();
    await page.goto(`${web.base}/console/#/routes/${made.body.id}`);
    await page.getByRole('heading', { name: 'Route · Pablo Madrid' }).waitFor();
    await page.getByRole('button', { name: 'Re-optimize' }).click();
    const saving = page.locator('.proposal .saving');
    await saving.waitFor();
    expect(await saving.textContent()).toMatch(
      /ending at \d+:\d\d PM instead of \d+:\d\d PM\. Setting off from Pablo Madrid’s last position at 3:0\d PM \(Europe\/Madrid\)\.$/,
    );
    expect(await page.locator('.proposal-legs section[aria-label="Proposed order"]').textContent()).toMatch(
      /arrives \d+:\d\d PM.*arrives \d+:\d\d PM.*arrives \d+:\d\d PM/,
    );
    await page.context().close();
  });
});
