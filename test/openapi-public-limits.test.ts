import { afterAll, beforeAll, expect, it } from 'vitest';
import { client, describeEach, startApp, type TestApp } from './helpers.js';

/**
 * The keyless operations are limited per client address (`installRateLimit(…, 'ip')`), so each of
 * them can answer 429: the document must say so, or a generated client (the console's) is typed
 * against an answer list that misses one. Every operation with `security: []` is driven past the
 * limit; whichever answers 429 must list it, with the one Error body.
 */
type Json = Record<string, any>;
const LIMIT = 2;

describeEach('429 in the document of the per-address limited operations', (engine) => {
  let t: TestApp;
  let doc: Json;
  // Held still: the limit counts in fixed 60 s windows, and a window ending mid-test would reset it.
  const now = Date.parse('2026-03-02T10:00:00Z');
  beforeAll(async () => {
    // RUTA_RATE_LIMIT_SYNC_MS=0: on PostgreSQL, one upsert per hit, so the count is exact at every
    // request (the batched store can count low while a sync is in flight).
    const env = { RUTA_PUBLIC_RATE_LIMIT_PER_MIN: String(LIMIT), RUTA_RATE_LIMIT_SYNC_MS: '0' };
    t = await startApp(engine, env, { clock: () => now });
    doc = (await client(t.app)('GET', '/v1/openapi.json')).body;
  });
  afterAll(() => t.close());

  it('lists 429 on every keyless operation that answers it', async () => {
    const call = client(t.app);
    const limited: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths as Json)) {
      for (const [method, op] of Object.entries(ops as Json)) {
        if (!Array.isArray(op.security) || op.security.length > 0) continue;
        const url = path.replace(/\{[^}]+\}/g, 'x');
        let res = await call(method.toUpperCase() as 'GET', url, method === 'post' ? {} : undefined);
        for (let i = 0; i < LIMIT && res.status !== 429; i++) {
          res = await call(method.toUpperCase() as 'GET', url, method === 'post' ? {} : undefined);
        }
        if (res.status !== 429) continue;
        limited.push(op.operationId);
        expect(res.body.error.code, op.operationId).toBe('rate_limited');
        expect(res.headers['retry-after'], op.operationId).toBeDefined();
        expect(Object.keys(op.responses), op.operationId).toContain('429');
        expect(op.responses['429'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
      }
    }
    // The sign-in scope (the console's sign-in, invitation and reset pages, the courier's code) and
    // public tracking with the customer's actions and live stream: if one stopped answering 429, the check above would pass without it.
    expect(limited.sort()).toEqual(
      [
        'acceptInvitation',
        'completePasswordReset',
        'createCourierSession',
        'createSession',
        'findTrackingPage',
        'getInvitation',
        'getPasswordReset',
        'getPublicTracking',
        'getTrackingPage',
        'giveTrackingInstructions',
        'rateDelivery',
        'rescheduleFromTracking',
        'streamTracking',
      ].sort(),
    );
  });
});
