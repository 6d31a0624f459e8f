import { gzipSync } from 'node:zlib';
import { expect, it } from 'vitest';
import { client, describeEach, useApp, useMerchant, useOperator, validOrder } from './helpers.js';
import { tinyPng } from './lifecycle-helpers.js';

/**
 * Bodies refused for what they are rather than for their syntax (src/shared/request-body.ts): the
 * message says what was refused, in the one Error body.
 */
describeEach('request bodies', (engine) => {
  const t = useApp(engine);
  const m = useMerchant(t);
  const op = useOperator(t);
  const json = { 'content-type': 'application/json' };

  it('a __proto__ key is refused as such, naming where it is, and nothing is created', async () => {
    const call = client(t.app, m.test);
    const order = JSON.stringify(validOrder());
    for (const [body, param, key] of [
      ['{"__proto__":{"admin":true}}', '__proto__', '"__proto__"'],
      [`${order.slice(0, -1)},"metadata":{"__proto__":{"x":1}}}`, 'metadata.__proto__', '"__proto__"'],
      ['{"items":[{"constructor":{"prototype":{"x":1}}}]}', 'items[0].constructor', '"constructor"'],
    ] as const) {
      const res = await call('POST', '/v1/orders', body, json);
      expect(res.status, body).toBe(400);
      expect(res.body.error, body).toMatchObject({ type: 'invalid_request_error', code: 'invalid_json', param });
      expect(res.body.error.message, body).toContain(key);
      expect(res.body.error.message, body).not.toContain('not valid JSON');
      expect(res.body.error.request_id).toBe(res.headers['request-id']);
    }
    expect((await call('GET', '/v1/orders')).body.data).toEqual([]);
    // A key merely named "constructor" (no prototype inside) is ordinary data: an unknown field here.
    const plain = await call('POST', '/v1/orders', { ...validOrder(), constructor: 'x' });
    expect(plain.body.error).toMatchObject({ code: 'parameter_unknown', param: 'constructor' });
    // Broken JSON is still said to be broken.
    const broken = await call('POST', '/v1/orders', '{"__proto__":', json);
    expect(broken.body.error).toMatchObject({ code: 'invalid_json', message: 'The request body is not valid JSON.' });
  });

  it('a compressed body is 415 naming its Content-Encoding, whatever the route; uncompressed goes through', async () => {
    const call = client(t.app, m.test);
    const order = JSON.stringify(validOrder());
    for (const [coding, body] of [
      ['gzip', gzipSync(order)],
      ['br', order],
      ['deflate', order],
      ['identity, gzip', gzipSync(order)],
    ] as const) {
      const res = await call('POST', '/v1/orders', body, {
        ...json,
        'content-encoding': coding,
        'idempotency-key': 'k1',
      });
      expect(res.status, coding).toBe(415);
      expect(res.body.error, coding).toMatchObject({ type: 'invalid_request_error', code: 'unsupported_media_type' });
      expect(res.body.error.message, coding).toContain('Content-Encoding');
      expect(res.body.error.message, coding).toContain(coding.replace('identity, ', ''));
      expect(res.headers['accept-encoding'], coding).toBe('identity');
    }
    // An upload too: its bytes are not read as a (broken) image.
    const png = tinyPng();
    const upload = await client(t.app, op.key)('POST', '/v1/files?purpose=photo', gzipSync(png), {
      'content-type': 'image/png',
      'content-encoding': 'gzip',
    });
    expect(upload.status).toBe(415);
    expect(upload.body.error.message).toContain('Content-Encoding');
    expect((await call('GET', '/v1/orders')).body.data).toEqual([]);
    // Nothing was kept under the idempotency key: the same key with the plain body creates the order.
    const plain = await call('POST', '/v1/orders', order, {
      ...json,
      'content-encoding': 'identity',
      'idempotency-key': 'k1',
    });
    expect(plain.status).toBe(201);
    // A request without a body is not refused for the header alone.
    expect((await call('GET', '/v1/orders', undefined, { 'content-encoding': 'gzip' })).status).toBe(200);
  });
});
