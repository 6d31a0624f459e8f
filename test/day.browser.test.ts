import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type ImportRunner, startImportRunner } from '../src/features/imports/runner.js';
import {
  type HeldDay,
  hasChromium,
  heldDay,
  launch,
  openPage,
  planFormLoaded,
  serveApp,
  skipNote,
  submitSignIn,
} from './browser-helpers.js';
import {
  arrivals,
  COURIERS,
  CUSTOMERS,
  DEPOT,
  dayIn,
  deliver,
  PLACES,
  pinsOutside,
  shot,
  spanishCsv,
  textLines,
} from './day-steps.js';
import { type LocalGeocoder, startLocalGeocoder } from './geocoder-server.js';
import { client, describeEachInBrowser, newOperator, type TestApp } from './helpers.js';
import { newUser } from './people-helpers.js';

interface PlanRoute {
  courier_id: string;
  stops: { order_id: string; arrival_at: string }[];
}

/**
 * Issue #24's acceptance test: one Lima day, run from the screens only, by the people who would run
 * it. An admin sets up the merchant, the depot and three couriers; a dispatcher imports the
 * merchant's Spanish CSV (no coordinates: a local geocoder places it), plans balanced routes and
 * moves a stop without dragging; a courier starts the route and works offline; the dispatcher
 * watches the live map, dispatches a late order into a route under way from the board's
 * suggestions and re-optimizes that route, and reads the day's end on the board. The clock is held on a Lima morning,
 * and moved to the evening (already tomorrow in UTC) for the day's end.
 */
describeEachInBrowser('an end-to-end day in Lima, in headless Chromium', (engine) => {
  let t: TestApp;
  let browser: Browser;
  let base: string;
  let geo: LocalGeocoder;
  let runner: ImportRunner;
  let dir: string;
  let day: HeldDay;

  beforeAll(async () => {
    if (!hasChromium) return;
    day = heldDay('America/Lima', '06:30');
    geo = await startLocalGeocoder(PLACES);
    // A carrier in Lima: its days (the console's "today" for admins and dispatchers) are Lima's.
    const env = { RUTA_GEOCODER_URL: geo.url, RUTA_DEFAULT_TIMEZONE: 'America/Lima' };
    ({ t, base } = await serveApp(engine, env, { clock: day.clock }));
    runner = startImportRunner(t.ctx, pino({ level: 'silent' }));
    dir = mkdtempSync(join(tmpdir(), 'ruta-day-'));
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
    await runner?.stop();
    await t?.close();
    await geo?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** A browser context whose pages read the held clock (time flows on from it). */
  async function held(context: BrowserContext): Promise<BrowserContext> {
    await context.clock.setSystemTime(day.now());
    return context;
  }

  async function desk(role: 'admin' | 'dispatcher'): Promise<Page> {
    const page = await openPage(browser, { viewport: { width: 1440, height: 900 } });
    await held(page.context());
    await submitSignIn(page, base, (await newUser(t, role)).email);
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
    return page;
  }

  const nav = (page: Page, name: string) =>
    page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click();

  it.skipIf(!hasChromium)(
    `sets up, imports, plans, delivers offline, watches and closes one day${skipNote}`,
    async () => {
      // 1. Set-up, by the admin: the merchant, the depot, three couriers with their shifts.
      const admin = await desk('admin');
      await nav(admin, 'Accounts');
      const accountForm = admin.getByRole('form', { name: 'New account' });
      await accountForm.getByLabel('Name').fill('Bodega Miraflores');
      await accountForm.getByLabel('Currency').fill('PEN');
      await accountForm.getByLabel('Origin latitude').fill(String(DEPOT.lat));
      await accountForm.getByLabel('Origin longitude').fill(String(DEPOT.lng));
      await accountForm.getByRole('button', { name: 'Create account' }).click();
      const made = (await admin.getByRole('status').filter({ hasText: 'sk_test_' }).textContent()) ?? '';
      const merchant = client(t.app, /(sk_test_[0-9A-Za-z]{32})/.exec(made)?.[1] as string);

      await nav(admin, 'Planning');
      await admin.getByText('No depot yet.').waitFor();
      await admin.getByLabel('Depot name *').fill(DEPOT.name);
      await admin.getByLabel('Latitude *').fill(String(DEPOT.lat));
      await admin.getByLabel('Longitude *').fill(String(DEPOT.lng));
      await admin.getByLabel('Time zone').fill(DEPOT.timezone);
      await admin.getByRole('button', { name: 'Create depot' }).click();
      await admin.getByText('No depot yet.').waitFor({ state: 'detached' });

      await nav(admin, 'Couriers');
      const courierForm = admin.getByRole('form', { name: 'New courier' });
      for (const c of COURIERS) {
        await courierForm.getByLabel('Name *').fill(c.name);
        await courierForm.getByLabel('Phone').fill(c.phone);
        await courierForm.getByLabel('Shift starts').fill(c.start);
        await courierForm.getByLabel('Shift ends').fill(c.end);
        await courierForm.getByLabel('Capacity (packages)').fill('8');
        await courierForm.getByRole('button', { name: 'Add courier' }).click();
        await admin.locator('li.card', { hasText: c.name }).waitFor();
      }
      await shot(admin, engine, 1, true);
      await admin.context().close();
      // What the assertions read with (not the screens: those are under test).
      const op = client(t.app, await newOperator(t, 'test'));
      const couriers = (await op('GET', '/v1/couriers')).body.data as { id: string; name: string; shift: unknown }[];
      expect(couriers.map((c) => c.name).sort()).toEqual(COURIERS.map((c) => c.name).sort());
      const courierName = (id: string) => couriers.find((c) => c.id === id)?.name ?? id;

      // 2. The merchant's CSV, imported by a dispatcher on the merchant's behalf, geocoded.
      const desk1 = await desk('dispatcher');
      await nav(desk1, 'Imports');
      const choose = desk1.getByRole('form', { name: 'Import for a merchant' });
      // As a person would, once the picker suggests the merchant (the accounts are loaded).
      await choose.locator('datalist option[value="Bodega Miraflores"]').waitFor({ state: 'attached' });
      await choose.getByLabel('Merchant account').fill('Bodega Miraflores');
      await choose.getByRole('button', { name: 'Continue' }).click();
      const csvPath = join(dir, `${engine}-pedidos.csv`);
      writeFileSync(csvPath, spanishCsv());
      await desk1.getByLabel('Spreadsheet (.csv or .xlsx) *').setInputFiles(csvPath);
      await desk1.getByRole('button', { name: 'Upload' }).click();
      await desk1
        .getByRole('status')
        .filter({ hasText: `Import finished: ${CUSTOMERS.length} orders created, 0 rows rejected.` })
        .waitFor({ timeout: 20_000 });
      // When it was uploaded, on Lima's clock (06:30), not the browser's or UTC.
      await desk1
        .getByText(/Mar 4, 2030, 6:3\d AM \(America\/Lima\)/)
        .first()
        .waitFor();
      await shot(desk1, engine, 2);
      // The same file again, by mistake, with "Skip orders already imported": no order is made twice.
      await desk1.getByRole('link', { name: '← Imports' }).first().click();
      await desk1.getByLabel('Skip orders already imported').check();
      await desk1.getByLabel('Spreadsheet (.csv or .xlsx) *').setInputFiles(csvPath);
      await desk1.getByRole('button', { name: 'Upload' }).click();
      await desk1
        .getByRole('status')
        .filter({
          hasText: `Import finished: 0 orders created, 0 rows rejected, ${CUSTOMERS.length} orders skipped (already imported).`,
        })
        .waitFor({ timeout: 20_000 });
      const orders = (await merchant('GET', '/v1/orders?limit=100')).body.data as {
        id: string;
        customer: { name: string };
        geocode: { needs_review: boolean } | null;
      }[];
      expect(orders).toHaveLength(CUSTOMERS.length);
      expect(orders.filter((o) => o.geocode?.needs_review !== false).map((o) => o.customer.name)).toEqual([]);
      const nameOf = Object.fromEntries(orders.map((o) => [o.id, o.customer.name]));

      // 3. Planning: the Lima day, balanced routes, inside the shifts; a stop moved by map pick + key.
      await nav(desk1, 'Planning');
      await desk1.getByRole('heading', { name: 'Planning', level: 1 }).waitFor();
      await expect.poll(() => desk1.getByLabel('Date').inputValue()).toBe(day.date);
      const toPlan = desk1.getByRole('list', { name: 'Orders to plan' });
      await expect.poll(() => toPlan.getByRole('listitem').count()).toBe(CUSTOMERS.length);
      await planFormLoaded(desk1);
      await desk1.getByLabel('Objective').selectOption('balanced');
      await desk1.getByLabel('Time limit (seconds)').fill('2');
      await desk1.getByRole('button', { name: 'Optimize' }).click();
      await desk1.getByRole('heading', { name: 'Proposed routes' }).waitFor({ timeout: 30_000 });
      const planId = /#\/planning\/(rplan_\w+)/.exec(await desk1.evaluate<string>('location.hash'))?.[1];
      const readPlan = async () => (await op('GET', `/v1/route_plans/${planId}`)).body;
      const plan = await readPlan();
      const routes = plan.routes as PlanRoute[];
      expect(routes).toHaveLength(3);
      const sizes = routes.map((r) => r.stops.length);
      expect(sizes.reduce((a, b) => a + b)).toBe(CUSTOMERS.length);
      expect(Math.max(...sizes) - Math.min(...sizes), `stops per route: ${sizes}`).toBeLessThanOrEqual(2);
      // The plan is for the Lima day, and every arrival is within its courier's shift (none at 00:xx).
      expect(plan.date).toBe(day.date);
      for (const r of routes) for (const s of r.stops) expect(dayIn(DEPOT.timezone, s.arrival_at)).toBe(day.date);
      const shown = await arrivals(desk1);
      expect(shown).toHaveLength(CUSTOMERS.length);
      for (const hhmm of shown) expect(hhmm >= '08:00' && hhmm <= '18:00', hhmm).toBe(true);
      // The map stays in view beside a long plan.
      await desk1.locator('ol.stops li').last().scrollIntoViewIfNeeded();
      expect(await desk1.evaluate<number>('window.scrollY')).toBeGreaterThan(200);
      const map = (await desk1.locator('.planning-map').boundingBox())!;
      expect([map.y >= 0, map.y + map.height <= 900], JSON.stringify(map)).toEqual([true, true]);
      await shot(desk1, engine, 3);

      // No drag across the page: pick the stop on the map, press the other courier's number.
      // From the longest route to the shortest: the routes stay balanced.
      const bySize = [...routes].sort((a, b) => b.stops.length - a.stops.length);
      const [from, to] = [bySize[0], bySize.at(-1)];
      const moved = from!.stops.at(-1)!.order_id;
      const toName = courierName(to!.courier_id);
      await desk1.locator(`path[data-stop="${moved}"]`).click();
      await expect
        .poll(() => desk1.evaluate<string | null>('document.activeElement?.getAttribute("data-order") ?? null'))
        .toBe(moved);
      const key = await desk1.locator('section.plan-route h3', { hasText: toName }).locator('kbd').textContent();
      await desk1.keyboard.press(key as string);
      await expect
        .poll(async () =>
          ((await readPlan()).routes as PlanRoute[])
            .find((r) => r.courier_id === to!.courier_id)
            ?.stops.map((s) => s.order_id),
        )
        .toContain(moved);
      await desk1.locator('.plan-routes[aria-busy="false"]').waitFor();
      await desk1
        .getByRole('list', { name: `Stops of ${toName}` })
        .getByText(nameOf[moved]!)
        .waitFor();
      await shot(desk1, engine, 4);
      await desk1.getByRole('button', { name: 'Commit', exact: true }).click();
      await desk1.getByText(/Committed: 3 routes created/).waitFor();

      // 4. The courier's phone: signed in from the console's link, the route started, worked offline.
      const rider = COURIERS[0]!;
      await nav(desk1, 'Couriers');
      const card = desk1.locator('li.card', { hasText: rider.name });
      await card.getByRole('button', { name: 'Sign in a phone' }).click();
      const link = (await card.locator('code.secret').textContent()) as string;
      const phoneContext = await held(
        await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, hasTouch: true }),
      );
      const phone = await phoneContext.newPage();
      phone.setDefaultTimeout(15_000);
      await phone.goto(link);
      // The link fills in the code; the courier taps Sign in.
      expect(await phone.getByLabel('Sign-in code from your dispatcher').inputValue()).not.toBe('');
      await phone.getByRole('button', { name: 'Sign in' }).click();
      await phone.getByRole('heading', { name: "Today's route" }).waitFor();
      // On a 390 px phone the courier's name may wrap, its top bar's controls not.
      expect(await textLines(phone.locator('header.c-top label.duty'))).toBe(1);
      expect(await textLines(phone.getByRole('button', { name: 'Sign out' }))).toBe(1);
      const mine = (await readPlan()).routes.find(
        (r: PlanRoute) => courierName(r.courier_id) === rider.name,
      ) as PlanRoute;
      const total = mine.stops.length;
      await phone.getByText(`0 of ${total} done`).waitFor();
      await expect.poll(() => phone.locator('.stops-map .stop-pin').count()).toBe(total);
      // Every stop is inside the map, none cut off at its edge.
      await expect.poll(() => pinsOutside(phone)).toEqual([]);
      await shot(phone, engine, 5);

      await phoneContext.setOffline(true);
      await phone.getByRole('button', { name: `Start route (${total} stops)` }).click();
      await phone.getByText(`${total} waiting to sync`).waitFor();
      const delivered = mine.stops.slice(0, 3).map((s) => s.order_id);
      const failed = mine.stops[3]!.order_id;
      for (const id of delivered) await deliver(phone, id, nameOf[id]!);
      await phone.locator(`li.stop[data-order="${failed}"]`).getByRole('button', { name: /fail/i }).click();
      await phone.getByRole('form', { name: 'Failed attempt' }).getByLabel('Notes').fill('Nadie en casa');
      await phone.getByRole('button', { name: 'Record failed attempt' }).click();
      await phone.getByText(`4 of ${total} done`).waitFor();
      await shot(phone, engine, 6);
      // Nothing reached the server while offline.
      for (const id of [...delivered, failed]) {
        expect((await merchant('GET', `/v1/orders/${id}`)).body.status).toBe('assigned');
      }
      await phoneContext.setOffline(false);
      await phone.getByText('All synced').waitFor({ timeout: 20_000 });
      await shot(phone, engine, 7);
      const once = async (id: string, event: string) =>
        expect(
          (await merchant('GET', `/v1/events?order=${id}&event=${event}`)).body.data,
          `${event} of ${id}`,
        ).toHaveLength(1);
      for (const s of mine.stops) {
        await once(s.order_id, 'order.picked_up');
        await once(s.order_id, 'order.in_transit');
      }
      for (const id of delivered) await once(id, 'order.delivered');
      await once(failed, 'order.failed');
      // Online again, the last stops: the route is finished.
      const rest = mine.stops.slice(4).map((s) => s.order_id);
      for (const id of rest) await deliver(phone, id, nameOf[id]!);
      await phone.getByText(`${total} of ${total} done`).waitFor();
      await phone.getByText('All synced').waitFor({ timeout: 20_000 });
      for (const id of rest) await once(id, 'order.delivered');

      // 5. Live watching: each courier in its route's colour, with its progress.
      await nav(desk1, 'Live map');
      await desk1.getByRole('application', { name: /Map of couriers/ }).waitFor();
      const list = desk1.getByRole('region', { name: 'Couriers' });
      // A finished route still counts: its courier is done for the day, not without a route.
      await list.locator('li', { hasText: rider.name }).getByText(`${total} of ${total} done`).waitFor();
      for (const r of routes) {
        if (courierName(r.courier_id) === rider.name) continue;
        const n = ((await readPlan()).routes as PlanRoute[]).find((x) => x.courier_id === r.courier_id)!.stops.length;
        await list
          .locator('li', { hasText: courierName(r.courier_id) })
          .getByText(`0 of ${n} done`)
          .waitFor();
      }
      const swatches = await list
        .locator('.route-swatch')
        .evaluateAll((els) => els.map((e) => (e as unknown as { style: { background: string } }).style.background));
      expect(new Set(swatches).size).toBe(3);
      await shot(desk1, engine, 8);
      await phoneContext.close();

      // 5b. A late order, dispatched from the board into a courier's route under way, then the
      // route re-optimized from its route page: the proposal beside the current order, applied.
      const late = await merchant('POST', '/v1/orders', {
        customer: { name: 'Teresa Núñez', phone: '+51987100099' },
        delivery_address: {
          address: 'Av. Aviación 3200',
          district: 'San Borja',
          city: 'Lima',
          lat: -12.1,
          lng: -76.998,
        },
        items: [{ description: 'Maceta', quantity: 1 }],
      });
      expect(late.status, JSON.stringify(late.body)).toBe(201);
      const other = routes.find((r) => courierName(r.courier_id) !== rider.name)!;
      const otherName = courierName(other.courier_id);
      await nav(desk1, 'Orders');
      await desk1.getByLabel(`Select ${late.body.tracking_code}`).setChecked(true);
      await desk1
        .getByRole('region', { name: `Suggested couriers for ${late.body.tracking_code}` })
        .getByRole('button', { name: `Assign ${late.body.tracking_code} to ${otherName}` })
        .click();
      await expect
        .poll(async () => (await op('GET', `/v1/orders/${late.body.id}`)).body.courier?.id)
        .toBe(other.courier_id);
      const routeId = (await op('GET', `/v1/orders/${late.body.id}`)).body.route as string;
      const left = (await op('GET', `/v1/routes/${routeId}`)).body.stops.length as number;
      await nav(desk1, 'Routes');
      await desk1
        .getByRole('row', { name: new RegExp(otherName) })
        .getByRole('link', { name: 'Open' })
        .click();
      await desk1.getByRole('heading', { name: `Route · ${otherName}` }).waitFor();
      await desk1.locator('table.route-stops').getByText('Av. Aviación 3200, San Borja').waitFor();
      await desk1.getByRole('button', { name: 'Re-optimize' }).click();
      const proposed = desk1.getByRole('region', { name: 'Proposed order' }).locator('li');
      await expect.poll(() => proposed.count()).toBe(left);
      expect(await proposed.evaluateAll((li) => li.map((x) => x.getAttribute('data-order')))).toContain(late.body.id);
      const apply = desk1.getByRole('button', { name: 'Apply this order' });
      if (await apply.isEnabled()) {
        await apply.click();
        await desk1.getByText(/^Applied: the route saves/).waitFor();
      } else await desk1.getByText('The current order is already the best found: nothing to save.').waitFor();
      expect((await op('GET', `/v1/routes/${routeId}`)).body.stops).toHaveLength(left);

      // 6. The day's end, at 20:30 in Lima (01:30 tomorrow in UTC): the board still counts today.
      // A new sign-in: the morning's session ended after 12 idle hours.
      await desk1.context().close();
      day.at('20:30');
      const evening = await desk('dispatcher');
      await evening.getByRole('heading', { name: 'Orders', exact: true }).waitFor();
      expect(await evening.getByLabel('Day', { exact: true }).inputValue()).toBe(day.date);
      const counts = evening.getByRole('list', { name: 'Orders per status' });
      // The sixteen of the file and the late one.
      await expect.poll(() => counts.locator('[data-count="total"]').textContent()).toBe(String(CUSTOMERS.length + 1));
      expect(await counts.locator('[data-count="delivered"]').textContent()).toBe(String(total - 1));
      expect(await counts.locator('[data-count="failed"]').textContent()).toBe('1');
      expect(await counts.locator('[data-count="assigned"]').textContent()).toBe(String(CUSTOMERS.length + 1 - total));
      expect(await counts.locator('[data-count="in_transit"]').count()).toBe(0);
      await shot(evening, engine, 9);
      // The courier's note on the failed attempt reaches the dispatcher who must reschedule it.
      await nav(evening, 'Exceptions');
      await evening.getByText('customer absent: “Nadie en casa” · 1 attempt').waitFor();
      await evening.context().close();
    },
    150_000,
  );
});
