import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { cspErrorsOf, hasChromium, openPage, skipNote, submitSignIn, useBrowserApp } from './browser-helpers.js';
import { client, describeEachInBrowser, newOperator } from './helpers.js';
import { newUser } from './people-helpers.js';
import { waitFor } from './webhook-receiver.js';

type Box = { name: string; left: number; right: number; top: number; bottom: number };

/**
 * The live map's permanent courier labels, when couriers stand at one spot: each name stays
 * readable, at load and when a courier's ping brings it to the others. Their labels used to be
 * printed over each other.
 */
describeEachInBrowser('the live map keeps the names of couriers at one spot apart', (engine) => {
  const web = useBrowserApp(engine);

  /**
   * The labels of `names`, read in one go (a live update redraws the markers and their labels at any
   * time), once each is drawn inside the map and the labels are where the page put them.
   */
  async function labels(page: Page, names: string[]): Promise<Box[]> {
    return waitFor(async () => {
      const found: (Box | null)[] = await page.evaluate(
        `(() => {
          const map = document.querySelector('.map').getBoundingClientRect();
          const tips = [...document.querySelectorAll('.leaflet-tooltip')];
          return ${JSON.stringify(names)}.map((name) => {
            const el = tips.find((t) => t.textContent.startsWith(name + ' · '));
            const r = el?.getBoundingClientRect();
            if (!r?.width || getComputedStyle(el).visibility === 'hidden' || Number(getComputedStyle(el).opacity) === 0) return null;
            if (r.left < map.left || r.right > map.right || r.top < map.top || r.bottom > map.bottom) return null;
            return { name, left: r.left, right: r.right, top: r.top, bottom: r.bottom };
          });
        })()`,
      );
      return found.every((b) => b !== null) && (found as Box[]);
    });
  }

  const overlapping = (boxes: Box[]) =>
    boxes.flatMap((a, i) =>
      boxes
        .slice(i + 1)
        .filter((b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom)
        .map((b) => `${a.name} and ${b.name}`),
    );

  it.skipIf(!hasChromium)(
    `stacks the labels of couriers at one spot, at load and after a ping brings another there${skipNote}`,
    async () => {
      const op = client(web.t.app, await newOperator(web.t, 'test'));
      const courier = async (name: string, lat: number, lng: number) => {
        const c = (await op('POST', '/v1/couriers', { name })).body as { id: string };
        expect((await op('POST', `/v1/couriers/${c.id}/location`, { lat, lng })).status).toBe(200);
        return c;
      };
      // Ana and Ben at one spot; Cleo well to the north, so the spot is low on the map, with room above.
      const spot = { lat: -12.12, lng: -77.03 };
      const ana = await courier('Ana Uno', spot.lat, spot.lng);
      const ben = await courier('Ben Dos', spot.lat, spot.lng);
      const cleo = await courier('Cleo Tres', -12.07, -77.03);

      const page = await openPage(web.browser, { viewport: { width: 1280, height: 900 } });
      const cspErrors = cspErrorsOf(page);
      const user = await newUser(web.t, 'dispatcher');
      await submitSignIn(page, web.base, user.email);
      await page.getByRole('link', { name: 'Live map' }).click();
      for (const c of [ana, ben, cleo]) await page.locator(`path[data-courier="${c.id}"]`).waitFor();

      // Both names drawn, inside the map, and neither label covers the other.
      await expect.poll(async () => overlapping(await labels(page, ['Ana Uno', 'Ben Dos']))).toEqual([]);

      // Cleo's ping moves her marker onto the spot (the stream's courier.location, no reload): three names.
      expect((await op('POST', `/v1/couriers/${cleo.id}/location`, spot)).status).toBe(200);
      await expect
        .poll(() => page.locator(`path[data-courier="${cleo.id}"]`).getAttribute('data-lat'))
        .toBe(String(spot.lat));
      await expect.poll(async () => overlapping(await labels(page, ['Ana Uno', 'Ben Dos', 'Cleo Tres']))).toEqual([]);
      expect(cspErrors).toEqual([]);
      await page.context().close();
    },
  );
});
