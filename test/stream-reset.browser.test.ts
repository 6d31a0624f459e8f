import type { Route } from 'playwright-core';
import { expect, it } from 'vitest';
import { hasChromium, openPage, skipNote, submitSignIn, useBrowserApp } from './browser-helpers.js';
import { client, describeEachInBrowser, newMerchant, validOrder } from './helpers.js';
import { newUser } from './people-helpers.js';

/**
 * Issue #18, defect 2, the console's side: a board whose stream dropped while more happened than
 * the server replays (RUTA_STREAM_REPLAY_MAX, here 3) gets `event: reset` when EventSource
 * reconnects, and reloads its list, so the orders it missed appear although none was replayed.
 */
describeEachInBrowser('console board: `event: reset` on a resumed stream reloads the board', (engine) => {
  const web = useBrowserApp(engine, { RUTA_STREAM_REPLAY_MAX: '3' });

  it.skipIf(!hasChromium)(`reloads the list after a reset${skipNote}`, async () => {
    const shop = await newMerchant(web.t, 'Reset Shop');
    const m = client(web.t.app, shop.test);
    const named = (name: string, i: number) =>
      validOrder({ external_order_id: `RS-${i}`, customer: { name, phone: `+5198765430${i}` } });
    await m('POST', '/v1/orders', named('Rosa Quispe', 0));
    const user = await newUser(web.t, 'merchant', shop.accountId);
    const page = await openPage(web.browser, { viewport: { width: 1280, height: 800 } });
    // What the page's EventSource receives, as DevTools shows it.
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Network.enable');
    const received: string[] = [];
    cdp.on('Network.eventSourceMessageReceived', (e) => received.push(e.eventName));
    const opened = page.waitForResponse((r) => new URL(r.url()).pathname === '/v1/stream');
    await submitSignIn(page, web.base, user.email);
    await page.getByRole('link', { name: 'Rosa Quispe' }).waitFor();
    expect((await opened).status()).toBe(200);

    // The reconnect waits until the board has missed more than the server replays.
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let reconnected!: (r: Route) => void;
    const reconnect = new Promise<Route>((r) => {
      reconnected = r;
    });
    await page.route('**/v1/stream*', async (route) => {
      reconnected(route);
      await gate;
      await route.continue();
    });
    const reloads: string[] = [];
    page.on('request', (r) => {
      const u = new URL(r.url());
      if (u.pathname === '/v1/orders' && u.searchParams.get('limit') === '100') reloads.push(u.search);
    });
    // The network drops: every connection of the server ends, the server itself stays up.
    web.t.app.server.closeAllConnections();
    await reconnect;
    const missed = ['Ana Flores', 'Bruno Díaz', 'Carla Ruiz', 'Diego Soto'];
    for (const [i, name] of missed.entries())
      expect((await m('POST', '/v1/orders', named(name, i + 1))).status).toBe(201);
    release();

    for (const name of missed) await page.getByRole('link', { name }).waitFor();
    expect(received).toContain('reset');
    expect(received).not.toContain('order');
    // The whole first page again (limit 100, from the top), not the refresh after an order event (limit 50).
    expect(reloads.some((q) => !q.includes('starting_after'))).toBe(true);
    await page.context().close();
  });
});
