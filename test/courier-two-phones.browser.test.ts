import type { BrowserContext, Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { hasChromium, signInPhone, skipNote, useBrowserApp } from './browser-helpers.js';
import { client, describeEachInBrowser, newMerchant, newOperator, validOrder } from './helpers.js';

// The phone reads its route again every 10 s while on screen (useRouteLive): a wait, with room for
// a loaded machine, not a sleep.
const RELOADED = { timeout: 30_000, interval: 500 };

/**
 * One courier signed in on two phones (a spare, a phone lent for the day). A move made on one
 * comes to the other in no stream message (a courier session gets no order events), so the other
 * reads its route again on its own; and a move it sends that the first phone, or dispatch, had
 * already made is no error to show in red, while a real refusal stays one.
 */
describeEachInBrowser('courier app: the same courier on two phones', (engine) => {
  let operator: string;
  let merchantKey: string;
  const web = useBrowserApp(
    engine,
    {},
    {
      setup: async (t) => {
        operator = await newOperator(t, 'test');
        merchantKey = (await newMerchant(t, 'Librería Andes')).test;
      },
    },
  );

  /** A courier of the test's own with a route of `names`, each a plain stop (no cash, no proof asked). */
  async function routeOf(names: string[]): Promise<{ courierId: string; ids: string[] }> {
    const op = client(web.t.app, operator);
    const m = client(web.t.app, merchantKey);
    const courier = (await op('POST', '/v1/couriers', { name: `Rider of ${names[0]}` })).body;
    const ids: string[] = [];
    for (const [i, name] of names.entries()) {
      const body = validOrder({
        customer: { name, phone: `+5198765200${i}` },
        delivery_address: { address: `Jr. Doble ${i + 1}`, district: 'Lince', lat: -12.08 - i / 100, lng: -77.03 },
        cash_on_delivery: 0,
        requires_signature: false,
        requires_photo: false,
      });
      ids.push((await m('POST', '/v1/orders', body)).body.id);
    }
    expect((await op('POST', '/v1/routes', { courier_id: courier.id, order_ids: ids })).status).toBe(201);
    return { courierId: courier.id, ids };
  }

  async function phone(courierId: string): Promise<[BrowserContext, Page]> {
    const context = await web.browser.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await signInPhone(page, web, operator, courierId);
    await page.getByRole('heading', { name: "Today's route" }).waitFor();
    return [context, page];
  }

  async function deliver(page: Page, orderId: string): Promise<void> {
    await page.locator(`li.stop[data-order="${orderId}"]`).getByRole('button', { name: 'Deliver' }).click();
    await page.getByRole('button', { name: 'Confirm delivery' }).click();
  }

  const stopOf = (page: Page, id: string) => page.locator(`li.stop[data-order="${id}"]`);

  it.skipIf(!hasChromium)(
    `the second phone follows what the first one does, without a tap${skipNote}`,
    async () => {
      const { courierId, ids } = await routeOf(['Ana Paz', 'Bruno Díaz', 'Celia Mora']);
      const [a, one] = await phone(courierId);
      const [b, two] = await phone(courierId);
      await two.getByRole('button', { name: 'Start route (3 stops)' }).waitFor();

      await one.getByRole('button', { name: 'Start route (3 stops)' }).click();
      await one.getByText('All synced').waitFor({ timeout: 20_000 });
      await expect.poll(() => two.getByRole('button', { name: /Start route/ }).count(), RELOADED).toBe(0);
      await stopOf(two, ids[1]!).getByRole('button', { name: 'Deliver' }).waitFor();

      await deliver(one, ids[1]!);
      await one.getByText('1 of 3 done').waitFor();
      await one.getByText('All synced').waitFor({ timeout: 20_000 });
      await expect.poll(() => stopOf(two, ids[1]!).count(), RELOADED).toBe(0);
      await two.getByText('1 of 3 done').waitFor();
      await a.close();
      await b.close();
    },
    90_000,
  );

  it.skipIf(!hasChromium)(
    `a move the other phone already made is a quiet note, not a refusal${skipNote}`,
    async () => {
      const { courierId, ids } = await routeOf(['Dora Vidal', 'Bruno Díaz', 'Elsa Quispe']);
      const [a, one] = await phone(courierId);
      const [b, two] = await phone(courierId);
      const op = client(web.t.app, operator);
      await one.getByRole('button', { name: 'Start route (3 stops)' }).waitFor();

      // Phone B, out of coverage, still sees the route unstarted when A starts it.
      await two.getByRole('button', { name: 'Start route (3 stops)' }).waitFor();
      await b.setOffline(true);
      await one.getByRole('button', { name: 'Start route (3 stops)' }).click();
      await one.getByText('All synced').waitFor({ timeout: 20_000 });
      await two.getByRole('button', { name: 'Start route (3 stops)' }).click();
      await two.getByText('3 waiting to sync').waitFor();
      await b.setOffline(false);
      await two.getByText('All synced').waitFor({ timeout: 20_000 });
      await two.locator('p.note', { hasText: '3 stops already done from another phone or by dispatch' }).waitFor();
      expect(await two.getByRole('alert').count()).toBe(0);
      for (const id of ids) expect((await op('GET', `/v1/orders/${id}`)).body.status).toBe('in_transit');

      // A delivers Bruno offline; B delivers him online first. When A syncs, it has nothing to add.
      await a.setOffline(true);
      await deliver(one, ids[1]!);
      await one.getByText('1 waiting to sync').waitFor();
      await stopOf(two, ids[1]!).getByRole('button', { name: 'Deliver' }).waitFor();
      await deliver(two, ids[1]!);
      await two.getByText('All synced').waitFor({ timeout: 20_000 });
      await expect.poll(async () => (await op('GET', `/v1/orders/${ids[1]}`)).body.status).toBe('delivered');
      await a.setOffline(false);
      await one.getByText('All synced').waitFor({ timeout: 20_000 });
      await one
        .locator('p.note', { hasText: 'Bruno Díaz: already delivered (from another phone or by dispatch).' })
        .waitFor();
      expect(await one.getByRole('alert').count()).toBe(0);
      await one.getByText('1 of 3 done').waitFor();
      // Delivered once: the first phone's move was not applied on top.
      const events = (await client(web.t.app, merchantKey)('GET', `/v1/events?order=${ids[1]}&event=order.delivered`))
        .body;
      expect(events.data).toHaveLength(1);
      await a.close();
      await b.close();
    },
    90_000,
  );

  it.skipIf(!hasChromium)(
    `a sync cut part-way names all its already-done moves in one note when it ends${skipNote}`,
    async () => {
      const { courierId, ids } = await routeOf(['Gala Ríos', 'Hugo Salas', 'Inés Vera']);
      const op = client(web.t.app, operator);
      const [b, two] = await phone(courierId);
      await two.getByRole('button', { name: 'Start route (3 stops)' }).waitFor();
      await b.setOffline(true);
      for (const id of ids) {
        for (const move of ['pickup', 'depart'])
          expect((await op('POST', `/v1/orders/${id}/${move}`)).status).toBe(200);
      }
      await two.getByRole('button', { name: 'Start route (3 stops)' }).click();
      await two.getByText('3 waiting to sync').waitFor();
      // The network comes back badly: the second send is lost, so the first go lists one done move.
      let sends = 0;
      await two.route('**/v1/orders/*/pickup', (r) => (++sends === 2 ? r.abort() : r.continue()));
      await b.setOffline(false);
      await two.getByText('2 waiting to sync').waitFor({ timeout: 20_000 });
      await two.locator('p.note', { hasText: 'Gala Ríos: already on the way' }).waitFor();
      await two.unroute('**/v1/orders/*/pickup');
      await b.setOffline(true);
      await b.setOffline(false);
      await two.getByText('All synced').waitFor({ timeout: 30_000 });
      const note = two.locator('p.note', { hasText: '3 stops already done from another phone or by dispatch' });
      await note.waitFor();
      for (const name of ['Gala Ríos', 'Hugo Salas', 'Inés Vera']) expect(await note.textContent()).toContain(name);
      expect(await two.getByRole('alert').count()).toBe(0);
      await b.close();
    },
    90_000,
  );

  it.skipIf(!hasChromium)(
    `a delivery refused because dispatch recorded a failed attempt stays a refusal, in words${skipNote}`,
    async () => {
      const { courierId, ids } = await routeOf(['Félix Soto']);
      const op = client(web.t.app, operator);
      for (const move of ['pickup', 'depart']) {
        expect((await op('POST', `/v1/orders/${ids[0]}/${move}`)).status).toBe(200);
      }
      const [a, one] = await phone(courierId);
      await stopOf(one, ids[0]!).getByRole('button', { name: 'Deliver' }).waitFor();
      await a.setOffline(true);
      await deliver(one, ids[0]!);
      await one.getByText('1 waiting to sync').waitFor();
      expect((await op('POST', `/v1/orders/${ids[0]}/fail`, { reason: 'customer_absent' })).status).toBe(200);
      await a.setOffline(false);
      const refusal = one.locator(`p.error-note[data-order="${ids[0]}"]`);
      await refusal.waitFor({ timeout: 20_000 });
      expect(await refusal.textContent()).toContain(
        'Félix Soto: the delivery was not recorded: the stop was already marked failed',
      );
      expect(await refusal.textContent()).not.toContain(ids[0]!);
      await a.close();
    },
    60_000,
  );
});
