import { afterAll, beforeAll, expect, it } from 'vitest';
import { client, describeEach, newOperator, type Res, startApp, type TestApp } from './helpers.js';
import { newCourier } from './money-helpers.js';

/**
 * No cash request names a day after today in the carrier's zone (a day to come has no cash yet: its
 * zeros would read as counted and balanced): `to` of `GET /v1/couriers/{id}/cash` and
 * `GET /v1/cash/exceptions` is refused as end_of_day's `day` and a handover's `day` are, 422 in the
 * same words. Today and earlier still answer; the reports' `to` (orders due on days to come) is not
 * cash and stays open.
 */
describeEach('money: no day after today', (engine) => {
  let t: TestApp;
  // 22:00 on the 20th in Lima, already the 21st in UTC.
  const now = Date.parse('2026-11-21T03:00:00Z');
  beforeAll(async () => {
    t = await startApp(engine, { RUTA_DEFAULT_TIMEZONE: 'America/Lima' }, { clock: () => now });
  });
  afterAll(async () => t?.close());

  const TODAY = 'today is 2026-11-20 in America/Lima';
  const refused = (res: Res, param: string, context: string) => {
    expect(res.status, `${context}: ${JSON.stringify(res.body).slice(0, 300)}`).toBe(422);
    expect(res.body.error, context).toMatchObject({
      code: 'parameter_invalid',
      param,
      message: `Invalid ${param}: must be today or earlier (${TODAY}).`,
    });
  };

  it('refuses to after today on a courier’s cash and the exceptions, as end_of_day and a handover refuse day', async () => {
    const op = await newOperator(t);
    const call = client(t.app, op);
    const courier = await newCourier(t, op, 'Fausto Future');
    const cash = `/v1/couriers/${courier}/cash`;

    for (const to of ['2026-11-21', '2099-01-01']) {
      refused(await call('GET', `${cash}?to=${to}`), 'to', `cash to=${to}`);
      refused(await call('GET', `${cash}?from=2026-11-20&to=${to}`), 'to', `cash from today to=${to}`);
      refused(await call('GET', `/v1/cash/exceptions?to=${to}`), 'to', `exceptions to=${to}`);
      refused(await call('GET', `/v1/cash/exceptions?status=open&from=2026-11-01&to=${to}`), 'to', `open to=${to}`);
      // The day's own refusals, in the same words.
      refused(await call('GET', `/v1/cash/end_of_day?day=${to}`), 'day', `end_of_day day=${to}`);
      refused(
        await call('POST', `/v1/couriers/${courier}/cash_handovers`, {
          amount: 1,
          currency: 'PEN',
          received_by: 'Caja',
          day: to,
        }),
        'day',
        `handover day=${to}`,
      );
    }
    // Nothing was recorded.
    expect((await call('GET', cash)).body.handovers).toEqual([]);

    // Today (the 20th in Lima, whatever UTC says) and earlier answer, as the defaults do.
    for (const qs of ['', '?to=2026-11-20', '?from=2026-11-19&to=2026-11-20', '?to=2026-10-01']) {
      const mine = await call('GET', `${cash}${qs}`);
      expect(mine.status, qs).toBe(200);
      const exceptions = await call('GET', `/v1/cash/exceptions${qs}`);
      expect(exceptions.status, qs).toBe(200);
    }
    expect((await call('GET', cash)).body).toMatchObject({ from: '2026-11-07', to: '2026-11-20' });

    // A `from` after today is still refused for coming after `to`, as before.
    const late = await call('GET', `${cash}?from=2026-11-21`);
    expect(late.status).toBe(422);
    expect(late.body.error).toMatchObject({ param: 'from', message: 'Invalid from: after to.' });

    // The reports are not cash: orders due on a day to come are counted.
    expect((await call('GET', '/v1/reports/summary?to=2026-12-31')).status).toBe(200);

    // Resolving an exception of a day to come finds nothing to resolve, as before (not a refused span).
    const ahead = await call('POST', `/v1/cash/exceptions/cex_${courier}_2026-11-21_PEN/resolve`, { note: 'x' });
    expect(ahead.status).toBe(409);
    expect(ahead.body.error.code).toBe('cash_balanced');
  });
});
