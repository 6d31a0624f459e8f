import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { IMAGES, PHOTO_PNG } from './browser-helpers.js';
import type { KnownPlace } from './geocoder-server.js';

/**
 * The day's data and small steps of test/day.browser.test.ts (issue #24's acceptance test): a
 * merchant in Lima, a depot in Surquillo, three couriers, and sixteen orders in a Spanish CSV
 * without coordinates, which a local geocoder (speaking Nominatim) places.
 */

export const DEPOT = { name: 'Surquillo', lat: -12.1118, lng: -77.0164, timezone: 'America/Lima' };

/** No courier starts at midnight: each has a shift that the plan's arrival times must fall in. */
export const COURIERS = [
  { name: 'Carla Huamán', phone: '+51911000001', start: '08:00', end: '17:00' },
  { name: 'Diego Paredes', phone: '+51911000002', start: '08:30', end: '17:30' },
  { name: 'Rosa Condori', phone: '+51911000003', start: '09:00', end: '18:00' },
];

/** [customer, phone, address, district, product, lat, lng]: real Lima streets, invented numbers. */
const ROWS: [string, string, string, string, string, number, number][] = [
  ['María Quispe', '+51987100001', 'Av. José Larco 345', 'Miraflores', 'Zapatillas', -12.1245, -77.0301],
  ['Jorge Ramírez', '+51987100002', 'Calle Berlín 210', 'Miraflores', 'Polo', -12.1219, -77.0335],
  ['Lucía Torres', '+51987100003', 'Av. Benavides 1180', 'Miraflores', 'Mochila', -12.1272, -77.0195],
  ['Pedro Castillo', '+51987100004', 'Av. Javier Prado Oeste 757', 'San Isidro', 'Lámpara', -12.0921, -77.0449],
  ['Ana Flores', '+51987100005', 'Calle Las Begonias 415', 'San Isidro', 'Libros', -12.0967, -77.0269],
  ['Carlos Mendoza', '+51987100006', 'Av. Conquistadores 560', 'San Isidro', 'Cafetera', -12.1018, -77.0356],
  ['Elena Ríos', '+51987100007', 'Av. Primavera 1050', 'Santiago de Surco', 'Toallas', -12.1118, -76.9913],
  ['Juan Pérez', '+51987100008', 'Jr. Monte Rosa 240', 'Santiago de Surco', 'Audífonos', -12.1098, -76.9755],
  ['Sofía Vargas', '+51987100009', 'Av. Caminos del Inca 1320', 'Santiago de Surco', 'Vestido', -12.1171, -76.9961],
  ['Miguel Chávez', '+51987100010', 'Av. Grau 320', 'Barranco', 'Parlante', -12.1452, -77.0205],
  ['Rosa Salazar', '+51987100011', 'Jr. Batallón Ayacucho 271', 'Barranco', 'Cuadro', -12.1489, -77.0218],
  ['Luis Gutiérrez', '+51987100012', 'Av. Arequipa 2450', 'Lince', 'Casaca', -12.0832, -77.0347],
  ['Carmen Rojas', '+51987100013', 'Jr. Manuel Candamo 540', 'Lince', 'Perfume', -12.0869, -77.0301],
  ['Raúl Medina', '+51987100014', 'Av. Brasil 1620', 'Jesús María', 'Reloj', -12.0745, -77.0513],
  ['Patricia Díaz', '+51987100015', 'Av. Salaverry 2020', 'Jesús María', 'Termo', -12.0818, -77.0489],
  ['Víctor Huerta', '+51987100016', 'Av. Angamos Este 1550', 'Surquillo', 'Silla', -12.1127, -77.0098],
];

export const CUSTOMERS = ROWS.map((r) => r[0]);

/** What the local geocoder knows: every address of the file, found at house level. */
export const PLACES: KnownPlace[] = ROWS.map(([, , address, district, , lat, lng]) => ({
  match: address,
  lat,
  lng,
  rank: 30,
  name: `${address}, ${district}, Lima, Perú`,
}));

/** The merchant's file, as a Peruvian shop exports it: Spanish headers, no coordinates. */
export function spanishCsv(): string {
  const head = 'pedido,nombre,telefono,direccion,distrito,ciudad,producto,cantidad';
  const lines = ROWS.map(
    ([name, phone, address, district, product], i) =>
      `LIM-${String(i + 1).padStart(3, '0')},${name},${phone},${address},${district},Lima,${product},1`,
  );
  return `${[head, ...lines].join('\r\n')}\r\n`;
}

/** A screenshot for docs/console.md (day-1.png … day-9.png), taken from one engine's run only. */
export async function shot(page: Page, engine: string, n: number, fullPage = false): Promise<void> {
  if (engine !== 'sqlite') return;
  mkdirSync(IMAGES, { recursive: true });
  await page.screenshot({ path: join(IMAGES, `day-${n}.png`), fullPage });
}

/** The text of every "Arrives HH:MM" on the planning page. */
export async function arrivals(page: Page): Promise<string[]> {
  const texts = await page.locator('ol.stops li').allTextContents();
  return texts.map((t) => /Arrives (\d\d:\d\d)/.exec(t)?.[1] ?? `none in "${t}"`);
}

/** YYYY-MM-DD of an instant in a zone. */
export function dayIn(tz: string, iso: string): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: tz }).format(new Date(iso));
}

/** Delivers a stop on the courier's phone, with a photo and the receiver's signature. */
export async function deliver(phone: Page, orderId: string, customer: string): Promise<void> {
  await phone.locator(`li.stop[data-order="${orderId}"]`).getByRole('button', { name: 'Deliver' }).click();
  const title = phone.getByRole('heading', { name: `Deliver to ${customer}` });
  await title.waitFor();
  await phone
    .locator('label.camera input')
    .setInputFiles({ name: 'puerta.png', mimeType: 'image/png', buffer: PHOTO_PNG });
  await phone.getByText('1 photo(s) ready').waitFor();
  await sign(phone);
  await phone.getByRole('button', { name: 'Confirm delivery' }).click();
  await title.waitFor({ state: 'detached' });
}

/** The receiver signs on the phone's pad (imported orders require a signature). */
async function sign(phone: Page): Promise<void> {
  const box = (await phone.getByRole('img', { name: /Signature area/ }).boundingBox())!;
  await phone.mouse.move(box.x + 20, box.y + 40);
  await phone.mouse.down();
  await phone.mouse.move(box.x + 120, box.y + 120, { steps: 8 });
  await phone.mouse.move(box.x + 220, box.y + 50, { steps: 8 });
  await phone.mouse.up();
}

/** The phone map's stop pins not wholly inside the map: each its number and boxes (the failure message). */
export async function pinsOutside(phone: Page): Promise<string[]> {
  const map = (await phone.locator('.stops-map').boundingBox())!;
  const out: string[] = [];
  for (const pin of await phone.locator('.stops-map .stop-pin').all()) {
    const b = (await pin.boundingBox())!;
    const inside =
      b.x >= map.x && b.y >= map.y && b.x + b.width <= map.x + map.width && b.y + b.height <= map.y + map.height;
    if (!inside) out.push(`${await pin.textContent()} ${JSON.stringify(b)} in ${JSON.stringify(map)}`);
  }
  return out;
}

/** How many lines an element's text is laid out on (a wrapped label: 2); a checkbox beside it is not text. */
export function textLines(el: Locator): Promise<number> {
  return el.evaluate((node) => {
    const doc = node.ownerDocument;
    const walker = doc.createTreeWalker(node, 4 /* NodeFilter.SHOW_TEXT */);
    const tops = new Set<number>();
    for (let t = walker.nextNode(); t; t = walker.nextNode()) {
      const range = doc.createRange();
      range.selectNodeContents(t);
      for (const r of range.getClientRects()) if (r.width > 0) tops.add(Math.round(r.top));
    }
    return tops.size;
  });
}
