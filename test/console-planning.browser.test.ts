import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import {
  cspErrorsOf,
  hasChromium,
  IMAGES,
  openPage,
  planFormLoaded,
  skipNote,
  submitSignIn,
  useBrowserApp,
} from './browser-helpers.js';
import { client, describeEachInBrowser, newMerchant, newOperator, validOrder } from './helpers.js';
import { newUser } from './people-helpers.js';

const DATE = '2030-03-04';
const LIMA = { lat: -12.1211, lng: -77.0297 };
const at = (dLat: number, dLng: number) => ({
  address: `Av. Larco ${Math.round(1000 + dLat * 10_000)}`,
  district: 'Miraflores',
  city: 'Lima',
  lat: LIMA.lat + dLat,
  lng: LIMA.lng + dLng,
});

interface PlanStop {
  order_id: string;
  load_packages: number;
  arrival_at: string;
  service_start_at: string;
}
const limaClock = (iso: string) =>
  new Intl.DateTimeFormat('en-GB', {
    timeZone: 'America/Lima',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).format(new Date(iso));
interface PlanRoute {
  courier_id: string;
  stops: PlanStop[];
}

describeEachInBrowser('console planning page in headless Chromium', (engine) => {
  let op: ReturnType<typeof client>;
  let merchant: ReturnType<typeof client>;
  let depot: { id: string };
  let carla: { id: string };
  let diego: { id: string };

  const web = useBrowserApp(
    engine,
    {
      RUTA_SERVICE_MINUTES_PER_STOP: '5',
      // The carrier's zone, as docs/console.md runs it: the merchant's orders, and their windows,
      // are Lima's like the depot.
      RUTA_DEFAULT_TIMEZONE: 'America/Lima',
    },
    {
      setup: async (t) => {
        op = client(t.app, await newOperator(t, 'test'));
        merchant = client(t.app, (await newMerchant(t, 'Tienda Lima')).test);
        const d = await op('POST', '/v1/depots', {
          name: 'Surquillo',
          lat: LIMA.lat,
          lng: LIMA.lng,
          timezone: 'America/Lima',
        });
        expect(d.status, JSON.stringify(d.body)).toBe(201);
        depot = d.body;
        // Four packages each: six one-package orders need both couriers.
        const c1 = await op('POST', '/v1/couriers', {
          name: 'Carla Ruta',
          capacity_packages: 4,
          shift_start: '08:00',
          shift_end: '18:00',
        });
        const c2 = await op('POST', '/v1/couriers', { name: 'Diego Ruta', capacity_packages: 4 });
        expect([c1.status, c2.status]).toEqual([201, 201]);
        carla = c1.body;
        diego = c2.body;
      },
    },
  );

  async function order(
    name: string,
    address: Record<string, unknown>,
    extra: Record<string, unknown> = {},
  ): Promise<{ id: string }> {
    const res = await merchant(
      'POST',
      '/v1/orders',
      validOrder({
        external_order_id: name,
        customer: { name, phone: '+51987654321' },
        delivery_address: address,
        items: [{ description: 'Box', quantity: 1, weight_kg: 1.5 }],
        ...extra,
      }),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body;
  }

  async function signedInPage(
    width = 1280,
    height = 900,
    role: 'dispatcher' | 'admin' = 'dispatcher',
  ): Promise<{ page: Page; cspErrors: string[] }> {
    const page = await openPage(web.browser, { viewport: { width, height } });
    const cspErrors = cspErrorsOf(page);
    const user = await newUser(web.t, role);
    await submitSignIn(page, web.base, user.email);
    await page.getByRole('link', { name: 'Planning' }).click();
    await page.getByRole('heading', { name: 'Planning', level: 1 }).waitFor();
    return { page, cspErrors };
  }

  async function optimize(page: Page, seconds: string) {
    await planFormLoaded(page);
    await page.getByLabel('Date').fill(DATE);
    await page.getByLabel('Time limit (seconds)').fill(seconds);
    await page.getByRole('button', { name: 'Optimize' }).click();
  }

  const planIdOf = async (page: Page) =>
    /#\/planning\/(rplan_\w+)/.exec(await page.evaluate<string>('location.hash'))?.[1];

  it.skipIf(!hasChromium)(
    `optimizes a day for two couriers, shows the routes and the order left out, and commits${skipNote}`,
    async () => {
      const names = ['Rosa Quispe', 'Carlos Mendoza', 'Lucía Flores', 'Pedro Castillo', 'Elena Ríos', 'Juan Pérez'];
      const spots = [
        at(0.01, 0.01),
        at(0.02, -0.01),
        at(-0.01, 0.02),
        at(-0.02, -0.015),
        at(0.015, 0.025),
        at(-0.025, 0.005),
      ];
      const placed: Record<string, string> = {};
      // Elena is served from 15:00 only: her courier gets there earlier and waits.
      const windows: Record<string, Record<string, unknown>> = {
        'Elena Ríos': { time_window: { start: '15:00', end: '17:00' } },
      };
      for (const [i, name] of names.entries()) placed[name] = (await order(name, spots[i]!, windows[name])).id;
      const nowhere = await order('Sin Coordenadas', { address: 'Jr. Desconocido 1', city: 'Lima' });

      const { page, cspErrors } = await signedInPage();
      // The orders the planner takes: the seven assignable ones, the last without coordinates.
      const toPlan = page.getByRole('list', { name: 'Orders to plan' });
      await expect.poll(() => toPlan.getByRole('listitem').count()).toBe(7);
      // Said as the server selects them: each order's day in its own zone, not the depot's.
      await page.getByText('each order’s day in its own time zone, or with no date').waitFor();
      await expect(toPlan.locator('li', { hasText: 'Sin Coordenadas' }).textContent()).resolves.toContain(
        'no coordinates',
      );
      await expect(page.getByLabel('Depot').inputValue()).resolves.toBe(depot.id);
      // Both couriers, picked by default, with their shift and capacity.
      await expect(page.getByRole('checkbox', { name: /Carla Ruta/ }).isChecked()).resolves.toBe(true);
      await expect(page.getByRole('checkbox', { name: /Diego Ruta/ }).isChecked()).resolves.toBe(true);
      await expect(page.locator('.pick-list li', { hasText: 'Carla Ruta' }).textContent()).resolves.toContain(
        'shift 08:00–18:00 (America/Lima) · 4 packages',
      );
      // Before any plan, the orders with coordinates and the depot are on the map.
      await expect.poll(() => page.locator('.planning-map path.leaflet-interactive').count()).toBe(7);

      // Even work, and at most three stops for Diego in this plan only (issue #21).
      await page.getByLabel('Objective').selectOption('balanced');
      // A limit that is no number is refused before sending, named by its courier (typed key by
      // key: a number box took "abc" as empty, and the plan ran without the limit).
      const invalid = (label: string) => page.getByLabel(label).getAttribute('aria-invalid');
      await page.getByLabel('Most stops, Diego Ruta').pressSequentially('abc');
      await optimize(page, '2');
      await page.getByText('Diego Ruta: Enter a whole number of stops, such as 12.').waitFor();
      await expect(invalid('Most stops, Diego Ruta')).resolves.toBe('true');
      expect(await planIdOf(page)).toBeUndefined();
      // A limit the API refuses is named by the courier it belongs to, not by couriers[1].
      await page.getByLabel('Most stops, Diego Ruta').fill('0');
      await page.getByRole('button', { name: 'Optimize' }).click();
      await page.getByText(/^Diego Ruta: Invalid max_stops: must be >= 1/).waitFor();
      // Only that box is marked, not every courier's.
      await expect(invalid('Most stops, Diego Ruta')).resolves.toBe('true');
      for (const other of ['Most km, Diego Ruta', 'Most stops, Carla Ruta'])
        await expect(invalid(other)).resolves.toBe(null);
      await expect(page.locator('.plan-couriers').getAttribute('class')).resolves.not.toContain('has-error');
      await page.getByLabel('Most stops, Diego Ruta').fill('3');
      // A decimal comma, as a Spanish keyboard types it, is a decimal point (a limit far off: the
      // routes stay as they are).
      await page.getByLabel('Most km, Carla Ruta').pressSequentially('80,5');
      await page.getByRole('button', { name: 'Optimize' }).click();
      const bar = page.getByRole('progressbar');
      await bar.waitFor();
      const now = Number(await bar.getAttribute('aria-valuenow'));
      expect(now).toBeGreaterThanOrEqual(0);
      expect(now).toBeLessThanOrEqual(100);

      const result = page.getByRole('heading', { name: 'Proposed routes' });
      await result.waitFor({ timeout: 30_000 });
      expect(await bar.count()).toBe(0);
      // The focus moves to the result.
      await expect
        .poll(() => page.evaluate<string | null>('document.activeElement?.textContent ?? null'))
        .toBe('Proposed routes');

      const planId = await planIdOf(page);
      expect(planId).toMatch(/^rplan_/);
      const plan = (await op('GET', `/v1/route_plans/${planId}`)).body;
      expect(plan.status).toBe('succeeded');
      expect(plan.routes).toHaveLength(2);
      expect(plan.objective).toBe('balanced');
      expect(plan.couriers).toContainEqual({ courier_id: diego.id, max_stops: 3 });
      expect(plan.couriers).toContainEqual({ courier_id: carla.id, max_route_km: 80.5 });
      const diegoRoute = (plan.routes as PlanRoute[]).find((r) => r.courier_id === diego.id);
      expect(diegoRoute?.stops.length).toBeLessThanOrEqual(3);
      const byId = Object.fromEntries(Object.entries(placed).map(([n, id]) => [id, n]));
      const courierName = { [carla.id]: 'Carla Ruta', [diego.id]: 'Diego Ruta' };
      let shown = 0;
      let waiting = 0;
      for (const r of plan.routes as PlanRoute[]) {
        const stops = page.getByRole('list', { name: `Stops of ${courierName[r.courier_id]}` }).getByRole('listitem');
        const texts = await stops.allTextContents();
        // The page lists each route's stops in the plan's order, with arrival times and loads.
        expect(texts.map((s) => names.find((n) => s.includes(n)))).toEqual(r.stops.map((s) => byId[s.order_id]));
        for (const [k, s] of texts.entries()) {
          expect(s).toMatch(/Arrives \d\d:\d\d/);
          // A stop reached before its window says when it is served, and only such a stop.
          const stop = r.stops[k] as PlanStop;
          const served = limaClock(stop.service_start_at);
          if (served !== limaClock(stop.arrival_at)) {
            waiting++;
            expect(s).toContain(`waits until ${served}`);
          } else expect(s).not.toContain('waits until');
          expect(s).toContain(`Load: ${r.stops[k]?.load_packages} pkg`);
        }
        shown += texts.length;
      }
      expect(shown).toBe(6);
      expect(waiting).toBe(1);
      await expect(page.locator('.totals').textContent()).resolves.toMatch(
        /2 routes · 6 orders planned · 1 not planned/,
      );
      const notPlanned = page.getByRole('list', { name: 'Orders not planned' }).getByRole('listitem');
      expect(await notPlanned.allTextContents()).toEqual([
        expect.stringMatching(/^Sin Coordenadas .*: No coordinates/),
      ]);
      // How even the work came out, in words: six stops over two couriers is an even share of 3.
      const counts = [carla.id, diego.id].map(
        (id) => (plan.routes as PlanRoute[]).find((r) => r.courier_id === id)?.stops.length ?? 0,
      );
      await page
        .getByText(
          Math.max(...counts) <= 3
            ? 'Even work: at most 3 stops a route.'
            : `Even work: routes of ${Math.min(...counts)} to ${Math.max(...counts)} stops, where an even share is 3.`,
          { exact: false },
        )
        .waitFor();
      // Drawn without tiles: two lines, six numbered stops and the depot.
      await expect.poll(() => page.locator('.planning-map path.leaflet-interactive').count()).toBe(9);
      expect(await page.locator('.planning-map .leaflet-tooltip.stop-number').allTextContents()).toHaveLength(6);
      mkdirSync(IMAGES, { recursive: true });
      if (engine === 'sqlite') await page.screenshot({ path: join(IMAGES, 'console-planning.png') });

      await page.getByRole('button', { name: 'Commit' }).click();
      await page.getByText(/Committed: 2 routes created/).waitFor();

      const committed = (await op('GET', `/v1/route_plans/${planId}`)).body;
      expect(committed.committed_at).not.toBeNull();
      expect(committed.route_ids).toHaveLength(2);
      // Each new route is linked by its courier's name.
      const note = page.getByRole('status').filter({ hasText: 'Committed' });
      for (const [i, r] of (plan.routes as PlanRoute[]).entries()) {
        const link = note.getByRole('link', { name: courierName[r.courier_id] });
        expect(await link.getAttribute('href')).toBe(`#/routes/${committed.route_ids[i]}`);
      }
      for (const [i, r] of (plan.routes as PlanRoute[]).entries()) {
        const route = await op('GET', `/v1/routes/${committed.route_ids[i]}`);
        expect(route.status).toBe(200);
        expect(route.body.courier.id).toBe(r.courier_id);
        expect(route.body.stops.map((s: { order: string }) => s.order)).toEqual(r.stops.map((s) => s.order_id));
        for (const s of r.stops) {
          const o = (await op('GET', `/v1/orders/${s.order_id}`)).body;
          expect([o.status, o.courier?.id, o.route]).toEqual(['assigned', r.courier_id, committed.route_ids[i]]);
        }
      }
      const left = (await op('GET', `/v1/orders/${nowhere.id}`)).body;
      expect([left.status, left.courier]).toEqual(['pending', null]);

      // Usable on a phone: nothing wider than 360 px.
      await page.setViewportSize({ width: 360, height: 740 });
      await expect.poll(() => page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
      expect(cspErrors).toEqual([]);
      await page.context().close();
    },
    60_000,
  );

  it.skipIf(!hasChromium)(
    `says which orders changed when a commit is stale, and plans again${skipNote}`,
    async () => {
      const uno = await order('Stale Uno', at(0.005, 0.005));
      const dos = await order('Stale Dos', at(-0.005, 0.01));
      const { page } = await signedInPage(390, 844);
      await optimize(page, '1');
      await page.getByRole('heading', { name: 'Proposed routes' }).waitFor({ timeout: 30_000 });
      const first = await planIdOf(page);
      // The order moves after the plan read it: the commit must write nothing.
      expect((await op('POST', `/v1/orders/${uno.id}/validate`)).status).toBe(200);
      await page.getByRole('button', { name: 'Commit' }).click();
      const alert = page.locator('.stale[role="alert"]');
      await alert.waitFor();
      await expect(alert.textContent()).resolves.toContain('Nothing was committed');
      expect(await alert.getByRole('list', { name: 'Orders that changed' }).textContent()).toContain('Stale Uno');
      const still = (await op('GET', `/v1/orders/${dos.id}`)).body;
      expect([still.status, still.route]).toEqual(['pending', null]);

      await page.getByRole('button', { name: 'Plan again' }).click();
      // A new plan runs (its bar replaces the old result), then it can be committed.
      await page.getByRole('progressbar').waitFor();
      await expect.poll(() => planIdOf(page)).not.toBe(first);
      await page.getByRole('heading', { name: 'Proposed routes' }).waitFor({ timeout: 30_000 });
      await page.getByRole('button', { name: 'Commit' }).click();
      await page.getByText(/Committed: \d+ routes? created/).waitFor();
      for (const o of [uno, dos]) {
        expect((await op('GET', `/v1/orders/${o.id}`)).body.status).toBe('assigned');
      }
      await page.context().close();
    },
    60_000,
  );

  it.skipIf(!hasChromium)(
    `edits the plan with the keyboard and by dragging, shows the warnings, then commits the edited routes${skipNote}`,
    async () => {
      const names = ['Edit Uno', 'Edit Dos', 'Edit Tres', 'Edit Cuatro', 'Edit Cinco'];
      const spots = [at(0.011, 0.004), at(0.018, -0.006), at(-0.012, 0.011), at(-0.017, -0.009), at(0.004, 0.021)];
      const idOf: Record<string, string> = {};
      // A window that binds nothing (the whole shift), so the screenshot shows where it is read.
      const windows: Record<string, Record<string, unknown>> = {
        'Edit Dos': { time_window: { start: '08:00', end: '18:00' } },
      };
      for (const [i, name] of names.entries()) idOf[name] = (await order(name, spots[i]!, windows[name])).id;
      const nameOf = Object.fromEntries(Object.entries(idOf).map(([n, id]) => [id, n]));
      // Tall enough that a drag's source and target are both on screen (the drag does not scroll).
      const { page, cspErrors } = await signedInPage(1280, 1800);
      await optimize(page, '1');
      await page.getByRole('heading', { name: 'Proposed routes' }).waitFor({ timeout: 30_000 });
      const planId = await planIdOf(page);
      const read = async () => (await op('GET', `/v1/route_plans/${planId}`)).body;
      const courierName = { [carla.id]: 'Carla Ruta', [diego.id]: 'Diego Ruta' };
      const stopsOf = (p: { routes: PlanRoute[] }, courier: string) =>
        (p.routes.find((r) => r.courier_id === courier)?.stops ?? []).map((s) => nameOf[s.order_id] ?? s.order_id);
      const idle = () => page.locator('.plan-routes[aria-busy="false"]').waitFor();
      // Four packages each, five one-package orders: both couriers have a route.
      const first = await read();
      const [big, small] = [carla.id, diego.id].sort((a, b) => stopsOf(first, b).length - stopsOf(first, a).length);
      const bigName = courierName[big!]!;
      const bigStops = stopsOf(first, big!);
      const smallStops = stopsOf(first, small!);
      expect(bigStops.length + smallStops.length).toBe(5);
      expect(bigStops.length).toBeGreaterThanOrEqual(3);

      // Keyboard: the first stop of the longer route one place down.
      await page.getByRole('button', { name: `Move ${bigStops[0]} down`, exact: true }).press('Enter');
      const swapped = [bigStops[1], bigStops[0], ...bigStops.slice(2)];
      await expect.poll(async () => stopsOf(await read(), big!)).toEqual(swapped);
      await idle();
      const shown = page.getByRole('list', { name: `Stops of ${bigName}` }).getByRole('listitem');
      await expect.poll(() => shown.allTextContents()).toEqual(swapped.map((n) => expect.stringContaining(n)));
      // The focus stays with the stop that moved.
      await expect
        .poll(() => page.evaluate<string | null>('document.activeElement?.getAttribute("aria-label") ?? null'))
        .toContain(bigStops[0]);

      // Keyboard: every stop of the other courier onto the longer route, with the select and Move.
      for (const name of smallStops) {
        await page.getByRole('combobox', { name: `Move ${name} to` }).selectOption({ label: bigName });
        await page.getByRole('button', { name: `Move ${name}`, exact: true }).press('Enter');
        await expect.poll(async () => stopsOf(await read(), big!)).toContain(name);
        await idle();
      }
      const all = [...swapped, ...smallStops];
      expect(stopsOf(await read(), big!)).toEqual(all);
      // Five packages for four: the server marks the stop that does not fit, the page shows it and
      // the commit becomes a deliberate "Commit anyway".
      const last = all[4]!;
      const lastItem = shown.filter({ hasText: last });
      await expect(lastItem.locator('.violation').textContent()).resolves.toMatch(/Warning: Does not fit.*5 packages/);
      await page.getByText(/1 warning:/).waitFor();
      await page.getByRole('button', { name: 'Commit anyway' }).waitFor();
      // The window has a line of its own in the dense lane, whole, not cut off with the address.
      const win = page.locator('.plan-routes li', { hasText: 'Edit Dos' }).locator('.window');
      await expect(win.textContent()).resolves.toMatch(/^window 08:00–18:00 \(.+\)$/);
      await expect(win.evaluate((el) => el.scrollWidth <= el.clientWidth)).resolves.toBe(true);
      if (engine === 'sqlite') await page.screenshot({ path: join(IMAGES, 'console-planning-edit.png') });
      await expect(
        page
          .getByRole('list', { name: `Stops of ${courierName[small!]}` })
          .getByRole('listitem')
          .count(),
      ).resolves.toBe(0);

      // Drag: the last stop onto "Not planned"; then from there onto the other courier's empty route.
      // From the stop's number (its handle), as a hand would.
      await lastItem.dragTo(page.locator('.plan-unassigned'), { sourcePosition: { x: 8, y: 12 } });
      await expect
        .poll(async () => (await read()).unassigned)
        .toContainEqual({ order_id: idOf[last], reason: 'manual' });
      await idle();
      await expect(page.getByRole('list', { name: 'Orders not planned' }).textContent()).resolves.toContain(`${last}`);
      await page.getByRole('button', { name: 'Commit', exact: true }).waitFor();
      const smallList = page.getByRole('list', { name: `Stops of ${courierName[small!]}` });
      await page
        .getByRole('list', { name: 'Orders not planned' })
        .locator('li', { hasText: last })
        .dragTo(smallList, { sourcePosition: { x: 6, y: 10 } });
      await expect.poll(async () => stopsOf(await read(), small!)).toEqual([last]);
      await idle();
      // The recomputed time is the one shown.
      const edited = await read();
      expect(edited.totals.violations).toBe(0);
      const arrival = edited.routes.find((r: PlanRoute & { stops: { arrival_at: string }[] }) => r.courier_id === small)
        .stops[0].arrival_at as string;
      const hhmm = new Intl.DateTimeFormat('en-GB', {
        timeZone: 'America/Lima',
        hour: '2-digit',
        minute: '2-digit',
        hourCycle: 'h23',
      }).format(new Date(arrival));
      await expect(smallList.getByRole('listitem').textContent()).resolves.toContain(`Arrives ${hhmm}`);

      // Picked on the map, a stop's row takes the focus; a number key moves it to that courier's lane
      // (its number is shown beside the courier's name), and back again to the end of its own.
      const keyOf = async (courier: string) =>
        (await page.locator('section.plan-route h3', { hasText: courierName[courier]! }).locator('kbd').textContent())!;
      const picked = idOf[all[3]!]!;
      for (const [to, want] of [
        [small!, [last, all[3]]],
        [big!, all.slice(0, 4)],
      ] as const) {
        await page.locator(`path[data-stop="${picked}"]`).click();
        await expect
          .poll(() => page.evaluate<string | null>('document.activeElement?.getAttribute("data-order") ?? null'))
          .toBe(picked);
        await page.keyboard.press(await keyOf(to));
        await expect.poll(async () => stopsOf(await read(), to)).toEqual(want);
        await idle();
      }
      // A lane folds away and opens again.
      const bigList = page.getByRole('list', { name: `Stops of ${bigName}` });
      await page.getByRole('button', { name: 'Hide stops' }).first().click();
      await expect.poll(() => page.locator('ol.stops[hidden]').count()).toBe(1);
      await page.getByRole('button', { name: 'Show stops' }).click();
      await bigList.waitFor();
      expect(await page.locator('ol.stops[hidden]').count()).toBe(0);

      await page.getByRole('button', { name: 'Commit', exact: true }).click();
      await page.getByText(/Committed: 2 routes created/).waitFor();
      const committed = await read();
      const want: Record<string, string[]> = { [big!]: all.slice(0, 4), [small!]: [last] };
      expect(committed.route_ids).toHaveLength(2);
      for (const rid of committed.route_ids) {
        const route = (await op('GET', `/v1/routes/${rid}`)).body;
        expect(route.stops.map((s: { order: string }) => nameOf[s.order])).toEqual(want[route.courier.id]);
        for (const s of route.stops as { order: string }[]) {
          const o = (await op('GET', `/v1/orders/${s.order}`)).body;
          expect([o.status, o.courier?.id, o.route]).toEqual(['assigned', route.courier.id, rid]);
        }
      }
      expect(cspErrors).toEqual([]);
      await page.context().close();
    },
    90_000,
  );

  it.skipIf(!hasChromium)(
    `lets an admin create an environment's first depot, with the API's error next to its field${skipNote}`,
    async () => {
      const { page, cspErrors } = await signedInPage(360, 740, 'admin');
      // Depots belong to one environment: live has none yet.
      await page.getByRole('radio', { name: 'Live' }).check();
      await page.getByText('No depot yet.').waitFor();
      await page.getByLabel('Depot name *').fill('Callao');
      await page.getByLabel('Latitude *').fill('-12.05');
      await page.getByLabel('Longitude *').fill('-77.12');
      await page.getByLabel('Time zone').fill('Mars/Olympus');
      await page.getByRole('button', { name: 'Create depot' }).click();
      await page.locator('.field.has-error', { hasText: 'Time zone' }).getByRole('alert').waitFor();
      await page.getByLabel('Time zone').fill('America/Lima');
      await page.getByRole('button', { name: 'Create depot' }).click();
      await page.getByText('No depot yet.').waitFor({ state: 'detached' });
      const live = client(web.t.app, await newOperator(web.t, 'live'));
      const depots = (await live('GET', '/v1/depots')).body.data as { id: string; name: string; timezone: string }[];
      expect(depots.map((d) => [d.name, d.timezone])).toEqual([['Callao', 'America/Lima']]);
      await expect(page.getByLabel('Depot', { exact: true }).inputValue()).resolves.toBe(depots[0]?.id);
      expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
      expect(cspErrors).toEqual([]);
      await page.context().close();
    },
  );
});
