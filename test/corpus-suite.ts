import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Engine } from '../src/shared/db/index.js';
import { type CorpusApp, callerOf, startCorpusApp } from './corpus-app.js';
import { ENDPOINTS, type Endpoint, type Field, type Fixture, makeFixture, partsRead } from './corpus-table.js';
import { client, describeOn, type Merchant, type Res, type TestApp, validOrder } from './helpers.js';
import { tinyPng } from './lifecycle-helpers.js';
import { openStream } from './stream-client.js';

/**
 * Bad-input corpus: wrong types, shapes, encodings and sizes thrown at every endpoint. Whatever
 * comes in, the answer is never a 5xx and always the one Error body. Every operation of the
 * OpenAPI document needs a row in ENDPOINTS (test/corpus-table.ts), with a FIELDS list for a body
 * with fields; the first test fails on an operation without one.
 *
 * One file per engine (corpus-sqlite.test.ts, corpus-postgres.test.ts): at 150 s for both it was the
 * slowest file, and a file that long shuffled last is CI's tail.
 */

interface BodyCase {
  name: string;
  /** The raw body, or a function of the endpoint's valid body (to test one flaw in an otherwise good body). */
  payload: string | ((valid: Record<string, unknown>) => string);
  contentType?: string;
  status: number;
  code?: string;
}

const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
/** A row's path with more query parameters (its path may carry some already, e.g. a required status). */
const withQuery = (path: string, qs: string) => `${path}${path.includes('?') ? '&' : '?'}${qs}`;

/** Bodies that are wrong whatever the endpoint. */
const BODY_CASES: BodyCase[] = [
  { name: 'truncated JSON', payload: '{"a":', status: 400, code: 'invalid_json' },
  { name: 'single quotes', payload: "{'a':1}", status: 400, code: 'invalid_json' },
  { name: 'trailing comma', payload: '{"a":1,}', status: 400, code: 'invalid_json' },
  { name: 'trailing garbage', payload: '{}x', status: 400, code: 'invalid_json' },
  { name: 'bare word', payload: 'nul', status: 400, code: 'invalid_json' },
  { name: 'NaN literal', payload: '{"a":NaN}', status: 400, code: 'invalid_json' },
  { name: 'prototype pollution', payload: '{"__proto__":{"x":1}}', status: 400, code: 'invalid_json' },
  { name: 'null', payload: 'null', status: 422, code: 'parameter_invalid' },
  { name: 'array', payload: '[]', status: 422, code: 'parameter_invalid' },
  { name: 'array of objects', payload: '[{}]', status: 422, code: 'parameter_invalid' },
  { name: 'string', payload: '"hello"', status: 422, code: 'parameter_invalid' },
  { name: 'number', payload: '42', status: 422, code: 'parameter_invalid' },
  { name: 'huge number', payload: '1e400', status: 422, code: 'parameter_invalid' },
  { name: 'boolean', payload: 'true', status: 422, code: 'parameter_invalid' },
  {
    name: 'unknown field',
    payload: (v) => JSON.stringify({ ...v, zzz: 1 }),
    status: 422,
    code: 'parameter_unknown',
  },
  { name: 'deeply nested array', payload: deep(100_000), status: 422, code: 'parameter_invalid' },
  {
    name: 'deeply nested unknown field',
    payload: (v) => `${JSON.stringify(v).slice(0, -1)}${Object.keys(v).length ? ',' : ''}"zzz":${deep(100_000)}}`,
    status: 422,
    code: 'parameter_unknown',
  },
  {
    name: 'NUL in a string',
    payload: (v) => JSON.stringify({ ...v, zzz: 'a\u0000b' }),
    status: 422,
    code: 'parameter_invalid',
  },
  {
    name: 'infinite number in a field',
    payload: (v) => `${JSON.stringify(v).slice(0, -1)}${Object.keys(v).length ? ',' : ''}"zzz":1e999}`,
    status: 422,
    code: 'parameter_invalid',
  },
  { name: 'text/plain', payload: '{}', contentType: 'text/plain', status: 415, code: 'unsupported_media_type' },
  {
    name: 'form encoded',
    payload: 'a=1',
    contentType: 'application/x-www-form-urlencoded',
    status: 415,
    code: 'unsupported_media_type',
  },
  {
    name: 'multipart',
    payload: '--x\r\n\r\n--x--',
    contentType: 'multipart/form-data; boundary=x',
    status: 415,
    code: 'unsupported_media_type',
  },
  { name: 'xml', payload: '<a/>', contentType: 'application/xml', status: 415, code: 'unsupported_media_type' },
  {
    name: 'json lookalike type',
    payload: '{}',
    contentType: 'application/jsonx',
    status: 415,
    code: 'unsupported_media_type',
  },
  { name: 'no content type', payload: '{}', contentType: '', status: 415, code: 'unsupported_media_type' },
  {
    name: 'body over 1 MiB',
    payload: JSON.stringify({ zzz: 'x'.repeat(1024 * 1024 + 10) }),
    status: 413,
    code: 'request_too_large',
  },
];

/** Values of every JSON kind; a field rejects those whose kind it does not take. */
const KINDS: [kind: string, value: unknown][] = [
  ['null', null],
  ['integer', 7],
  ['number', 1.5],
  ['string', 'x'],
  ['boolean', true],
  ['array', []],
  ['object', {}],
];

const s500 = 'x'.repeat(501);
const ORDER_FIELDS: Field[] = [
  ['external_order_id', 'string', ['x'.repeat(101)]],
  ['source', 'string', ['x', 'API', '']],
  ['customer', 'object', []],
  ['customer.name', 'string', ['', s500]],
  ['customer.document_type', 'string', [s500]],
  ['customer.document_number', 'string', [s500]],
  ['customer.email', 'string', ['x', 'a@', '@b.com', s500]],
  ['customer.phone', 'string', ['987654321', '+1234567', '+1234567890123456', '+51 987 654 321', '+51-987654321']],
  ['customer.whatsapp', 'string', ['x', '+']],
  ['delivery_address', 'object', []],
  ['delivery_address.address', 'string', ['', s500]],
  ['delivery_address.label', 'string', [s500]],
  ['delivery_address.city', 'string', [s500]],
  ['delivery_address.lat', 'number', [-90.0001, 90.0001, 1e308]],
  ['delivery_address.lng', 'number', [-180.5, 180.5]],
  ['delivery_address.reference', 'string', [s500]],
  ['delivery_address.access_notes', 'string', [s500]],
  ['items', 'array', [Array.from({ length: 501 }, () => ({ description: 'x' }))]],
  ['items[0]', 'object', []],
  ['items[0].description', 'string', ['', s500]],
  ['items[0].sku', 'string', [s500]],
  ['items[0].quantity', 'integer', [0, -1, 10_001, 1.5, 1e20]],
  ['items[0].weight_kg', 'number', [-0.001, 1e12]],
  ['items[0].declared_value', 'number', [-1, 1.234, 1e15]],
  ['requested_date', 'string', ['tomorrow', '2025-13-01T00:00:00Z', '2025-07-01T10:00:00', '2025-02-30']],
  ['time_window', 'object', [{ start: '09:00' }, { end: '10:00' }]],
  ['time_window.start', 'string', ['9:00', '24:00', '09:60', '0900']],
  ['time_window.end', 'string', ['08:00', '09:00', '25:00']],
  ['priority', 'integer', [0, 4, 2.5, -1]],
  ['is_urgent', 'boolean', []],
  ['requirements', 'array', [['Cold'], [''], ['cold', 'cold']]],
  ['requires_signature', 'boolean', []],
  ['requires_photo', 'boolean', []],
  ['requires_pin', 'boolean', []],
  ['requires_id_check', 'boolean', []],
  ['requires_age_check', 'boolean', []],
  ['cash_on_delivery', 'number', [-0.01, 1.001, 1e9]],
  ['customer_notes', 'string', [s500]],
  ['metadata', 'object', [{ k: null }, { k: {} }, { k: [] }, { k: s500 }, { ['k'.repeat(41)]: 1 }]],
];

/** Sets `value` at a path like `items[0].quantity`, creating missing parents (objects, or arrays before an index). */
function withValue(base: Record<string, unknown>, path: string, value: unknown): Record<string, unknown> {
  const body = structuredClone(base);
  const keys = path.replace(/\[(\d+)\]/g, '.$1').split('.');
  let node: any = body;
  keys.slice(0, -1).forEach((k, i) => {
    node[k] ??= /^\d+$/.test(keys[i + 1]) ? [] : {};
    node = node[k];
  });
  node[keys[keys.length - 1]] = value;
  return body;
}

function fullOrder(): Record<string, unknown> {
  return validOrder({
    customer: { name: 'Ana', document_type: 'dni', document_number: '1', email: 'a@b.co', whatsapp: '+51987654321' },
    time_window: { start: '09:00', end: '12:00' },
    requested_date: '2025-07-01T09:00:00Z',
    priority: 2,
    metadata: { k: 'v' },
  });
}

/** Every error answer has the one Error body and a Request-Id matching its request_id. */
function expectErrorShape(res: Res, context: string): void {
  expect(res.status, context).toBeGreaterThanOrEqual(400);
  expect(res.status, `${context}: no 5xx`).toBeLessThan(500);
  const e = res.body?.error;
  expect(e, `${context}: error body ${JSON.stringify(res.body).slice(0, 300)}`).toBeTypeOf('object');
  expect(Object.keys(res.body)).toEqual(['error']);
  expect(e.type, context).toBeTypeOf('string');
  expect(e.code, context).toBeTypeOf('string');
  expect(e.message, context).toBeTypeOf('string');
  expect(e.message.length, context).toBeGreaterThan(0);
  expect(e.request_id, context).toMatch(/^req_/);
  expect(res.headers['request-id'], context).toBe(e.request_id);
  if ('param' in e) expect(e.param, context).toBeTypeOf('string');
  for (const k of Object.keys(e)) expect(['type', 'code', 'message', 'param', 'request_id'], context).toContain(k);
  expect(String(res.headers['content-type']), context).toContain('application/json');
}

export function corpusSuite(engine: Engine): void {
  describeOn(engine, 'bad-input corpus', () => {
    let c: CorpusApp;
    let t: TestApp;
    let m: Merchant;
    let f: Fixture;

    beforeAll(async () => {
      c = await startCorpusApp(engine);
      ({ t, m, f } = c);
    });
    afterAll(async () => {
      await c?.close();
    });

    const as = (ep: Endpoint, fx: Fixture = f) => callerOf(c, ep, fx);
    const send = (ep: Endpoint, payload?: string | Buffer, contentType = 'application/json', fx: Fixture = f) =>
      as(ep, fx)(ep.method, ep.path(fx), payload, contentType ? { 'content-type': contentType } : {});
    /** New objects, for calls that may change the fixture's state. */
    /** New objects for the parts the row reads (a call may change them), people only for a row that needs them. */
    const fresh = async (ep: Endpoint): Promise<Fixture> => {
      const fx = await makeFixture(t, m.test, f, ep);
      return ep.auth === 'admin' || ep.auth === 'courier' || partsRead(ep, f).has('people') ? c.withPeople(fx) : fx;
    };
    /** The error answer of this endpoint: the Error body, or for an HTML page an HTML page. */
    const expectError = (ep: Endpoint, res: Res, context: string) => {
      if (!ep.html) return expectErrorShape(res, context);
      expect(res.status, context).toBeGreaterThanOrEqual(400);
      expect(res.status, `${context}: no 5xx`).toBeLessThan(500);
      const type = String(res.headers['content-type']);
      if (type.includes('application/json')) expectErrorShape(res, context);
      else expect(type, context).toContain('text/html');
    };

    it('every operation of the OpenAPI document has a corpus row', async () => {
      const doc = (await client(t.app)('GET', '/v1/openapi.json')).body;
      const operations = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, ops]) =>
        Object.keys(ops)
          .filter((method) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
          .map((method) => `${method.toUpperCase()} ${path}`),
      );
      expect(operations.length).toBeGreaterThan(30);
      const rows = new Set(ENDPOINTS.map((ep) => ep.route));
      expect(
        operations.filter((op) => !rows.has(op)),
        'operations without a corpus row',
      ).toEqual([]);
      expect(
        [...rows].filter((r) => !operations.includes(r)),
        'rows naming no operation',
      ).toEqual([]);
      for (const ep of ENDPOINTS) expect(ep.route.startsWith(`${ep.method} `), ep.name).toBe(true);
    });

    for (const ep of ENDPOINTS) {
      if (ep.auth !== 'none') {
        it(`${ep.name}: no key, a bad key and a malformed header are 401`, async () => {
          for (const [label, headers] of [
            ['no key', {}],
            ['unknown key', { authorization: 'Bearer sk_test_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }],
            ['garbage', { authorization: 'Bearer \u00e9\u00e9' }],
            ['basic', { authorization: 'Basic dXNlcjpwYXNz' }],
            ['empty bearer', { authorization: 'Bearer ' }],
          ] as const) {
            const raw = await t.app.inject({ method: ep.method, url: ep.path(f), headers });
            const res = { status: raw.statusCode, body: raw.json(), headers: raw.headers, raw } as Res;
            expectErrorShape(res, `${ep.name} ${label}`);
            expect(res.status, label).toBe(401);
            expect(res.body.error.type).toBe('authentication_error');
          }
        });
      }

      if (ep.body === 'required' || ep.body === 'optional') {
        it(`${ep.name}: malformed bodies`, async () => {
          for (const c of BODY_CASES) {
            const payload = typeof c.payload === 'string' ? c.payload : c.payload(ep.valid?.(f) ?? {});
            const res = await send(ep, payload, c.contentType ?? 'application/json');
            const context = `${ep.name} / ${c.name}`;
            expectErrorShape(res, context);
            expect(res.status, `${context}: ${JSON.stringify(res.body)}`).toBe(c.status);
            if (c.code) expect(res.body.error.code, context).toBe(c.code);
          }
        });

        it(`${ep.name}: an empty body`, async () => {
          const res = await send(ep, '', 'application/json', await fresh(ep));
          if (ep.body === 'required') {
            expectErrorShape(res, 'empty body');
            expect(res.status).toBe(422);
            expect(res.body.error.code).toBe('parameter_missing');
          } else {
            // An optional body may be absent, with or without a Content-Type.
            expect(res.status, JSON.stringify(res.body)).toBe(ep.ok);
            const bareFx = await fresh(ep);
            const bare = await as(ep, bareFx)(ep.method, ep.path(bareFx));
            expect(bare.status, JSON.stringify(bare.body)).toBe(ep.ok);
          }
        });
      } else if (ep.body === 'none' && !ep.stream) {
        it(`${ep.name}: a body on a ${ep.method} is ignored, whatever it is`, async () => {
          if (ep.method === 'DELETE') {
            // Unlike GET, a DELETE body is parsed: broken JSON is refused, anything else is ignored.
            const broken = await send(ep, '{', 'application/json', await fresh(ep));
            expectErrorShape(broken, 'DELETE {');
            expect(broken.body.error.code).toBe('invalid_json');
            for (const payload of ['null', deep(1000), '{"zzz":1}']) {
              const res = await send(ep, payload, 'application/json', await fresh(ep));
              expect(res.status, payload.slice(0, 10)).toBe(ep.ok);
            }
            return;
          }
          const plain = await send(ep);
          for (const payload of ['{', 'null', deep(1000)]) {
            const res = await send(ep, payload);
            expect(res.status, payload.slice(0, 10)).toBe(plain.status);
          }
        });
      }

      if (ep.fields) {
        const fields = ep.fields;
        it(`${ep.name}: every field rejects every wrong kind and bad value with its own param`, async () => {
          const base = ep.valid?.(f) ?? {};
          for (const [path, kind, extra, nullable] of fields) {
            const wrongKinds = KINDS.filter(
              ([k]) => !(k === kind || (kind === 'number' && k === 'integer') || (nullable && k === 'null')),
            ).map(([, v]) => v);
            for (const value of [...wrongKinds, ...extra]) {
              const context = `${ep.name}: ${path} = ${JSON.stringify(value)?.slice(0, 40)}`;
              const res = await send(
                ep,
                JSON.stringify(withValue(base, path, value)),
                'application/json',
                await fresh(ep),
              );
              expectErrorShape(res, context);
              expect(res.status, `${context}: ${JSON.stringify(res.body)}`).toBe(422);
              const param: string = res.body.error.param ?? '';
              expect(param === path || param.startsWith(`${path}.`) || param.startsWith(`${path}[`), context).toBe(
                true,
              );
              expect(res.body.error.message, context).toContain(path.split('.')[0].replace(/\[\d+\]$/, ''));
            }
          }
          // A fresh fixture per value (of the parts the row reads): a row with many fields makes dozens.
        }, 120_000);
      }

      if (ep.id) {
        const idOf = ep.id;
        it(`${ep.name}: odd ids are 404 (or 422 when unstorable or over 100 characters), never 5xx`, async () => {
          const real = ep.path(f);
          // Ids are at most 100 characters (IdParams); a tracking code has no bound (an unknown parcel).
          const bounded = !ep.route.includes('{tracking_code}');
          const ids: [string, number][] = [
            [`${ep.prefix ?? 'ord'}_00000000000000000000000000`, 404],
            [`${ep.prefix ?? 'ord'}_`, 404],
            ['x', 404],
            ['ZZZZZZZZZZZZ', 404],
            ["' OR 1=1 --", 404],
            ['%F0%9F%98%80', 404],
            ['%C3%A9t%C3%A9', 404],
            ['..%2F..%2Fetc%2Fpasswd', 404],
            ['a'.repeat(5000), bounded ? 422 : 404],
            ['ord_%00', 422],
            ['%00', 422],
          ];
          for (const [id, status] of ids) {
            const url = real.replace(idOf(f), encodeURI(id).replace(/%25/g, '%'));
            const res = await as(ep)(ep.method, url, ep.body === 'required' ? ep.valid?.(f) : undefined);
            expectError(ep, res, `${ep.name} ${id.slice(0, 20)}`);
            expect(res.status, `${id.slice(0, 20)}: ${JSON.stringify(res.body).slice(0, 300)}`).toBe(status);
          }
        });
      }

      if (ep.query) {
        const cases = ep.query;
        it(`${ep.name}: bad query strings are 422 with the param`, async () => {
          for (const [qs, param, code] of cases) {
            const res = await as(ep)(ep.method, withQuery(ep.path(f), qs));
            expectErrorShape(res, qs);
            expect(res.status, `${qs}: ${JSON.stringify(res.body)}`).toBe(422);
            expect(res.body.error.param, qs).toBe(param);
            expect(res.body.error.code, qs).toBe(code);
          }
          // Harmless oddities still answer 200.
          for (const qs of ep.okQueries ?? ['']) {
            const res = await as(ep)(ep.method, withQuery(ep.path(f), qs));
            expect(res.status, `${qs}: ${JSON.stringify(res.body)}`).toBe(200);
          }
        });
      }

      it(`${ep.name}: the well-formed call answers ${ep.ok}`, async () => {
        if (ep.stream) {
          const s = await openStream(t.app, m.test);
          expect(s.status).toBe(ep.ok);
          expect(s.headers['content-type']).toMatch(/^text\/event-stream/);
          s.close();
          return;
        }
        const fx = await fresh(ep);
        const res =
          ep.body === 'raw'
            ? await send(ep, ep.rawBody?.().payload ?? tinyPng(), ep.rawBody?.().type ?? 'image/png', fx)
            : await send(ep, ep.valid ? JSON.stringify(ep.valid(fx)) : undefined, 'application/json', fx);
        expect(res.status, JSON.stringify(res.body)).toBe(ep.ok);
        if (ep.ok >= 400) expectErrorShape(res, ep.name);
      });
    }

    it('upload: wrong types, sizes, empty bodies and bad purposes', async () => {
      const png = tinyPng();
      const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46]);
      const cases: [
        label: string,
        qs: string,
        type: string,
        payload: string | Buffer,
        status: number,
        code: string,
        param?: string,
      ][] = [
        ['json', 'purpose=photo', 'application/json', '{}', 415, 'unsupported_media_type'],
        ['json bytes of an image', 'purpose=photo', 'application/json', png, 400, 'invalid_json'],
        ['text', 'purpose=photo', 'text/plain', 'hello', 415, 'unsupported_media_type'],
        ['gif', 'purpose=photo', 'image/gif', 'GIF89a', 415, 'unsupported_media_type'],
        ['svg', 'purpose=photo', 'image/svg+xml', '<svg/>', 415, 'unsupported_media_type'],
        ['octet stream', 'purpose=photo', 'application/octet-stream', png, 415, 'unsupported_media_type'],
        ['multipart', 'purpose=photo', 'multipart/form-data; boundary=x', '--x--', 415, 'unsupported_media_type'],
        ['no type', 'purpose=photo', '', png, 415, 'unsupported_media_type'],
        ['empty png', 'purpose=photo', 'image/png', '', 422, 'parameter_missing'],
        ['png declared jpeg', 'purpose=photo', 'image/jpeg', png, 422, 'parameter_invalid'],
        ['jpeg declared png', 'purpose=photo', 'image/png', jpeg, 422, 'parameter_invalid'],
        ['text declared webp', 'purpose=photo', 'image/webp', 'RIFF', 422, 'parameter_invalid'],
        ['over 10 MiB', 'purpose=photo', 'image/png', Buffer.alloc(10 * 1024 * 1024 + 1), 413, 'request_too_large'],
        ['no purpose', '', 'image/png', png, 422, 'parameter_missing', 'purpose'],
        ['bad purpose', 'purpose=selfie', 'image/png', png, 422, 'parameter_invalid', 'purpose'],
        ['two purposes', 'purpose=photo&purpose=signature', 'image/png', png, 422, 'parameter_invalid', 'purpose'],
        ['NUL purpose', 'purpose=%00', 'image/png', png, 422, 'parameter_invalid', 'purpose'],
        ['unknown parameter', 'purpose=photo&zzz=1', 'image/png', png, 422, 'parameter_unknown', 'zzz'],
      ];
      for (const [label, qs, type, payload, status, code, param] of cases) {
        const res = await client(t.app, m.test)(
          'POST',
          `/v1/files?${qs}`,
          payload,
          type ? { 'content-type': type } : {},
        );
        expectErrorShape(res, label);
        expect(res.status, `${label}: ${JSON.stringify(res.body)}`).toBe(status);
        expect(res.body.error.code, label).toBe(code);
        if (param) expect(res.body.error.param, label).toBe(param);
      }
      // A Content-Type with parameters or odd case is still the image type.
      for (const type of ['image/png; charset=binary', 'IMAGE/PNG']) {
        const res = await client(t.app, m.test)('POST', '/v1/files?purpose=signature', png, { 'content-type': type });
        expect(res.status, `${type}: ${JSON.stringify(res.body)}`).toBe(201);
      }
    });

    it('file content: a tampered, partial or missing signed query is 403, an unknown id never 5xx', async () => {
      const link = new URL(f.file.url);
      const expires = link.searchParams.get('expires')!;
      const signature = link.searchParams.get('signature')!;
      const flip = (s: string) => (s[0] === 'a' ? 'b' : 'a') + s.slice(1);
      const base = `/v1/files/${f.file.id}/content`;
      // A link that is incomplete, expired or not signed for this id is 403 file_link_invalid (the
      // query schema is loose on purpose); only a value no link could hold (too long, repeated, NUL) is a 422.
      const queries: [string, 403 | 422, string?][] = [
        ['', 403],
        [`expires=${expires}`, 403],
        [`signature=${signature}`, 403],
        [`expires=${Number(expires) + 1}&signature=${signature}`, 403],
        [`expires=${expires}&signature=${flip(signature)}`, 403],
        [`expires=${expires}&signature=${signature.toUpperCase()}`, 403],
        [`expires=${expires}&signature=${signature.slice(0, -1)}`, 403],
        [`expires=${expires}&signature=`, 403],
        [`expires=abc&signature=${signature}`, 403],
        [`expires=-1&signature=${signature}`, 403],
        [`expires=1e400&signature=${signature}`, 403],
        [`expires=${expires}.0&signature=${signature}`, 403],
        [`expires=${expires}&signature=${'a'.repeat(128)}`, 403],
        [`expires=${expires}&signature=${'a'.repeat(129)}`, 422, 'signature'],
        [`expires=${'9'.repeat(21)}&signature=${signature}`, 422, 'expires'],
        [`expires=${expires}&expires=${expires}&signature=${signature}`, 422, 'expires'],
        [`expires=${expires}&signature=${signature}&signature=${signature}`, 422, 'signature'],
        [`expires=${expires}&signature=%00`, 422, 'signature'],
      ];
      for (const [qs, status, param] of queries) {
        const res = await client(t.app)('GET', `${base}?${qs}`);
        expectErrorShape(res, qs);
        expect(res.status, `${qs}: ${JSON.stringify(res.body)}`).toBe(status);
        expect(res.body.error.code, qs).toBe(status === 403 ? 'file_link_invalid' : 'parameter_invalid');
        expect(res.body.error.param, qs).toBe(param);
      }
      // The valid signature of one file opens no other id: another id is 403 (the signature does not
      // match it), an id no file can have (over 100 characters, or with a NUL) is 422 naming it.
      for (const [id, status, code] of [
        ['file_00000000000000000000000000', 403, 'file_link_invalid'],
        ['x', 403, 'file_link_invalid'],
        ["'%20OR%201=1", 403, 'file_link_invalid'],
        ['%00', 422, 'parameter_invalid'],
        ['a'.repeat(5000), 422, 'parameter_invalid'],
      ] as const) {
        const res = await client(t.app)('GET', `/v1/files/${id}/content?expires=${expires}&signature=${signature}`);
        expectErrorShape(res, id.slice(0, 20));
        expect(res.status, `${id.slice(0, 20)}: ${JSON.stringify(res.body)}`).toBe(status);
        expect(res.body.error.code, id.slice(0, 20)).toBe(code);
      }
      // An API key is neither needed nor a substitute for the signature.
      const keyed = await client(t.app, m.test)('GET', base);
      expect(keyed.status).toBe(403);
      expect((await client(t.app)('GET', `${base}?expires=${expires}&signature=${signature}`)).status).toBe(200);
    });

    it('public tracking: odd codes and query strings never 5xx; the page answers HTML', async () => {
      for (const path of ['/v1/public/tracking', '/track']) {
        for (const code of [
          '',
          ' ',
          '%20%20',
          'ABCD-EFGH-JKLM',
          'abcd efgh jklm',
          '<script>',
          '%3Cscript%3E',
          '0'.repeat(101),
        ]) {
          const res = await client(t.app)('GET', `${path}/${code}`);
          const context = `${path}/${code.slice(0, 20)}`;
          if (path === '/track' && code.trim() === '') {
            // /track/ is the page where a customer types a code, not an unknown one.
            expect(res.status, context).toBe(200);
            expect(String(res.headers['content-type']), context).toContain('text/html');
            continue;
          }
          expect(res.status, context).toBeGreaterThanOrEqual(400);
          expect(res.status, context).toBeLessThan(500);
          if (String(res.headers['content-type']).includes('json')) expectErrorShape(res, context);
          else expect(res.body, context).not.toContain('<script>');
        }
        const ok = await client(t.app)('GET', `${path}/${f.order.tracking_code}?zzz=1&lang=%00x`);
        expect(ok.status, path).toBeLessThan(500);
      }
    });

    it('create and quote: every field rejects every wrong kind and bad value with its own param', async () => {
      const call = client(t.app, m.test);
      const base = fullOrder();
      expect((await call('POST', '/v1/orders/quote', base)).status).toBe(200);
      for (const [path, kind, extra] of ORDER_FIELDS) {
        const wrongKinds = KINDS.filter(([k]) => !(k === kind || (kind === 'number' && k === 'integer'))).map(
          ([, v]) => v,
        );
        for (const value of [...wrongKinds, ...extra]) {
          const context = `${path} = ${JSON.stringify(value)?.slice(0, 40)}`;
          for (const url of ['/v1/orders', '/v1/orders/quote']) {
            const res = await call('POST', url, withValue(base, path, value));
            expectErrorShape(res, context);
            expect(res.status, `${context}: ${JSON.stringify(res.body)}`).toBe(422);
            expect(res.body.error.type).toBe('invalid_request_error');
            // The param names the field, or (for a missing child of a replaced object) something inside it.
            const param: string = res.body.error.param ?? '';
            expect(param === path || param.startsWith(`${path}.`) || param.startsWith(`${path}[`), context).toBe(true);
            expect(res.body.error.message, context).toContain(path.split('.')[0].replace(/\[\d+\]$/, ''));
          }
        }
      }
    });

    it('create: blank required strings and unknown nested fields are refused with their path', async () => {
      const call = client(t.app, m.test);
      const cases: [Record<string, unknown>, string, string][] = [
        [withValue(validOrder(), 'customer.name', '   '), 'customer.name', 'parameter_invalid'],
        [withValue(validOrder(), 'delivery_address.address', '\t\n'), 'delivery_address.address', 'parameter_invalid'],
        [
          validOrder({ items: [{ description: 'a' }, { description: 'b' }, { description: ' ' }] }),
          'items[2].description',
          'parameter_invalid',
        ],
        [
          validOrder({ items: [{ description: 'a' }, { description: 'b' }, { sku: 'c' }] }),
          'items[2].description',
          'parameter_missing',
        ],
        [withValue(validOrder(), 'customer.nickname', 'x'), 'customer.nickname', 'parameter_unknown'],
        [withValue(validOrder(), 'items[1].color', 'red'), 'items[1].color', 'parameter_unknown'],
        [validOrder({ customer: undefined }), 'customer', 'parameter_missing'],
        [validOrder({ delivery_address: { city: 'Lima' } }), 'delivery_address.address', 'parameter_missing'],
        [validOrder({ customer: { email: 'a@b.co' } }), 'customer.name', 'parameter_missing'],
        [validOrder({ metadata: { k: { nested: null } } }), 'metadata', 'parameter_invalid'],
        [validOrder({ time_window: { start: '12:00', end: '09:00' } }), 'time_window.end', 'parameter_invalid'],
      ];
      for (const [body, param, code] of cases) {
        const res = await call('POST', '/v1/orders', body);
        expectErrorShape(res, param);
        expect(res.status, param).toBe(422);
        expect(res.body.error, param).toMatchObject({ param, code });
        expect(res.body.error.message, param).toContain(param);
      }
    });

    it('create: unicode, boundaries and odd-but-valid values are stored exactly', async () => {
      const call = client(t.app, m.test);
      const metadata: Record<string, unknown> = Object.fromEntries(
        Array.from({ length: 49 }, (_, i) => [`${'k'.repeat(38)}${i}`.slice(-40), i % 2 ? -1.5e-7 : i]),
      );
      metadata.v = 'v'.repeat(500);
      metadata.ok = false;
      const body = validOrder({
        external_order_id: 'x'.repeat(100),
        customer: { name: '😀'.repeat(500), email: 'ana.maria+tag@example.co' },
        delivery_address: { address: 'Jirón de la Unión 1٢3 — 北京 \u202e', lat: -90, lng: 180 },
        items: Array.from({ length: 500 }, (_, i) => ({ description: `i${i}`, quantity: 10_000, weight_kg: 0 })),
        metadata,
        cash_on_delivery: 0,
        priority: 3,
        time_window: { start: '00:00', end: '23:59' },
      });
      delete metadata[Object.keys(metadata)[0]];
      const res = await call('POST', '/v1/orders', body);
      expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(201);
      expect(res.body.customer.name).toBe(body.customer.name);
      expect(res.body.delivery_address.address).toBe((body.delivery_address as { address: string }).address);
      expect(res.body.packages).toBe(5_000_000);
      expect(res.body.metadata).toEqual(metadata);
      expect(Object.keys(metadata)).toHaveLength(50);
      const read = await call('GET', `/v1/orders/${res.body.id}`);
      expect(read.body).toEqual(res.body);
      const listed = await call('GET', `/v1/orders?external_order_id=${'x'.repeat(100)}`);
      expect(listed.body.data.map((o: { id: string }) => o.id)).toEqual([res.body.id]);
    });

    it('unknown paths and methods are 404 with the Error body, with or without a key', async () => {
      // GET / is not here: it redirects to the console (test/web-app.test.ts).
      const paths: [string, string][] = [
        ['POST', '/'],
        ['GET', '/v1'],
        ['GET', '/v2/orders'],
        ['GET', '/v1/nope'],
        ['GET', '/v1/orders/ord_x/nope'],
        ['GET', '/v1/orders/ord_x/cancel/extra'],
        ['POST', '/v1/orders/ord_x/cancelx'],
        ['DELETE', '/v1/orders'],
        ['PUT', '/v1/orders/ord_x'],
        ['PATCH', '/v1/orders/ord_x'],
        ['GET', '/v1/orders/quote/x'],
        ['GET', `/v1/${'a'.repeat(5000)}`],
        ['GET', '/v1/%00'],
      ];
      for (const key of [undefined, m.test]) {
        for (const [method, url] of paths) {
          const res = await client(t.app, key)(method as 'GET', url);
          expectErrorShape(res, `${method} ${url.slice(0, 30)}`);
          expect(res.status, `${method} ${url.slice(0, 30)}`).toBe(404);
        }
      }
    });

    it('cancel: bad reasons are 422 with param reason; the order is untouched', async () => {
      const call = client(t.app, m.test);
      const o = (await call('POST', '/v1/orders', validOrder())).body;
      for (const reason of [null, 1, true, [], {}, 'x'.repeat(501), 'a\u0000']) {
        const res = await call('POST', `/v1/orders/${o.id}/cancel`, { reason });
        expectErrorShape(res, JSON.stringify(reason));
        expect(res.status).toBe(422);
        expect(res.body.error.param).toBe('reason');
      }
      expect((await call('GET', `/v1/orders/${o.id}`)).body.status).toBe('pending');
      const ok = await call('POST', `/v1/orders/${o.id}/cancel`, { reason: 'Ünïcödé 😀' });
      expect(ok.status).toBe(200);
      expect(ok.body.cancellation_reason).toBe('Ünïcödé 😀');
    });
  });
}
