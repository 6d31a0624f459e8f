import { expect, it } from 'vitest';
import { client, describeEach, useApp, useMerchant, useOperator, validOrder } from './helpers.js';

/**
 * A value that does not match its field's pattern is refused in words that say what to send, not
 * with the field's OpenAPI description in brackets, which read as "Invalid account: has the wrong
 * format (expected The carrier (operator keys, admins, dispatchers): one account's orders. …)".
 */
describeEach('pattern errors', (engine) => {
  const t = useApp(engine);
  const merchant = useMerchant(t);
  const operator = useOperator(t);

  it('say what an account id, a PIN, a phone and a time of day look like', async () => {
    const asMerchant = client(t.app, merchant.test);
    const asOperator = client(t.app, operator.key);
    const cases: [typeof asMerchant, string, string, Record<string, unknown> | undefined, string][] = [
      [
        asOperator,
        'GET',
        '/v1/orders?account=ord_1',
        undefined,
        'Invalid account: must be an account id: acct_ then letters and digits.',
      ],
      [
        asOperator,
        'POST',
        '/v1/orders/ord_unknown/deliver',
        { receiver_name: 'Ana', pin: '12a4' },
        'Invalid pin: must be 4 digits.',
      ],
      [
        asMerchant,
        'POST',
        '/v1/orders',
        validOrder({ customer: { name: 'Ana', phone: '987' } }),
        'Invalid customer.phone: must be an E.164 phone number: + then 8 to 15 digits, like +51987654321.',
      ],
      [
        asMerchant,
        'POST',
        '/v1/orders',
        validOrder({ time_window: { start: '25:00', end: '26:00' } }),
        'Invalid time_window.start: must be a time of day, HH:mm from 00:00 to 23:59.',
      ],
    ];
    for (const [call, method, path, body, message] of cases) {
      const res = await call(method, path, body);
      expect(res.status, path).toBe(422);
      expect(res.body.error.code, path).toBe('parameter_invalid');
      expect(res.body.error.message, path).toBe(message);
    }
  });
});
