import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { en } from '../src/features/tracking/i18n/en.js';
import { es } from '../src/features/tracking/i18n/es.js';
import { fill } from '../src/features/tracking/i18n/index.js';
import { pt } from '../src/features/tracking/i18n/pt.js';
import { hasChromium, IMAGES, launch, openPage, serveApp, skipNote } from './browser-helpers.js';
import { client, describeEachInBrowser, type Merchant, newMerchant, newOperator, type TestApp } from './helpers.js';
import { bodyFor, orderIn, tinyPng, upload } from './lifecycle-helpers.js';
import { sessionClient, userSession } from './people-helpers.js';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

async function axeViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: AXE });
  const found = (await page.evaluate(`axe.run(document, {
    runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
    resultTypes: ['violations'],
  }).then((r) => r.violations.map((v) => v.id + ': ' + v.nodes.map((n) => n.target.join(' ')).join(', ')))`)) as string[];
  return found;
}

/**
 * A map tile server the test switches on and off: off, every tile fails (the page must still draw
 * its points and say so); on, each tile is a small PNG.
 */
function startTiles(): Promise<{ server: Server; url: string; up: { on: boolean }; served: { n: number } }> {
  const up = { on: false };
  const served = { n: 0 };
  const png = tinyPng(4, [200, 220, 200]);
  const server = createServer((_req, res) => {
    if (!up.on) return void res.writeHead(503).end();
    served.n += 1;
    res.writeHead(200, { 'content-type': 'image/png', 'access-control-allow-origin': '*' }).end(png);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      resolve({ server, url: `http://127.0.0.1:${port}/{z}/{x}/{y}.png`, up, served });
    }),
  );
}

// The new tracking page in Chromium (issue #20): every status in three languages, the map with and
// without tiles, live update without reload, the three actions, a brand, axe on every state. On
// each engine of RUTA_TEST_BROWSER_ENGINES; the data path is covered on both in tracking-actions.
describeEachInBrowser('tracking page in headless Chromium', (engine) => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let m: Merchant;
  let opKey: string;
  let courier: string;
  let tiles: Awaited<ReturnType<typeof startTiles>>;
  const address = { address: 'Av. Larco 123', district: 'Miraflores', city: 'Lima', lat: -12.1211, lng: -77.0297 };

  beforeAll(async () => {
    if (!hasChromium) return;
    tiles = await startTiles();
    ({ t, base } = await serveApp(engine, {
      RUTA_TRACK_REFRESH_MS: '200',
      RUTA_PUBLIC_RATE_LIMIT_PER_MIN: '0',
      RUTA_MAP_TILES_URL: tiles.url,
    }));
    browser = await launch();
    m = await newMerchant(t, 'Acme Shoes');
    opKey = await newOperator(t, 'live');
    courier = (await client(t.app, opKey)('POST', '/v1/couriers', { name: 'Rosa Quispe' })).body.id;
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    tiles?.server.close();
  });
  const phone = (locale?: string) =>
    openPage(browser, { viewport: { width: 360, height: 740 }, bypassCSP: true, ...(locale ? { locale } : {}) });

  for (const viewport of [
    { width: 360, height: 740 },
    { width: 1280, height: 900 },
  ]) {
    it.skipIf(!hasChromium)(`follows the courier live without a reload at ${viewport.width}px${skipNote}`, async () => {
      tiles.up.on = false;
      const op = client(t.app, opKey);
      const o = await orderIn(t, m.live, opKey, courier, 'picked_up', { delivery_address: address });
      await op('POST', `/v1/couriers/${courier}/location`, { lat: -12.09, lng: -77.04 });
      // bypassCSP: axe-core is injected as an inline script, which the page's CSP rightly refuses.
      const page = await openPage(browser, { viewport, bypassCSP: true });
      await page.goto(`${base}/track/${o.tracking_code}`);
      await expect(page.locator('h1').textContent()).resolves.toBe('Hi Ana, your parcel will be on its way soon');
      // The map draws the destination without tiles (they come from a port nothing listens on),
      // and its note speaks of the one pin there is: no courier is shown before departure.
      await page.locator('#map-card:not([hidden]) .leaflet-container').waitFor();
      await page.locator('#map-note:not([hidden])').waitFor();
      expect(await page.locator('#map path.leaflet-interactive').count()).toBe(1);
      await expect(page.locator('#map-note').textContent()).resolves.toBe(en.ui.mapNoTilesDest);
      await page.evaluate('window.__same = true');
      await op('POST', `/v1/orders/${o.id}/depart`);
      await page.locator('h1:text("Hi Ana, your parcel is on its way")').waitFor();
      // The courier appears on the map once on its way here; the page is the same document.
      await page.locator('#map path.leaflet-interactive >> nth=1').waitFor();
      await page.locator(`#map-note:text("${en.ui.mapNoTiles}")`).waitFor();
      expect(await page.evaluate('window.__same')).toBe(true);
      await expect(page.locator('#eta-text').textContent()).resolves.toMatch(/\d\d:\d\d–\d\d:\d\d/);
      expect(await axeViolations(page)).toEqual([]);
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(viewport.width);
      if (viewport.width === 360) await page.screenshot({ path: join(IMAGES, 'tracking-page.png'), fullPage: true });
      await page.context().close();
    });
  }

  it.skipIf(!hasChromium)(`sends delivery instructions in Spanish and shows them back${skipNote}`, async () => {
    const o = await orderIn(t, m.live, opKey, courier, 'assigned', { delivery_address: address });
    const page = await openPage(browser, { viewport: { width: 360, height: 740 }, locale: 'es-PE', bypassCSP: true });
    await page.goto(`${base}/track/${o.tracking_code}`);
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('es');
    await expect(page.locator('h1').textContent()).resolves.toBe('Hola Ana: estamos preparando tu paquete');
    // One heading names the instructions; it is also the box's name.
    expect(await page.getByText(es.ui.instructions, { exact: true }).count()).toBe(1);
    await page.getByRole('textbox', { name: es.ui.instructions }).fill('Tocar dos veces');
    await page.getByRole('button', { name: 'Guardar instrucciones' }).click();
    await page.locator('.form-msg:text("Gracias")').waitFor();
    await expect(page.locator('#instr').inputValue()).resolves.toBe('Tocar dos veces');
    expect(await axeViolations(page)).toEqual([]);
    // Portuguese by the switch at the foot.
    await page.getByRole('link', { name: 'Português' }).click();
    await expect(page.locator('h1').textContent()).resolves.toBe('Olá Ana, estamos preparando seu pacote');
    await page.context().close();
  });

  it.skipIf(!hasChromium)(
    `every status reads in plain words in three languages, with 0 axe violations${skipNote}`,
    async () => {
      const statuses = [
        'pending',
        'assigned',
        'in_transit',
        'at_location',
        'delivered',
        'failed',
        'returned',
        'rescheduled',
        'cancelled',
      ] as const;
      const finished = ['delivered', 'failed', 'returned', 'cancelled'];
      const page = await phone();
      for (const status of statuses) {
        const o = await orderIn(t, m.live, opKey, courier, status, {
          delivery_address: address,
          requested_date: '2030-01-14',
          time_window: { start: '14:00', end: '18:00' },
        });
        for (const [lang, catalog] of [
          ['en', en],
          ['es', es],
          ['pt', pt],
        ] as const) {
          await page.goto(`${base}/track/${o.tracking_code}?lang=${lang}`);
          const context = `${status} in ${lang}`;
          await expect(page.locator('html').getAttribute('lang'), context).resolves.toBe(lang);
          // One sentence: the greeting and the status together ("Hola Ana: recibimos tu pedido").
          await expect(page.locator('h1').textContent(), context).resolves.toBe(
            fill(catalog.headline[status], { name: 'Ana', merchant: 'Acme Shoes' }),
          );
          // The page's live line says the stream is up: every frame it sent so far is applied.
          await page.locator(`#live:text("${catalog.ui.live}")`).waitFor();
          const main = (await page.locator('main').textContent()) ?? '';
          // Never the customer's phone; axe on each state (the languages share one markup).
          expect(main, context).not.toContain('+51');
          // "Estimated arrival" shows only with a time in it: never an empty box (its `hidden` was
          // once overridden by the box's own `display:flex`), and there is no box at all once the
          // courier is at the door ("any minute now" under "Rosa is at the delivery address") or
          // the attempt is over.
          if (status === 'at_location' || finished.includes(status)) {
            expect(await page.locator('#eta, #stops').count(), context).toBe(0);
            expect(main, context).not.toContain(catalog.ui.etaNow);
          } else {
            const eta = ((await page.locator('#eta-text').textContent()) ?? '').trim();
            expect(await page.locator('#eta').isVisible(), `${context}: ETA "${eta}"`).toBe(eta !== '');
          }
          // The day and window asked for, until the courier sets off (and on the new day); on the
          // way, in place of an arrival estimate while there is none (the courier's phone has not
          // reported a position yet).
          const requested = page.locator('#requested');
          if (status === 'pending' || status === 'assigned' || status === 'rescheduled') {
            await expect(requested.textContent(), context).resolves.toContain(
              fill(catalog.ui.window, { from: '14:00', to: '18:00' }),
            );
          } else if (status === 'in_transit') {
            const estimate = await page.locator('#eta').isVisible();
            expect(await requested.isVisible(), context).toBe(!estimate);
          } else expect(await requested.count(), context).toBe(0);
          // Why the attempt failed, in the customer's words.
          if (status === 'failed') {
            await expect(page.locator('.notice').textContent(), context).resolves.toBe(catalog.failure.customer_absent);
          }
          // The courier card says where the courier is with the parcel ("Rosa is at your door" once
          // there); none before pickup, nor once the attempt is over.
          const card = page.locator('section.courier');
          const line = (catalog.courierCard as Partial<Record<string, string>>)[status];
          if (line) await expect(card.textContent(), context).resolves.toBe(fill(line, { name: 'Rosa' }));
          else expect(await card.count(), context).toBe(0);
          // The map's note speaks of a courier's pin only when there is one; no map after the end.
          if (finished.includes(status)) expect(await page.locator('#map-card').count(), context).toBe(0);
          else if (status === 'pending') {
            await expect(page.locator('#map-note').textContent(), context).resolves.toBe(catalog.ui.mapNoTilesDest);
          }
          if (lang === 'en') expect(await axeViolations(page), context).toEqual([]);
        }
      }
      await page.context().close();
    },
    120_000,
  );

  it.skipIf(!hasChromium)(`draws the map on tiles when they load, with the attribution${skipNote}`, async () => {
    tiles.up.on = true;
    const before = tiles.served.n;
    try {
      const o = await orderIn(t, m.live, opKey, courier, 'in_transit', { delivery_address: address });
      await client(t.app, opKey)('POST', `/v1/couriers/${courier}/location`, { lat: -12.1, lng: -77.03 });
      const page = await phone();
      await page.goto(`${base}/track/${o.tracking_code}`);
      await page.locator('#map img.leaflet-tile-loaded').first().waitFor();
      expect(tiles.served.n).toBeGreaterThan(before);
      await expect(page.locator('.leaflet-control-attribution').textContent()).resolves.toContain('OpenStreetMap');
      expect(await page.locator('#map-note').isHidden()).toBe(true);
      // Destination and courier both drawn.
      expect(await page.locator('#map path.leaflet-interactive').count()).toBe(2);
      expect(await axeViolations(page)).toEqual([]);
      await page.context().close();
    } finally {
      tiles.up.on = false;
    }
  });

  it.skipIf(!hasChromium)(
    `after a failure the customer picks a new day; after delivery, rates it${skipNote}`,
    async () => {
      const failed = await orderIn(t, m.live, opKey, courier, 'failed', { delivery_address: address });
      const page = await phone();
      await page.goto(`${base}/track/${failed.tracking_code}`);
      // No day is chosen for the customer; sending without one is stopped by the form itself.
      expect(await page.locator('input[name="day"]:checked').count()).toBe(0);
      await page.getByRole('button', { name: en.ui.rescheduleSend }).click();
      expect(await page.evaluate(`document.querySelector('input[name="day"]').validity.valueMissing`)).toBe(true);
      expect((await client(t.app, m.live)('GET', `/v1/orders/${failed.id}`)).body.status).toBe('failed');
      const choice = page.locator('label.choice').nth(1);
      const label = ((await choice.textContent()) ?? '').trim();
      await choice.click();
      const day = await page.locator('input[name="day"]:checked').inputValue();
      await page.getByRole('button', { name: en.ui.rescheduleSend }).click();
      await page.locator('main[data-status="rescheduled"]').waitFor();
      await expect(page.locator('h1').textContent()).resolves.toBe('Hi Ana, your delivery has a new date');
      // The thanks names the day chosen (it once read "we will deliver on {day}").
      await expect(page.locator('#live').textContent()).resolves.toBe(fill(en.ui.rescheduled, { day: label }));
      const moved = (await client(t.app, m.live)('GET', `/v1/orders/${failed.id}`)).body;
      expect([moved.status, moved.requested_day]).toEqual(['rescheduled', day]);
      expect(await axeViolations(page)).toEqual([]);

      // Delivered with a photo: the receiver and the photo are shown, and a rating is taken once.
      const o = await orderIn(t, m.live, opKey, courier, 'in_transit', { delivery_address: address });
      const photo = await upload(t, opKey, 'photo', tinyPng(8, [90, 120, 160]));
      const done = await client(t.app, opKey)('POST', `/v1/orders/${o.id}/deliver`, {
        ...bodyFor('deliver', courier),
        photo_files: [photo.body.id],
      });
      expect(done.status, JSON.stringify(done.body)).toBe(200);
      // No star is chosen for the customer: Send waits for one, and says so, in each language.
      for (const [lang, catalog] of [
        ['es', es],
        ['pt', pt],
      ] as const) {
        await page.goto(`${base}/track/${o.tracking_code}?lang=${lang}`);
        await page.locator(`#live:text("${catalog.ui.live}")`).waitFor();
        expect(await page.getByRole('button', { name: catalog.ui.send }).isDisabled(), lang).toBe(true);
        await expect(page.locator('#rate-hint').textContent(), lang).resolves.toBe(catalog.ui.chooseRating);
        expect(await page.getByRole('radiogroup', { name: catalog.ui.rating }).isVisible(), lang).toBe(true);
      }
      await page.goto(`${base}/track/${o.tracking_code}`);
      await expect(page.locator('.proof').textContent()).resolves.toContain('Received by Ana');
      await page.locator('.proof img').waitFor();
      await page.locator(`#live:text("${en.ui.live}")`).waitFor();
      const stars = page.getByRole('radiogroup', { name: en.ui.rating });
      const send = page.getByRole('button', { name: en.ui.send });
      expect(await page.locator('input[name="rating"]:checked').count()).toBe(0);
      expect(await send.isDisabled()).toBe(true);
      expect(await page.locator('#rate-hint').isVisible()).toBe(true);
      expect(await axeViolations(page)).toEqual([]);
      // By keyboard: Space chooses the focused star, the arrow keys move the choice.
      await stars.getByRole('radio', { name: fill(en.ui.stars, { n: 1 }) }).focus();
      await page.keyboard.press('Space');
      expect(await send.isDisabled()).toBe(false);
      expect(await page.locator('#rate-hint').isHidden()).toBe(true);
      for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowRight');
      expect(await stars.getByRole('radio', { name: fill(en.ui.stars, { n: 4 }) }).isChecked()).toBe(true);
      await page.locator('#comment').fill('Muy amable');
      await send.click();
      // The form gives way to the rating given; the thanks moves to the page's status line.
      await page.locator('h2:text("Your rating: 4 of 5")').waitFor();
      await expect(page.locator('#live').textContent()).resolves.toBe(en.ui.thanks);
      const rated = (await client(t.app, m.live)('GET', `/v1/orders/${o.id}`)).body;
      expect(rated.feedback).toMatchObject({ rating: 4, comment: 'Muy amable' });
      expect(await axeViolations(page)).toEqual([]);
      await page.context().close();
    },
  );

  it.skipIf(!hasChromium)(`works without its script: the forms post, the page thanks${skipNote}`, async () => {
    const page = await openPage(browser, { viewport: { width: 360, height: 740 }, javaScriptEnabled: false });
    const o = await orderIn(t, m.live, opKey, courier, 'assigned', { delivery_address: address });
    await page.goto(`${base}/track/${o.tracking_code}?lang=es`);
    await page.locator('#instr').fill('Dejar con el portero');
    await page.getByRole('button', { name: es.ui.save }).click();
    // Back on the page (not a JSON error), thanked on top, the instructions kept.
    await page.locator(`.flash:text("${es.ui.saved}")`).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/track/${o.tracking_code}`);
    await expect(page.locator('#instr').inputValue()).resolves.toBe('Dejar con el portero');
    // The rating's button is not left disabled for want of the script; the stars are required.
    const d = await orderIn(t, m.live, opKey, courier, 'delivered', { delivery_address: address });
    await page.goto(`${base}/track/${d.tracking_code}?lang=en`);
    const send = page.getByRole('button', { name: en.ui.send });
    expect(await send.isDisabled()).toBe(false);
    await send.click();
    expect(await page.evaluate(`document.querySelector('input[name="rating"]').validity.valueMissing`)).toBe(true);
    await page.getByRole('radio', { name: fill(en.ui.stars, { n: 5 }) }).check();
    await send.click();
    await page.locator(`.flash:text("${en.ui.thanks}")`).waitFor();
    await expect(page.locator('#next + p').textContent()).resolves.toBe(en.ui.ratedNext);
    expect((await client(t.app, m.live)('GET', `/v1/orders/${d.id}`)).body.feedback).toMatchObject({ rating: 5 });
    await page.context().close();
  });

  it.skipIf(!hasChromium)(
    `polling, when the stream cannot be had, keeps the arrival and the stops${skipNote}`,
    async () => {
      const op = client(t.app, opKey);
      // A courier of its own, with this one stop: "you are the next stop".
      const own = (await op('POST', '/v1/couriers', { name: 'Pablo Poll' })).body.id;
      const o = await orderIn(t, m.live, opKey, own, 'in_transit', { delivery_address: address });
      await op('POST', `/v1/couriers/${own}/location`, { lat: -12.1, lng: -77.035 });
      const page = await phone('es-PE');
      // A browser without EventSource polls the public JSON (every 20 s, the first at once).
      await page.addInitScript('delete window.EventSource');
      const polled = page.waitForResponse((r) => r.url().includes(`/v1/public/tracking/${o.tracking_code}`));
      await page.goto(`${base}/track/${o.tracking_code}`);
      const served = ((await page.locator('#eta-text').textContent()) ?? '').trim();
      expect(served).toMatch(/^\d\d:\d\d–\d\d:\d\d$/);
      await polled;
      await page.waitForTimeout(300);
      // It once blanked both (the JSON has no words): the box stays, with the window in the page's words.
      expect(await page.locator('#eta').isVisible()).toBe(true);
      await expect(page.locator('#eta-text').textContent()).resolves.toMatch(/^\d\d:\d\d–\d\d:\d\d$/);
      await expect(page.locator('#stops').textContent()).resolves.toBe(es.ui.stopsBeforeNone);
      expect(await page.locator('#stops').isVisible()).toBe(true);
      await page.context().close();
    },
  );

  it.skipIf(!hasChromium)(`the progress labels keep apart on a 360 px phone in every language${skipNote}`, async () => {
    const o = await orderIn(t, m.live, opKey, courier, 'assigned', { delivery_address: address });
    const page = await openPage(browser, { viewport: { width: 360, height: 740 }, javaScriptEnabled: false });
    for (const lang of ['en', 'es', 'pt']) {
      await page.goto(`${base}/track/${o.tracking_code}?lang=${lang}`);
      // Each label's own text (not the hidden state before it): its box on screen.
      const boxes = (await page.evaluate(`[...document.querySelectorAll('.steps li')].map((li) => {
        const r = document.createRange();
        r.selectNodeContents(li.lastChild);
        const b = r.getBoundingClientRect();
        return [b.left, b.right];
      })`)) as [number, number][];
      for (let i = 1; i < boxes.length; i++) {
        const [prev, next] = [boxes[i - 1] as [number, number], boxes[i] as [number, number]];
        expect(next[0] - prev[1], `${lang}: label ${i} and ${i + 1}`).toBeGreaterThanOrEqual(3);
      }
    }
    await page.context().close();
  });

  it.skipIf(!hasChromium)(
    `a code to type, and a code that matches nothing, have a page with a box${skipNote}`,
    async () => {
      const o = await orderIn(t, m.live, opKey, courier, 'pending', { delivery_address: address });
      const page = await phone('pt-BR');
      await page.goto(`${base}/track/${o.tracking_code.slice(0, 11)}`);
      await expect(page.locator('h1').textContent()).resolves.toBe(pt.ui.notFound);
      expect(await axeViolations(page)).toEqual([]);
      // The box holds what was typed; one character more, in groups as on the label, finds it.
      const box = page.getByRole('textbox', { name: pt.ui.findLabel });
      await expect(box.inputValue()).resolves.toBe(o.tracking_code.slice(0, 11));
      await box.fill(o.tracking_code.toLowerCase().replace(/(.{4})(?=.)/g, '$1 '));
      await page.getByRole('button', { name: pt.ui.findButton }).click();
      await expect(page.locator('h1').textContent()).resolves.toBe(fill(pt.headline.pending, { name: 'Ana' }));
      await page.goto(`${base}/track`);
      await expect(page.locator('h1').textContent()).resolves.toBe(pt.ui.findTitle);
      expect(await axeViolations(page)).toEqual([]);
      await page.context().close();
    },
  );

  it.skipIf(!hasChromium)(`wears the merchant's brand: name, colour and logo${skipNote}`, async () => {
    const shop = await newMerchant(t, 'Plain Name');
    const admin = sessionClient(t, await userSession(t, 'admin'), 'live');
    const logo = await upload(t, opKey, 'logo', tinyPng(4, [10, 90, 200]));
    const patched = await admin('PATCH', `/v1/accounts/${shop.accountId}`, {
      branding: { display_name: 'Zapatos Lima', color: '#0a5ac8', logo_file: logo.body.id },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    const o = await orderIn(t, shop.live, opKey, courier, 'assigned', { delivery_address: address });
    const page = await phone('es-PE');
    await page.goto(`${base}/track/${o.tracking_code}`);
    await expect(page.locator('header.brand strong').textContent()).resolves.toBe('Zapatos Lima');
    await page.locator('header.brand img').waitFor();
    expect(await page.evaluate("document.querySelector('header.brand img').naturalWidth")).toBe(4);
    const band = await page.evaluate("getComputedStyle(document.querySelector('header.brand')).backgroundColor");
    expect(band).toBe('rgb(10, 90, 200)');
    expect(await axeViolations(page)).toEqual([]);
    await page.context().close();
  });
});
