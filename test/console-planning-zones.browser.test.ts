import { expect, it } from 'vitest';
import { hasChromium, openPage, skipNote, submitSignIn, useBrowserApp } from './browser-helpers.js';
import { client, describeEach, newMerchant, newOperator, validOrder } from './helpers.js';
import { newUser } from './people-helpers.js';
import { solvedPlan } from './route-plan-helpers.js';

/**
 * Depots in two zones. A plan reads its stops' windows in its depot's zone (docs/planning.md), while
 * the form's "Times in" names the depot picked for the next plan: once another one is picked, the
 * two differ, so each stop names its zone, as a courier's shift does on the Couriers page (hoursIn).
 */
describeEach('console planning with depots in two zones', (engine) => {
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
        merchant = (await newMerchant(t, 'Tienda Zonas')).test;
        const call = client(t.app, op);
        const depot = async (name: string, lat: number, lng: number, timezone: string) => {
          const res = await call('POST', '/v1/depots', { name, lat, lng, timezone });
          expect(res.status, JSON.stringify(res.body)).toBe(201);
          return res.body;
        };
        madrid = await depot('Madrid', 40.4168, -3.7038, 'Europe/Madrid');
        lima = await depot('Surquillo', -12.1211, -77.0297, 'America/Lima');
        courier = (await call('POST', '/v1/couriers', { name: 'Zoe Zonas' })).body;
      },
    },
  );

  it.skipIf(!hasChromium)(`each stop's window names the plan's zone, not the form's${skipNote}`, async () => {
    const made = await client(web.t.app, merchant)(
      'POST',
      '/v1/orders',
      validOrder({
        customer: { name: 'Vera Ventana', phone: '+51987654321' },
        time_window: { start: '10:00', end: '13:00' },
      }),
    );
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const plan = await solvedPlan<{ id: string }>(web.t, op, {
      date: '2030-03-04',
      depot: lima.id,
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
    await page.getByText('Times in America/Lima').waitFor();
    expect(await stop.textContent()).toContain('window 10:00–13:00 (America/Lima)');

    // Madrid picked for the next plan: the form names its zone, this plan's stop still names Lima's.
    await page.getByLabel('Depot').selectOption(madrid.id);
    await page.getByText('Times in Europe/Madrid').waitFor();
    expect(await stop.textContent()).toContain('window 10:00–13:00 (America/Lima)');
    await page.context().close();
  });
});
