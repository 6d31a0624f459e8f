import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CHROMIUM, hasChromium, serveApp, signInPhone, skipNote, submitSignIn } from './browser-helpers.js';
import { client, describeEachInBrowser, newMerchant, newOperator, type TestApp, validOrder } from './helpers.js';
import { type PdfPage, readPdf } from './pdf-reader.js';
import { newUser } from './people-helpers.js';

/** A page's barcodes painted black on white at `scale` px/pt, as the 8-bit luma plane of a video frame. */
function luma(page: PdfPage, width: number, height: number, scale: number): Buffer {
  const y = Buffer.alloc(width * height, 235);
  for (const [rx, ry, rw, rh] of page.rects) {
    for (let py = Math.round(ry * scale); py < Math.round((ry + rh) * scale) && py < height; py++) {
      for (let px = Math.round(rx * scale); px < Math.round((rx + rw) * scale) && px < width; px++) {
        y[py * width + px] = 16;
      }
    }
  }
  return y;
}

/**
 * A Y4M video for Chromium's fake camera: `frames` frames of each label in turn, at 4 frames a
 * second, looped by Chromium. Only the barcodes are drawn (the text needs a PDF renderer).
 */
function labelVideo(pages: PdfPage[], frames: number): Buffer {
  const scale = 2;
  const width = 568;
  const height = 852;
  const chroma = Buffer.alloc((width / 2) * (height / 2) * 2, 128);
  const parts: Buffer[] = [Buffer.from(`YUV4MPEG2 W${width} H${height} F4:1 Ip A1:1 C420jpeg\n`)];
  for (const page of pages) {
    const plane = luma(page, width, height, scale);
    for (let i = 0; i < frames; i++) parts.push(Buffer.from('FRAME\n'), plane, chroma);
  }
  return Buffer.concat(parts);
}

describeEachInBrowser('labels printed and scanned on the phone (Chromium, fake camera)', (engine) => {
  let t: TestApp;
  let browser: Browser;
  let base: string;
  let dir: string;
  let op: ReturnType<typeof client>;
  let operator: string;
  const orders: { id: string; tracking_code: string }[] = [];
  let stranger: { id: string; tracking_code: string };
  let route: { id: string };
  let courier: { id: string };

  beforeAll(async () => {
    if (!hasChromium) return;
    ({ t, base } = await serveApp(engine));
    operator = await newOperator(t, 'test');
    op = client(t.app, operator);
    const m = client(t.app, (await newMerchant(t, 'Tienda Sol')).test);
    for (const name of ['Ana Torres', 'Rosa Quispe']) {
      orders.push((await m('POST', '/v1/orders', validOrder({ customer: { name } }))).body);
    }
    stranger = (await m('POST', '/v1/orders', validOrder({ customer: { name: 'Not Mine' } }))).body;
    courier = (await op('POST', '/v1/couriers', { name: 'Juan' })).body;
    route = (await op('POST', '/v1/routes', { courier_id: courier.id, order_ids: orders.map((o) => o.id) })).body;

    // The camera shows stop 2's label, then a label of an order on no route, then stop 2's again.
    const printed = readPdf((await op('GET', `/v1/routes/${route.id}/labels.pdf`)).raw.rawPayload);
    const other = readPdf((await m('GET', `/v1/orders/${stranger.id}/label.pdf`)).raw.rawPayload);
    dir = mkdtempSync(join(tmpdir(), 'ruta-camera-'));
    const video = join(dir, 'labels.y4m');
    writeFileSync(video, labelVideo([printed[1]!, other[0]!], 8));

    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--no-first-run',
        '--disable-background-networking',
        '--use-fake-ui-for-media-stream',
        '--use-fake-device-for-media-stream',
        `--use-file-for-fake-video-capture=${video}`,
      ],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it.skipIf(!hasChromium)(
    `the courier scans stop 2's label (loaded, picked up) and one not on the route; the console shows loaded and missing${skipNote}`,
    async () => {
      const context = await browser.newContext({ viewport: { width: 390, height: 844 }, permissions: ['camera'] });
      const page = await context.newPage();
      page.setDefaultTimeout(15_000);
      await signInPhone(page, { t, base }, operator, courier.id);
      await page.locator('li.stop').nth(1).waitFor();

      await page.getByRole('button', { name: 'Scan' }).click();
      const said = page.locator('.scan-result');
      await said.getByText(`Stop 2 loaded and picked up: ${orders[1]!.tracking_code}`).waitFor({ timeout: 30_000 });
      await said.getByText(`Not on your route: ${stranger.tracking_code}`).waitFor({ timeout: 30_000 });
      // Chromium has no BarcodeDetector on Linux: the WASM reader, loaded on the first scan, read them.
      expect(await page.getByText('Reader: ').textContent()).toMatch(/zxing-wasm|BarcodeDetector/);
      await page.getByRole('button', { name: 'Done' }).click();
      const stop2 = page.locator(`li.stop[data-order="${orders[1]!.id}"]`);
      await stop2.getByText('Loaded').waitFor();
      expect(await page.locator(`li.stop[data-order="${orders[0]!.id}"]`).getByText('Loaded').count()).toBe(0);

      await expect
        .poll(async () => (await op('GET', `/v1/orders/${orders[1]!.id}`)).body, { timeout: 20_000 })
        .toMatchObject({ status: 'picked_up', loaded_at: expect.any(String) });
      expect((await op('GET', `/v1/orders/${stranger.id}`)).body.loaded_at).toBeNull();
      await context.close();

      // The console's route page: stop 1 missing, stop 2 loaded, and the labels PDF.
      const desk = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
      desk.setDefaultTimeout(15_000);
      await submitSignIn(desk, base, (await newUser(t, 'dispatcher')).email);
      await desk.getByRole('link', { name: 'Planning' }).waitFor();
      await desk.goto(`${base}/console/#/routes/${route.id}`);
      await desk.getByText('1 of 2 parcels loaded · 1 missing').waitFor();
      const rows = desk.locator('table.route-stops tbody tr');
      // Numbered as the labels and the phone number them; the time the parcel was loaded, its zone named.
      expect(await rows.locator('td:first-child').allTextContents()).toEqual(['1', '2']);
      expect(await rows.locator('td:last-child').allTextContents()).toEqual([
        'Missing',
        expect.stringMatching(/^Loaded .*\d:\d\d.* \([A-Za-z_]+(\/[A-Za-z_]+)*\)$/),
      ]);
      const [popup] = await Promise.all([
        desk.waitForEvent('popup'),
        desk.getByRole('button', { name: 'Labels (PDF)' }).click(),
      ]);
      expect(popup.url()).toMatch(/^blob:/);

      // A finished stop left with the courier or never went: not missing, as the Routes page counts.
      expect((await op('POST', `/v1/orders/${orders[0]!.id}/cancel`, {})).status).toBe(200);
      await desk.getByRole('button', { name: 'Refresh' }).click();
      await desk.getByText('2 of 2 parcels loaded', { exact: true }).waitFor();
      expect(await rows.locator('td:last-child').first().textContent()).toBe('—');
    },
    120_000,
  );
});
