import { afterAll, beforeAll, expect, it } from 'vitest';
import { client, describeEach, type Merchant, newMerchant, newOperator, startApp, type TestApp } from './helpers.js';

const PUBLIC = 'https://93.184.215.14/hooks'; // a literal public address: no DNS needed

describeEach('webhook endpoints API', (engine) => {
  let t: TestApp;
  let m: Merchant;
  let other: Merchant;

  beforeAll(async () => {
    t = await startApp(engine);
    m = await newMerchant(t);
    other = await newMerchant(t, 'Other');
  });
  afterAll(async () => t?.close());

  it('creates an endpoint and returns its secret once', async () => {
    const call = client(t.app, m.test);
    const res = await call('POST', '/v1/webhook_endpoints', {
      url: PUBLIC,
      events: ['order.created', 'order.cancelled'],
      description: 'ERP',
    });
    expect(res.status).toBe(201);
    const e = res.body;
    expect(e.id).toMatch(/^we_[0-9A-Z]{26}$/);
    expect(e).toMatchObject({
      object: 'webhook_endpoint',
      url: PUBLIC,
      events: ['order.created', 'order.cancelled'],
      description: 'ERP',
      status: 'enabled',
      livemode: false,
    });
    expect(e.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(e.secret.slice(6), 'base64').length).toBeGreaterThanOrEqual(32);
    expect(Date.parse(e.created_at)).not.toBeNaN();

    const read = await call('GET', `/v1/webhook_endpoints/${e.id}`);
    expect(read.status).toBe(200);
    expect(read.body.secret).toBeUndefined();
    expect(read.body.url).toBe(PUBLIC);
    const list = await call('GET', '/v1/webhook_endpoints');
    expect(list.body.object).toBe('list');
    expect(list.body.data.find((x: { id: string }) => x.id === e.id).secret).toBeUndefined();
  });

  it('lists newest first with keyset pagination', async () => {
    const call = client(t.app, other.test);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push((await call('POST', '/v1/webhook_endpoints', { url: PUBLIC, events: ['*'] })).body.id);
    const page1 = await call('GET', '/v1/webhook_endpoints?limit=2');
    expect(page1.body.data.map((x: { id: string }) => x.id)).toEqual([ids[2], ids[1]]);
    expect(page1.body.has_more).toBe(true);
    const page2 = await call('GET', `/v1/webhook_endpoints?limit=2&starting_after=${ids[1]}`);
    expect(page2.body.data.map((x: { id: string }) => x.id)).toEqual([ids[0]]);
    expect(page2.body.has_more).toBe(false);
    const bad = await call('GET', '/v1/webhook_endpoints?starting_after=we_nope');
    expect(bad.status).toBe(422);
    expect(bad.body.error.param).toBe('starting_after');
  });

  it('validates events against the catalog', async () => {
    const call = client(t.app, m.test);
    const unknown = await call('POST', '/v1/webhook_endpoints', {
      url: PUBLIC,
      events: ['order.created', 'order.exploded'],
    });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.param).toBe('events[1]');
    const empty = await call('POST', '/v1/webhook_endpoints', { url: PUBLIC, events: [] });
    expect(empty.status).toBe(422);
    expect(empty.body.error.param).toBe('events');
    const missing = await call('POST', '/v1/webhook_endpoints', { events: ['*'] });
    expect(missing.status).toBe(422);
    expect(missing.body.error).toMatchObject({ code: 'parameter_missing', param: 'url' });
    const missingEvents = await call('POST', '/v1/webhook_endpoints', { url: PUBLIC });
    expect(missingEvents.body.error.param).toBe('events');
    const extra = await call('POST', '/v1/webhook_endpoints', { url: PUBLIC, events: ['*'], secret: 'x' });
    expect(extra.body.error).toMatchObject({ code: 'parameter_unknown', param: 'secret' });
    const wrongType = await call('POST', '/v1/webhook_endpoints', { url: PUBLIC, events: 'order.created' });
    expect(wrongType.status).toBe(422);
    const all = await call('POST', '/v1/webhook_endpoints', {
      url: PUBLIC,
      events: [
        'order.validated',
        'order.ready_for_pickup',
        'order.arriving',
        'order.at_location',
        'order.partially_delivered',
        'order.rescheduled',
        'order.returned',
        'order.failed',
        'order.delivered',
        'order.in_transit',
        'order.picked_up',
        'order.assigned',
        'order.created',
        'order.cancelled',
        '*',
      ],
    });
    expect(all.status).toBe(201);
    expect((await call('POST', '/v1/orders', 'not json', { 'content-type': 'application/json' })).status).toBe(400);
  });

  it('refuses non-https and private, loopback, link-local and reserved addresses (SSRF)', async () => {
    const call = client(t.app, m.test);
    const refused = [
      'http://93.184.215.14/hooks',
      'ftp://93.184.215.14/',
      'not a url',
      'https://127.0.0.1/hooks',
      'https://10.0.0.1/hooks',
      'https://172.16.5.4/',
      'https://192.168.1.1/',
      'https://169.254.169.254/latest/meta-data',
      'https://100.64.0.1/',
      'https://0.0.0.0/',
      'https://224.0.0.1/',
      'https://[::1]/hooks',
      'https://[::ffff:127.0.0.1]/hooks',
      'https://[::ffff:a9fe:a9fe]/',
      'https://[fd00::1]/',
      'https://[fe80::1]/',
      'https://localhost/hooks',
      'https://user:pass@93.184.215.14/',
    ];
    for (const url of refused) {
      const res = await call('POST', '/v1/webhook_endpoints', { url, events: ['*'] });
      expect(res.status, url).toBe(422);
      expect(res.body.error.param, url).toBe('url');
    }
    // A local receiver's 422 names the development switch; a malformed URL's does not.
    for (const url of ['http://127.0.0.1:4000/hooks', 'https://127.0.0.1/hooks']) {
      const res = await call('POST', '/v1/webhook_endpoints', { url, events: ['*'] });
      expect(res.body.error.message, url).toContain('RUTA_WEBHOOK_ALLOW_INSECURE=1');
    }
    for (const url of ['not a url', 'ftp://127.0.0.1/hooks']) {
      const res = await call('POST', '/v1/webhook_endpoints', { url, events: ['*'] });
      expect(res.body.error.message, url).not.toContain('RUTA_WEBHOOK_ALLOW_INSECURE');
    }
    const e = (await call('POST', '/v1/webhook_endpoints', { url: PUBLIC, events: ['*'] })).body;
    const patch = await call('PATCH', `/v1/webhook_endpoints/${e.id}`, { url: 'https://10.1.2.3/' });
    expect(patch.status).toBe(422);
    expect(patch.body.error.param).toBe('url');
  });

  it('updates url, events, description and status', async () => {
    const call = client(t.app, m.test);
    const e = (await call('POST', '/v1/webhook_endpoints', { url: PUBLIC, events: ['*'] })).body;
    const res = await call('PATCH', `/v1/webhook_endpoints/${e.id}`, {
      url: 'https://93.184.215.14/v2',
      events: ['order.delivered'],
      description: 'new',
      status: 'disabled',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      url: 'https://93.184.215.14/v2',
      events: ['order.delivered'],
      description: 'new',
      status: 'disabled',
      disabled_reason: 'manual',
    });
    expect(res.body.secret).toBeUndefined();
    const again = await call('PATCH', `/v1/webhook_endpoints/${e.id}`, { status: 'enabled', description: null });
    expect(again.body).toMatchObject({
      status: 'enabled',
      disabled_reason: null,
      disabled_at: null,
      description: null,
    });
    const bad = await call('PATCH', `/v1/webhook_endpoints/${e.id}`, { status: 'paused' });
    expect(bad.status).toBe(422);
    expect(bad.body.error.param).toBe('status');
    const badEvents = await call('PATCH', `/v1/webhook_endpoints/${e.id}`, { events: ['nope'] });
    expect(badEvents.body.error.param).toBe('events[0]');
  });

  it('rotates the secret and returns the new one', async () => {
    const call = client(t.app, m.test);
    const e = (await call('POST', '/v1/webhook_endpoints', { url: PUBLIC, events: ['*'] })).body;
    const res = await call('POST', `/v1/webhook_endpoints/${e.id}/rotate_secret`);
    expect(res.status).toBe(200);
    expect(res.body.secret).toMatch(/^whsec_/);
    expect(res.body.secret).not.toBe(e.secret);
    const row = await t.ctx.db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('id', '=', e.id)
      .executeTakeFirstOrThrow();
    expect(row.secret).toBe(res.body.secret);
    expect(row.previous_secret).toBe(e.secret);
    expect(Number(row.previous_secret_expires_at) - Date.now()).toBeGreaterThan(23 * 3600_000);
  });

  it('deletes Stripe-style, after which the endpoint is gone', async () => {
    const call = client(t.app, m.test);
    const e = (await call('POST', '/v1/webhook_endpoints', { url: PUBLIC, events: ['*'] })).body;
    const res = await call('DELETE', `/v1/webhook_endpoints/${e.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: e.id, object: 'webhook_endpoint', deleted: true });
    expect((await call('GET', `/v1/webhook_endpoints/${e.id}`)).status).toBe(404);
    expect((await call('DELETE', `/v1/webhook_endpoints/${e.id}`)).status).toBe(404);
    const list = await call('GET', '/v1/webhook_endpoints?limit=100');
    expect(list.body.data.map((x: { id: string }) => x.id)).not.toContain(e.id);
  });

  it('allows at most 16 endpoints per account and environment (422 endpoint_limit_reached beyond)', async () => {
    const mine = await newMerchant(t, 'Many');
    const call = client(t.app, mine.test);
    const ids: string[] = [];
    for (let i = 0; i < 16; i++) {
      const res = await call('POST', '/v1/webhook_endpoints', { url: PUBLIC, events: ['*'] });
      expect(res.status).toBe(201);
      ids.push(res.body.id);
    }
    const over = await call('POST', '/v1/webhook_endpoints', { url: PUBLIC, events: ['*'] });
    expect(over.status).toBe(422);
    expect(over.body.error).toMatchObject({ type: 'invalid_request_error', code: 'endpoint_limit_reached' });
    expect(over.body.error.message).toContain('16');
    expect((await call('GET', '/v1/webhook_endpoints?limit=100')).body.data).toHaveLength(16);
    // The other environment and other accounts count apart.
    expect(
      (await client(t.app, mine.live)('POST', '/v1/webhook_endpoints', { url: PUBLIC, events: ['*'] })).status,
    ).toBe(201);
    // A deleted endpoint frees its place; a disabled one does not.
    await call('PATCH', `/v1/webhook_endpoints/${ids[0]}`, { status: 'disabled' });
    expect((await call('POST', '/v1/webhook_endpoints', { url: PUBLIC, events: ['*'] })).status).toBe(422);
    expect((await call('DELETE', `/v1/webhook_endpoints/${ids[1]}`)).status).toBe(200);
    expect((await call('POST', '/v1/webhook_endpoints', { url: PUBLIC, events: ['*'] })).status).toBe(201);
    expect((await call('POST', '/v1/webhook_endpoints', { url: PUBLIC, events: ['*'] })).status).toBe(422);
  });

  it('keeps accounts and environments apart (404) and refuses operator keys every change (403)', async () => {
    const e = (await client(t.app, m.test)('POST', '/v1/webhook_endpoints', { url: PUBLIC, events: ['*'] })).body;
    for (const key of [other.test, m.live]) {
      const call = client(t.app, key);
      for (const [method, path] of [
        ['GET', ''],
        ['PATCH', ''],
        ['DELETE', ''],
        ['POST', '/rotate_secret'],
        ['POST', '/test'],
        ['GET', '/deliveries'],
      ] as const) {
        const res = await call(method, `/v1/webhook_endpoints/${e.id}${path}`, method === 'PATCH' ? {} : undefined);
        expect(res.status, `${method} ${path}`).toBe(404);
        expect(res.body.error.code).toBe('resource_missing');
      }
      const list = await call('GET', '/v1/webhook_endpoints?limit=100');
      expect(list.body.data.map((x: { id: string }) => x.id)).not.toContain(e.id);
    }
    const op = client(t.app, await newOperator(t));
    const created = await op('POST', '/v1/webhook_endpoints', { url: PUBLIC, events: ['*'] });
    expect(created.status).toBe(403);
    expect(created.body.error).toMatchObject({ type: 'permission_error', code: 'permission_denied' });
    // The carrier reads every account's endpoints (test/webhook-ops.test.ts) but changes none.
    expect((await op('GET', '/v1/webhook_endpoints?limit=100')).body.data.map((x: { id: string }) => x.id)).toContain(
      e.id,
    );
    expect((await op('GET', `/v1/webhook_endpoints/${e.id}`)).status).toBe(200);
    expect((await op('PATCH', `/v1/webhook_endpoints/${e.id}`, { status: 'disabled' })).status).toBe(403);
    expect((await op('GET', '/v1/events')).status).toBe(403);
    expect((await client(t.app)('GET', '/v1/webhook_endpoints')).status).toBe(401);
    expect(
      (await client(t.app, 'sk_test_nope')('POST', '/v1/webhook_endpoints', { url: PUBLIC, events: ['*'] })).status,
    ).toBe(401);
  });

  it('documents the endpoints in OpenAPI', async () => {
    const doc = (await client(t.app)('GET', '/v1/openapi.json')).body;
    for (const p of [
      '/v1/webhook_endpoints',
      '/v1/webhook_endpoints/{id}/rotate_secret',
      '/v1/events',
      '/v1/events/{id}/redeliver',
    ]) {
      expect(doc.paths[p], p).toBeDefined();
    }
  });
});
