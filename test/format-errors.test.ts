import { afterAll, beforeAll, expect, it } from 'vitest';
import { client, describeEach, newOperator, startApp, type TestApp } from './helpers.js';

/**
 * A value of the wrong format is refused in words that say what to send, not with the field's
 * OpenAPI description in brackets ("must be a valid date (expected The local day; default: today)").
 */
describeEach('format errors', (engine) => {
  let t: TestApp;
  let op: string;
  beforeAll(async () => {
    t = await startApp(engine);
    op = await newOperator(t, 'test');
  });
  afterAll(async () => t?.close());

  it('say what a day, a time and a currency look like', async () => {
    const call = client(t.app, op);
    const courier = (await call('POST', '/v1/couriers', { name: 'Formato' })).body;
    const cases: [string, string, Record<string, unknown> | undefined, string][] = [
      ['GET', '/v1/cash/end_of_day?day=2026-13-40', undefined, 'Invalid day: must be a calendar day, YYYY-MM-DD.'],
      [
        'POST',
        `/v1/couriers/${courier.id}/location`,
        { lat: -12.1, lng: -77, recorded_at: 'yesterday' },
        'Invalid recorded_at: must be a date and time with its offset, like 2026-12-07T09:30:00-05:00.',
      ],
      [
        'POST',
        `/v1/couriers/${courier.id}/cash_handovers`,
        { amount: 5, currency: 'ZZZ', received_by: 'Caja' },
        'Invalid currency: must be an ISO 4217 currency code, like PEN.',
      ],
    ];
    for (const [method, path, body, message] of cases) {
      const res = await call(method, path, body);
      expect(res.status, path).toBe(422);
      expect(res.body.error.message, path).toBe(message);
    }
  });
});
