import { connect } from 'node:net';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findUnstorable } from '../src/shared/input.js';
import { client, describeEach, type Merchant, newMerchant, newOperator, startApp, type TestApp } from './helpers.js';
import { tinyPng } from './lifecycle-helpers.js';

/** A body that records how much of it the server read; `chunks` of 64 KiB, produced only on demand. */
function trackedBody(first: Buffer, chunks: number) {
  const state = { reads: 0, bytes: 0 };
  let i = 0;
  const stream = new Readable({
    read() {
      state.reads++;
      if (i > chunks) return void this.push(null);
      const chunk = i === 0 ? first : Buffer.alloc(64 * 1024, 7);
      i++;
      state.bytes += chunk.length;
      this.push(chunk);
    },
  });
  return { stream, state };
}

/** Sends raw bytes over a socket and returns everything the server answered before closing. */
function rawRequest(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let out = '';
    socket.setEncoding('latin1');
    socket.on('data', (d) => {
      out += d;
    });
    socket.on('end', () => resolve(out));
    socket.on('close', () => resolve(out));
    socket.on('error', reject);
    socket.write(bytes, 'latin1');
  });
}

function parseRaw(text: string) {
  const [head = '', body = ''] = text.split('\r\n\r\n', 2);
  const [status = '', ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const l of lines) {
    const at = l.indexOf(':');
    headers[l.slice(0, at).toLowerCase()] = l.slice(at + 1).trim();
  }
  return { status: Number(status.split(' ')[1]), headers, body };
}

describe('findUnstorable', () => {
  it('never walks a binary value entry by entry', () => {
    const buf = Buffer.alloc(1024);
    let touched = false;
    Object.defineProperty(buf, 'probe', {
      enumerable: true,
      get() {
        touched = true;
        return 'x';
      },
    });
    expect(findUnstorable({ file: buf })).toBeUndefined();
    expect(findUnstorable(buf)).toBeUndefined();
    expect(touched).toBe(false);
  });

  it('names strings that are not well-formed Unicode, in values and in keys', () => {
    expect(findUnstorable({ a: { b: ['ok', 'x\ud800y'] } })).toMatchObject({ param: 'a.b[1]' });
    expect(findUnstorable({ m: { 'k\udc00': 'v' } })).toMatchObject({ param: 'm' });
    expect(findUnstorable({ a: 'emoji \ud83d\ude00 is fine' })).toBeUndefined();
  });
});

describeEach('hostile input', (engine) => {
  let t: TestApp;
  let m: Merchant;
  let op: string;

  beforeAll(async () => {
    t = await startApp(engine);
    m = await newMerchant(t);
    op = await newOperator(t, 'test');
  });
  afterAll(async () => t?.close());

  describe('uploads', () => {
    it('refuses a live merchant key with 403 before reading any of the body', async () => {
      const { stream, state } = trackedBody(tinyPng(2), 32);
      const res = await t.app.inject({
        method: 'POST',
        url: '/v1/files?purpose=signature',
        headers: { authorization: `Bearer ${m.live}`, 'content-type': 'image/png' },
        payload: stream,
      });
      expect(res.statusCode).toBe(403);
      expect(res.json().error).toMatchObject({ code: 'permission_denied', request_id: res.headers['request-id'] });
      expect(state.bytes).toBe(0);
    });

    it('refuses bytes that are not the declared image from the first chunk, without reading the rest', async () => {
      const { stream, state } = trackedBody(Buffer.from('GIF89a, not a PNG at all'), 128);
      const res = await t.app.inject({
        method: 'POST',
        url: '/v1/files?purpose=signature',
        headers: { authorization: `Bearer ${op}`, 'content-type': 'image/png' },
        payload: stream,
      });
      expect(res.statusCode).toBe(422);
      expect(res.json().error).toMatchObject({ code: 'parameter_invalid', type: 'invalid_request_error' });
      expect(res.json().error.message).toContain('image/png');
      // 128 chunks of 64 KiB were on offer; the answer came after the first few.
      expect(state.bytes).toBeLessThan(1024 * 1024);
    });

    it('still stores a large valid image whole', async () => {
      const png = Buffer.concat([tinyPng(2), Buffer.alloc(3 * 1024 * 1024, 1)]);
      const res = await client(t.app, op)('POST', '/v1/files?purpose=photo', png, { 'content-type': 'image/png' });
      expect(res.status).toBe(201);
      expect(res.body.size).toBe(png.length);
    });
  });

  describe('date-times', () => {
    it('a leap second (which no JavaScript Date can hold) is a 422 naming the parameter, not a 500', async () => {
      const call = client(t.app, op);
      const courier = (await call('POST', '/v1/couriers', { name: 'Luis' })).body.id;
      const ping = await call('POST', `/v1/couriers/${courier}/location`, {
        lat: -12.1,
        lng: -77.0,
        recorded_at: '2016-12-31T23:59:60Z',
      });
      expect(ping.status).toBe(422);
      expect(ping.body.error).toMatchObject({ code: 'parameter_invalid', param: 'recorded_at' });

      // RFC 3339 also allows an offset of hours only, which Date.parse cannot read either.
      for (const value of ['2016-12-31T23:59:60Z', '2016-12-31T23:59:59+05']) {
        const list = await client(t.app, m.test)('GET', `/v1/orders?created_gte=${encodeURIComponent(value)}`);
        expect(list.status, value).toBe(422);
        expect(list.body.error).toMatchObject({ code: 'parameter_invalid', param: 'created_gte' });
      }
    });

    it('ordinary date-times with offsets and fractions still work', async () => {
      const list = await client(t.app, m.test)(
        'GET',
        `/v1/orders?created_gte=${encodeURIComponent('2016-12-31T23:59:59.123456+05:00')}`,
      );
      expect(list.status).toBe(200);
    });
  });

  describe('integer parameters', () => {
    it('an integer beyond 2^53 - 1 (or in exponent form) is a 422 naming the parameter, on every engine', async () => {
      const call = client(t.app, m.test);
      const ep = (await call('POST', '/v1/webhook_endpoints', { url: 'https://93.184.215.14/hooks', events: ['*'] }))
        .body.id;
      for (const v of ['9223372036854775296', '1e20', '9007199254740992']) {
        // Attempt cursors are ids (whatt_…) now: a number names no attempt, and never reaches SQL as one.
        const res = await call('GET', `/v1/webhook_endpoints/${ep}/deliveries?starting_after=${v}`);
        expect(res.status, v).toBe(422);
        expect(res.body.error).toMatchObject({ code: 'parameter_invalid', param: 'starting_after' });
        const list = await call('GET', `/v1/orders?limit=${v}`);
        expect(list.status, v).toBe(422);
        expect(list.body.error).toMatchObject({ param: 'limit' });
      }
      expect((await call('GET', `/v1/webhook_endpoints/${ep}/deliveries?limit=100`)).status).toBe(200);
    });

    it('every integer the API accepts has bounds within the safe-integer range', async () => {
      const doc = (await client(t.app)('GET', '/v1/openapi.json')).body;
      const unbounded: string[] = [];
      const visit = (s: any, where: string, seen: Set<unknown>) => {
        if (s === null || typeof s !== 'object' || seen.has(s)) return;
        seen.add(s);
        if (typeof s.$ref === 'string') {
          const name = s.$ref.split('/').pop();
          visit(doc.components?.schemas?.[name], `${where}→${name}`, seen);
        }
        const types = Array.isArray(s.type) ? s.type : [s.type];
        if (types.includes('integer')) {
          const ok =
            Number.isSafeInteger(s.minimum ?? s.exclusiveMinimum) &&
            Number.isSafeInteger(s.maximum ?? s.exclusiveMaximum);
          if (!ok) unbounded.push(where);
        }
        for (const [k, v] of Object.entries(s))
          if (k !== 'example' && k !== 'examples') visit(v, `${where}.${k}`, seen);
      };
      for (const [path, item] of Object.entries<any>(doc.paths)) {
        for (const [method, op] of Object.entries<any>(item)) {
          for (const p of op.parameters ?? []) visit(p.schema, `${method} ${path} ${p.in}:${p.name}`, new Set());
          const body = op.requestBody?.content?.['application/json']?.schema;
          if (body) visit(body, `${method} ${path} body`, new Set());
        }
      }
      expect(unbounded).toEqual([]);
    });
  });

  describe('strings that are not valid Unicode', () => {
    const orderWith = (name: string) =>
      `{"external_order_id":"U-1","customer":{"name":"${name}","phone":"+51987654321"},` +
      '"delivery_address":{"address":"Av. Larco 123","city":"Lima"},"items":[{"description":"Box","weight_kg":1}]}';

    it('a lone surrogate (escaped in JSON) is a 422 naming the field, and nothing is stored', async () => {
      const call = client(t.app, m.test);
      const before = (await call('GET', '/v1/orders')).body.data.length;
      const res = await call('POST', '/v1/orders', orderWith('x\\ud800y'), { 'content-type': 'application/json' });
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'parameter_invalid', param: 'customer.name' });
      expect((await call('GET', '/v1/orders')).body.data.length).toBe(before);
      // A surrogate pair is a real character and is kept.
      const ok = await call('POST', '/v1/orders', orderWith('x\\ud83d\\ude00y'), {
        'content-type': 'application/json',
      });
      expect(ok.status).toBe(201);
      expect(ok.body.customer.name).toBe('x\u{1f600}y');
    });

    it('invalid UTF-8 bytes in a body are a 400, not silently replaced', async () => {
      // "A\xc3B": 0xc3 starts a two-byte sequence that "B" cannot continue.
      const [head = '', tail = ''] = orderWith('A|B').split('|');
      const bad = Buffer.concat([Buffer.from(head), Buffer.from([0xc3]), Buffer.from(tail)]);
      const res = await client(t.app, m.test)('POST', '/v1/orders', bad, { 'content-type': 'application/json' });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_json', type: 'invalid_request_error' });
      expect(res.body.error.message).toContain('UTF-8');
    });
  });

  describe('requests Node itself refuses', () => {
    let port: number;
    beforeAll(async () => {
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const addr = t.app.server.address();
      port = typeof addr === 'object' && addr ? addr.port : 0;
    });

    it('a control character in a header gets the Error body and a Request-Id', async () => {
      const res = parseRaw(await rawRequest(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-Bad: a\u0001b\r\n\r\n'));
      expect(res.status).toBe(400);
      expect(res.headers['request-id']).toMatch(/^req_/);
      expect(res.headers['content-type']).toContain('application/json');
      const body = JSON.parse(res.body);
      expect(body.error).toMatchObject({ type: 'invalid_request_error', request_id: res.headers['request-id'] });
      expect(typeof body.error.code).toBe('string');
    });

    it('an oversized header gets 431 with the Error body and a Request-Id', async () => {
      const res = parseRaw(
        await rawRequest(port, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`),
      );
      expect(res.status).toBe(431);
      expect(res.headers['request-id']).toMatch(/^req_/);
      const body = JSON.parse(res.body);
      expect(body.error).toMatchObject({
        type: 'invalid_request_error',
        code: 'request_header_too_large',
        request_id: res.headers['request-id'],
      });
    });
  });
});
