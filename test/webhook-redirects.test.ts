import { afterAll, beforeAll, expect, it } from 'vitest';
import { Dispatcher } from '../src/features/webhooks/dispatcher.js';
import { client, describeEach, newMerchant, startApp, type TestApp, validOrder } from './helpers.js';
import { Receiver, waitFor } from './webhook-receiver.js';

/**
 * A 3xx is a failed attempt (DESIGN §5: redirects are never followed), logged like any other
 * failure: its status, error class `http`, and the first KiB of its body, as a 4xx or 5xx is. Only
 * the statuses that redirect say "redirect" (a 304 or 300 sends the client nowhere).
 */
describeEach('webhook redirects', (engine) => {
  let t: TestApp;
  let rx: Receiver;
  let dispatcher: Dispatcher;

  beforeAll(async () => {
    t = await startApp(engine, { RUTA_WEBHOOK_ALLOW_INSECURE: '1', RUTA_WEBHOOK_RETRY_SCHEDULE: '0.05' });
    rx = await new Receiver().start();
    rx.respond = (r) => {
      const status = Number(r.path.slice(1));
      return {
        status,
        headers: { location: rx.url('/moved'), 'content-type': 'text/plain' },
        body: `body of ${status}`,
      };
    };
    dispatcher = new Dispatcher(t.ctx, { pollMs: 50 }).start();
  });
  afterAll(async () => {
    await dispatcher?.stop(1000);
    await rx?.close();
    await t?.close();
  });

  it('is never followed, and its attempts keep status, class and body as a 500 does', async () => {
    const m = await newMerchant(t);
    const call = client(t.app, m.test);
    const codes = [301, 302, 303, 307, 308, 304, 300, 500];
    const endpoints = new Map<number, string>();
    for (const code of codes) {
      const res = await call('POST', '/v1/webhook_endpoints', { url: rx.url(`/${code}`), events: ['order.created'] });
      expect(res.status).toBe(201);
      endpoints.set(code, res.body.id);
    }
    await call('POST', '/v1/orders', validOrder());
    for (const code of codes) {
      const log = await waitFor(async () => {
        const res = await call('GET', `/v1/webhook_endpoints/${endpoints.get(code)}/deliveries`);
        return res.body.data.length === 2 && res.body.data;
      });
      for (const attempt of log) {
        expect(attempt, String(code)).toMatchObject({
          succeeded: false,
          response_status: code,
          error_class: 'http',
          // A 304 has no body (RFC 9110 §15.4.5): the receiver's server drops it.
          response_body: code === 304 ? null : `body of ${code}`,
        });
        expect(attempt.error_message, String(code)).toBe(
          [301, 302, 303, 307, 308].includes(code) ? `redirect (${code}) not followed` : `HTTP ${code}`,
        );
      }
    }
    expect(rx.on('/moved')).toHaveLength(0);
  });
});
