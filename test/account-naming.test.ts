import { expect, it } from 'vitest';
import { client, describeEach, type Res, useApp, useMerchant, useOperator } from './helpers.js';
import { csv, good, HEADER } from './imports-helpers.js';
import { sessionClient, userSession } from './people-helpers.js';

/**
 * An account id the caller gives is answered by what it does in the request (docs/api.md, "Naming
 * an account"): a filter of no account matches nothing (an empty list); the account a request acts
 * for, missing, is 404 naming `account`; a reference in a body, missing, is 422 naming the field.
 * test/isolation.test.ts walks the filters; this file the other two, across features.
 */
describeEach('naming an account', (engine) => {
  const t = useApp(engine);
  const shop = useMerchant(t, 'Naming Shop');
  const op = useOperator(t);
  const NOBODY = 'acct_0000000000nobody';

  const expectMissingAccount = (res: Res, context: string) => {
    expect(res.status, `${context}: ${JSON.stringify(res.body)}`).toBe(404);
    expect(res.body.error, context).toMatchObject({ code: 'resource_missing', param: 'account' });
    expect(res.body.error.message, context).toContain(NOBODY);
  };

  it('the account a request acts for, when it does not exist: 404 naming account, everywhere', async () => {
    const admin = sessionClient(t, await userSession(t, 'admin'));
    const carrier = client(t.app, op.key);
    expectMissingAccount(await admin('GET', `/v1/api_keys?account=${NOBODY}`), 'api keys');
    expectMissingAccount(await carrier('GET', `/v1/proof_settings?account=${NOBODY}`), 'proof settings');
    expectMissingAccount(await carrier('GET', `/v1/notification_settings?account=${NOBODY}`), 'notification settings');
    expectMissingAccount(await carrier('GET', `/v1/order_imports?account=${NOBODY}`), 'imports list');
    const upload = await carrier('POST', `/v1/order_imports?account=${NOBODY}`, csv([HEADER, good(1)]), {
      'content-type': 'text/csv',
    });
    expectMissingAccount(upload, 'import');
    // A merchant naming any account but its own, existing or not, is 403 naming `account`
    // (test/merchant-account-param.test.ts walks every endpoint).
    const merchant = sessionClient(t, await userSession(t, 'merchant', shop.accountId));
    const other = await merchant('GET', `/v1/api_keys?account=${NOBODY}`);
    expect(other.body.error).toMatchObject({ code: 'permission_denied', param: 'account' });
    const report = await client(t.app, shop.test)('GET', `/v1/reports/summary?account=${NOBODY}`);
    expect(report.body.error).toMatchObject({ code: 'permission_denied', param: 'account' });
  });

  it('the same shape everywhere in the query string: acct_a-b is 422 naming account', async () => {
    const carrier = client(t.app, op.key);
    for (const path of ['/v1/order_imports', '/v1/proof_settings', '/v1/orders']) {
      const res = await carrier('GET', `${path}?account=acct_a-b`);
      expect(res.status, path).toBe(422);
      expect(res.body.error, path).toMatchObject({ code: 'parameter_invalid', param: 'account' });
    }
  });

  it('an account referenced in a body, when it does not exist: 422 naming the field', async () => {
    const admin = sessionClient(t, await userSession(t, 'admin'));
    const settlement = await admin('POST', '/v1/settlements', {
      account_id: NOBODY,
      period_start: '2026-11-01',
      period_end: '2026-11-30',
    });
    expect(settlement.status, JSON.stringify(settlement.body)).toBe(422);
    expect(settlement.body.error).toMatchObject({ code: 'parameter_invalid', param: 'account_id' });
    expect(settlement.body.error.message).toContain(NOBODY);
    const key = await admin('POST', '/v1/api_keys', { mode: 'test', account: NOBODY });
    expect(key.status).toBe(422);
    expect(key.body.error).toMatchObject({ code: 'parameter_invalid', param: 'account' });
  });
});
