import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, describeEach, newMerchant, startApp, type TestApp } from './helpers.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const run = promisify(execFile);

type Json = Record<string, any>;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

function operations(doc: Json): { method: string; path: string; op: Json }[] {
  return Object.entries(doc.paths as Json).flatMap(([path, ops]) =>
    Object.entries(ops as Json)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, op]) => ({ method, path, op: op as Json })),
  );
}

const jsonSchema = (part: Json | undefined) => part?.content?.['application/json']?.schema;

describe('the OpenAPI document', () => {
  let t: TestApp;
  let doc: Json;
  beforeAll(async () => {
    t = await startApp('sqlite', { RUTA_PUBLIC_URL: 'https://ruta.example.org' });
    doc = (await client(t.app)('GET', '/v1/openapi.json')).body;
  });
  afterAll(() => t.close());

  it('names every operation once, in camelCase, and tags it with a declared tag', () => {
    const ops = operations(doc);
    expect(ops.length).toBeGreaterThan(40);
    const declared = new Set((doc.tags as Json[]).map((tag) => tag.name));
    for (const { method, path, op } of ops) {
      expect(op.operationId, `${method} ${path}`).toMatch(/^[a-z][A-Za-z0-9]+$/);
      expect(op.tags?.length, `${method} ${path}`).toBe(1);
      expect(declared.has(op.tags[0]), `${method} ${path}: tag ${op.tags[0]}`).toBe(true);
    }
    const ids = ops.map(({ op }) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    const byId = Object.fromEntries(ops.map(({ method, path, op }) => [op.operationId, `${method} ${path}`]));
    expect(byId).toMatchObject({
      createOrder: 'post /v1/orders',
      listOrders: 'get /v1/orders',
      getOrder: 'get /v1/orders/{id}',
      cancelOrder: 'post /v1/orders/{id}/cancel',
      quoteOrder: 'post /v1/orders/quote',
      validateOrder: 'post /v1/orders/{id}/validate',
      deliverOrder: 'post /v1/orders/{id}/deliver',
      uploadFile: 'post /v1/files',
      createWebhookEndpoint: 'post /v1/webhook_endpoints',
      getPublicTracking: 'get /v1/public/tracking/{tracking_code}',
    });
    expect(doc.info.license).toEqual({ name: 'MIT', identifier: 'MIT' });
  });

  it('lists 400, 413 and 415 with the Error body on every operation that takes a body (400 only for JSON)', () => {
    const withBody = operations(doc).filter(({ op }) => op.requestBody);
    expect(withBody.length).toBeGreaterThan(40);
    for (const { method, path, op } of withBody) {
      const json = 'application/json' in op.requestBody.content;
      for (const status of json ? ['400', '413', '415'] : ['413', '415']) {
        expect(jsonSchema(op.responses[status])?.$ref, `${method} ${path} ${status}`).toBe(
          '#/components/schemas/Error',
        );
      }
      // Adding them takes nothing away: the success answer is still there.
      expect(
        Object.keys(op.responses).some((s) => s.startsWith('2')),
        `${method} ${path}`,
      ).toBe(true);
    }
    expect(doc.paths['/v1/orders'].post.responses['400'].description).toBe('Malformed JSON');
    expect(doc.paths['/v1/files'].post.responses).toHaveProperty('413');
    expect(doc.paths['/v1/files'].post.responses).not.toHaveProperty('400');
  });

  it('declares optional exactly the bodies that an empty object satisfies', () => {
    const required = (path: string) => doc.paths[path].post.requestBody.required;
    for (const action of ['cancel', 'validate', 'ready', 'pickup', 'depart', 'approach', 'arrive', 'return']) {
      expect(required(`/v1/orders/{id}/${action}`), action).toBe(false);
    }
    for (const action of ['assign', 'deliver', 'fail', 'reschedule']) {
      expect(required(`/v1/orders/{id}/${action}`), action).toBe(true);
    }
    expect(required('/v1/orders')).toBe(true);
    expect(required('/v1/webhook_endpoints/{id}/rotate_secret')).toBe(false);
  });

  it('refers to named component schemas instead of inlining them', () => {
    const schemas = doc.components.schemas as Json;
    for (const name of [
      'Order',
      'OrderList',
      'OrderCancelParams',
      'OrderStatus',
      'Address',
      'Error',
      'Tracking',
      'Quote',
      'ProofOfDelivery',
      'Courier',
      'CourierList',
      'Route',
      'File',
      'WebhookEndpoint',
      'WebhookEndpointList',
      'WebhookAttemptList',
      'Event',
      'EventList',
      'PublicTracking',
    ]) {
      expect(schemas[name], name).toBeDefined();
    }
    expect(Object.keys(schemas)).toEqual([...Object.keys(schemas)].sort());
    const create = doc.paths['/v1/orders'].post;
    // Inlined because it has defaults (openapi-typescript would make those fields required), with
    // its nested schemas that have none still referenced by name.
    const body = jsonSchema(create.requestBody);
    expect(body.required).toEqual(['customer', 'delivery_address']);
    expect(body.properties.priority.default).toBe(1);
    expect(body.properties.customer).toEqual({ $ref: '#/components/schemas/Customer' });
    expect(body.properties.items.items.properties.quantity.default).toBe(1);
    expect(schemas.OrderCreateParams).toBeUndefined();
    expect(jsonSchema(doc.paths['/v1/orders/{id}/cancel'].post.requestBody)).toEqual({
      $ref: '#/components/schemas/OrderCancelParams',
    });
    expect(jsonSchema(create.responses['201'])).toEqual({ $ref: '#/components/schemas/Order' });
    expect(jsonSchema(create.responses['422'])).toEqual({ $ref: '#/components/schemas/Error' });
    expect(create.responses['422'].description).toBe('Invalid parameters');
    expect(schemas.OrderList.properties.data.items).toEqual({ $ref: '#/components/schemas/Order' });
    expect(schemas.Order.properties.delivery_address).toEqual({ $ref: '#/components/schemas/Address' });
    expect(schemas.Error.description).toBeUndefined();
    // Nothing of the mechanism leaks into the document.
    const text = JSON.stringify(doc);
    expect(text).not.toMatch(/"\$id"|x-ruta-named|#\/components\/schemas\/def-/);
  });

  it('passes redocly lint with the project rules, without a warning', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ruta-openapi-'));
    try {
      const file = join(dir, 'openapi.json');
      writeFileSync(file, JSON.stringify(doc));
      const cli = join(ROOT, 'node_modules/@redocly/cli/bin/cli.js');
      const args = [cli, 'lint', file, '--config', join(ROOT, 'redocly.yaml'), '--format', 'json'];
      const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };
      // Exit status 1 means problems: the JSON report says which, so it is read either way.
      const out = await run(process.execPath, args, { env, maxBuffer: 16 * 1024 * 1024 }).catch(
        (err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }),
      );
      const report = JSON.parse(out.stdout) as { totals: Json; problems: { ruleId: string; message: string }[] };
      expect(report.problems.map((p) => `${p.ruleId}: ${p.message}`)).toEqual([]);
      expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

/** What a newcomer writes against the generated types: no `{}` for body-less actions. */
const PROGRAM = `import createClient from 'openapi-fetch';
import type { components, paths } from './schema.js';

type Order = components['schemas']['Order'];

export async function firstOrder(baseUrl: string, key: string, fetch: (req: Request) => Promise<Response>) {
  const api = createClient<paths>({ baseUrl, headers: { Authorization: \`Bearer \${key}\` }, fetch });
  const created = await api.POST('/v1/orders', {
    body: { customer: { name: 'Ana Torres' }, delivery_address: { address: 'Av. Larco 123', city: 'Lima' } },
  });
  if (!created.data) throw new Error(created.error?.error.message);
  const id: string = created.data.id;
  const read = await api.GET('/v1/orders/{id}', { params: { path: { id } } });
  const validated = await api.POST('/v1/orders/{id}/validate', { params: { path: { id } } });
  const cancelled = await api.POST('/v1/orders/{id}/cancel', { params: { path: { id } } });
  const missing = await api.GET('/v1/orders/{id}', { params: { path: { id: 'ord_missing' } } });
  const statuses: Order['status'][] = [created.data.status];
  if (read.data) statuses.push(read.data.status);
  if (validated.data) statuses.push(validated.data.status);
  if (cancelled.data) statuses.push(cancelled.data.status);
  const code: string | undefined = missing.error?.error.code;
  return { id, statuses, code };
}
`;

/** The same client misused: the types must catch it. */
// The unknown field goes to validate, whose body is empty: the courier moves' bodies are all optional
// (`position`), and openapi-fetch's inference does not check excess properties against such a type.
const MISUSE = `import createClient from 'openapi-fetch';
import type { paths } from './schema.js';

const api = createClient<paths>({ baseUrl: 'http://127.0.0.1' });
await api.POST('/v1/orders', { body: { customer: { name: 'Ana' } } });
await api.POST('/v1/orders/{id}/deliver', { params: { path: { id: 'ord_1' } } });
await api.POST('/v1/orders/{id}/validate', { params: { path: { id: 'ord_1' } }, body: { foo: 1 } });
`;

/** `file:line: message` for each type error. */
function typeErrors(dir: string, file: string): string[] {
  const program = ts.createProgram([join(dir, file)], {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    types: [],
  });
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const line = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 : 0;
    return `${d.file?.fileName.split('/').pop()}:${line}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
  });
}

describeEach('a client generated with openapi-typescript', (engine) => {
  let t: TestApp;
  let dir: string;
  let baseUrl: string;
  beforeAll(async () => {
    t = await startApp(engine);
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const address = t.app.server.address();
    if (!address || typeof address === 'string') throw new Error('no address');
    baseUrl = `http://127.0.0.1:${address.port}`;
    const doc = (await (await fetch(`${baseUrl}/v1/openapi.json`)).json()) as OpenAPI3;
    dir = mkdtempSync(join(tmpdir(), 'ruta-client-'));
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
    writeFileSync(join(dir, 'schema.d.ts'), astToString(await openapiTS(doc)));
    writeFileSync(join(dir, 'client.ts'), PROGRAM);
    writeFileSync(join(dir, 'misuse.ts'), MISUSE);
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('type-checks a program that creates, reads, validates and cancels an order with no empty bodies', () => {
    expect(typeErrors(dir, 'client.ts')).toEqual([]);
  });

  it('rejects a missing required field, a missing required body and an unknown field', () => {
    const errors = typeErrors(dir, 'misuse.ts');
    expect(errors.map((e) => e.split(':').slice(0, 2).join(':'))).toEqual([
      'misuse.ts:5',
      'misuse.ts:6',
      'misuse.ts:7',
    ]);
    expect(errors[0]).toContain('delivery_address');
    expect(errors[1]).toMatch(/Property 'body' is missing/);
  });

  it('runs against the server: bodies are absent on the wire and the answers match the types', async () => {
    const js = ts.transpileModule(PROGRAM, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    }).outputText;
    writeFileSync(join(dir, 'client.mjs'), js);
    const { firstOrder } = await import(pathToFileURL(join(dir, 'client.mjs')).href);
    const sent: { url: string; body: string; type: string | null }[] = [];
    const recording = async (req: Request) => {
      sent.push({ url: req.url, body: await req.clone().text(), type: req.headers.get('content-type') });
      return fetch(req);
    };
    const { test } = await newMerchant(t);
    const result = await firstOrder(baseUrl, test, recording);
    expect(result.statuses).toEqual(['pending', 'pending', 'validated', 'cancelled']);
    expect(result.code).toBe('resource_missing');
    const actions = sent.filter((s) => /\/(validate|cancel)$/.test(s.url));
    expect(actions).toHaveLength(2);
    for (const s of actions) expect(s).toMatchObject({ body: '', type: null });
  });
});
