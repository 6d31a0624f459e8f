import { expect, it } from 'vitest';
import { createAccount } from '../src/features/accounts/service.js';
import { hasChromium, openPage, skipNote, submitSignIn, useBrowserApp } from './browser-helpers.js';
import { client, describeEachInBrowser, newOperator, validOrder } from './helpers.js';
import { newUser } from './people-helpers.js';
import { solvedPlan } from './route-plan-helpers.js';

/**
 * Depots in two zones and a merchant in Lima. A plan from Madrid reads its arrivals in Madrid's
 * zone and each stop's window in the order's own (docs/planning.md), so the stop names the window's
 * zone (hoursIn), as the order page does, whichever depot the form picks for the next plan.
 */
describeEachInBrowser('console planning with depots in two zones', (engine) => {
  let op: string;
  let merchant: string;
  let lima: { id: string };
  let madrid: { id: string };
  let courier: { id: string };

  const web = useBrowserApp(
    engine,
    {},
    {
      setup: async (t) => {
        op = await newOperator(t, 'test');
        merchant = (await createAccount(t.ctx, { name: 'Tienda Zonas', timezone: 'America/Lima' })).keys.test;
        const call = client(t.app, op);
        const depot = async (name: string, lat: number, lng: number, timezone: string, day = {}) => {
          const res = await call('POST', '/v1/depots', { name, lat, lng, timezone, ...day });
          expect(res.status, JSON.stringify(res.body)).toBe(201);
          return res.body;
        };
        madrid = await depot('Madrid', 40.4168, -3.7038, 'Europe/Madrid');
        lima = await depot('Surquillo', -12.1211, -77.0297, 'America/Lima', {
          shift_start: '09:00',
          shift_end: '12:00',
        });
        await call('POST', '/v1/couriers', { name: 'Lucho Lima', start_depot: lima.id });
        courier = (await call('POST', '/v1/couriers', { name: 'Zoe Zonas', shift_start: '08:00', shift_end: '21:00' }))
          .body;
      },
    },
  );

  it.skipIf(!hasChromium)(`each stop's window names the order's zone, not the depot's${skipNote}`, async () => {
    const made = await client(web.t.app, merchant)(
      'POST',
      '/v1/orders',
      validOrder({
        customer: { name: 'Vera Ventana', phone: '+51987654321' },
        time_window: { start: '10:00', end: '13:00' },
        delivery_address: { address: 'Gran Vía 1, Madrid', lat: 40.42, lng: -3.705 },
      }),
    );
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const plan = await solvedPlan<{ id: string }>(web.t, op, {
      date: '2030-03-04',
      depot: madrid.id,
      couriers: [{ courier_id: courier.id }],
      order_ids: [made.body.id],
      time_limit_ms: 500,
    });

    const page = await openPage(web.browser, { viewport: { width: 1280, height: 900 } });
    await submitSignIn(page, web.base, (await newUser(web.t, 'dispatcher')).email);
    await page.getByRole('heading', { name: 'Orders' }).waitFor();
    await page.goto(`${web.base}/console/#/planning/${plan.id}`);
    const stop = page.getByRole('list', { name: 'Stops of Zoe Zonas' }).getByRole('listitem');
    await stop.waitFor();
    await page.getByText('Times in Europe/Madrid').waitFor();
    // 10:00 in Lima (-05:00) is 16:00 in Madrid (+01:00): the courier waits in the plan's zone, the
    // window in the order's, each as it was given.
    expect(await stop.textContent()).toContain('window 10:00–13:00 (America/Lima)');
    expect(await stop.textContent()).toContain('waits until 16:00');

    // Each courier's shift as the server will read it: Lucho's is his start depot's working day,
    // in Lima's zone, whichever depot the plan leaves from; Zoe's own, in the plan depot's.
    const shiftOf = (name: string) => page.locator('.pick-list li', { hasText: name }).textContent();
    await expect(shiftOf('Lucho Lima')).resolves.toContain(
      'shift 09:00–12:00 (America/Lima) (Surquillo’s working day)',
    );
    await expect(shiftOf('Zoe Zonas')).resolves.toContain('shift 08:00–21:00 (Europe/Madrid)');

    // Lima picked for the next plan: this plan's stop is unchanged.
    await page.getByLabel('Depot').selectOption(lima.id);
    await page.getByText('Times in America/Lima').waitFor();
    expect(await stop.textContent()).toContain('window 10:00–13:00 (America/Lima)');
    await page.context().close();
  });
});
