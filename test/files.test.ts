import { createHash } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  client,
  describeEach,
  type Merchant,
  newMerchant,
  newOperator,
  startApp,
  type TestApp,
  validOrder,
} from './helpers.js';
import { orderIn, tinyPng, upload } from './lifecycle-helpers.js';

/** The path and query of a signed link, for app.inject. */
const local = (url: string) => url.replace(/^https?:\/\/[^/]+/, '');

describeEach('files and proof of delivery', (engine) => {
  let t: TestApp;
  let m: Merchant;
  let other: Merchant;
  let op: string;
  let courier: string;

  beforeAll(async () => {
    t = await startApp(engine, { RUTA_FILE_URL_TTL_SECONDS: '600' });
    m = await newMerchant(t);
    other = await newMerchant(t, 'Other');
    op = await newOperator(t, 'test');
    courier = (await client(t.app, op)('POST', '/v1/couriers', { name: 'Luis' })).body.id;
  });
  afterAll(async () => t?.close());

  it('uploads a real PNG, records size and sha256, and the signed link round-trips', async () => {
    const png = tinyPng(3);
    const res = await upload(t, op, 'signature', png);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      object: 'file',
      purpose: 'signature',
      type: 'image/png',
      size: png.length,
      sha256: createHash('sha256').update(png).digest('hex'),
      livemode: false,
    });
    expect(res.body.id).toMatch(/^file_/);
    const url = new URL(res.body.url);
    expect(url.pathname).toBe(`/v1/files/${res.body.id}/content`);
    const exp = Number(url.searchParams.get('expires'));
    expect(exp - Date.now() / 1000).toBeGreaterThan(500);
    expect(exp - Date.now() / 1000).toBeLessThanOrEqual(600);

    const got = await t.app.inject({ method: 'GET', url: local(res.body.url) });
    expect(got.statusCode).toBe(200);
    expect(got.headers['content-type']).toBe('image/png');
    expect(got.rawPayload.equals(png)).toBe(true);

    const sig = url.searchParams.get('signature')!;
    const flipped = sig.slice(0, -1) + (sig.endsWith('0') ? '1' : '0');
    const bad = [
      `/v1/files/${res.body.id}/content?expires=${exp}&signature=${flipped}`,
      `/v1/files/${res.body.id}/content?expires=${exp + 1}&signature=${sig}`,
      `/v1/files/${res.body.id}/content?expires=${exp}`,
      `/v1/files/${res.body.id}/content`,
      `/v1/files/file_other/content?expires=${exp}&signature=${sig}`,
    ];
    for (const path of bad) {
      const r = await t.app.inject({ method: 'GET', url: path });
      expect(r.statusCode, path).toBe(403);
      expect(JSON.parse(r.body).error.code).toBe('file_link_invalid');
    }
  });

  it('expired links answer 403', async () => {
    const short = await startApp(engine, { RUTA_FILE_URL_TTL_SECONDS: '1' });
    try {
      const key = await newOperator(short, 'test');
      const f = (await upload(short, key, 'photo', tinyPng())).body;
      const u = new URL(f.url);
      // Sign a link that is already past its expiry through the same secret, instead of sleeping.
      const { signedUrl } = await import('../src/features/files/signing.js');
      const expired = await signedUrl(short.ctx, f.id, -5);
      const r = await short.app.inject({ method: 'GET', url: local(expired) });
      expect(r.statusCode).toBe(403);
      expect(JSON.parse(r.body).error.code).toBe('file_link_invalid');
      expect((await short.app.inject({ method: 'GET', url: u.pathname + u.search })).statusCode).toBe(200);
    } finally {
      await short.close();
    }
  });

  it('checks the bytes, not just the header; refuses other types, empty and oversized bodies', async () => {
    const png = tinyPng();
    const lie = await upload(t, op, 'photo', png, 'image/jpeg');
    expect(lie.status).toBe(422);
    expect(lie.body.error.message).toContain('image/png');
    const text = await upload(t, op, 'photo', Buffer.from('hello, not an image'), 'image/webp');
    expect(text.status).toBe(422);
    const json = await client(t.app, op)('POST', '/v1/files?purpose=photo', { a: 1 });
    expect(json.status).toBe(415);
    const gif = await upload(t, op, 'photo', Buffer.from('GIF89a'), 'image/gif');
    expect(gif.status).toBe(415);
    const big = Buffer.concat([png, Buffer.alloc(10 * 1024 * 1024)]);
    expect((await upload(t, op, 'photo', big)).status).toBe(413);
    const purpose = await upload(t, op, 'avatar', png);
    expect(purpose.status).toBe(422);
    expect(purpose.body.error.param).toBe('purpose');
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46, 0, 1]);
    expect((await upload(t, op, 'photo', jpeg, 'image/jpeg')).status).toBe(201);
    const webp = Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WEBPVP8 '), Buffer.alloc(8)]);
    expect((await upload(t, op, 'photo', webp, 'image/webp')).status).toBe(201);
  });

  it('upload permissions: live secret keys 403, no key 401; files are private to their owner', async () => {
    expect((await upload(t, m.live, 'photo', tinyPng())).status).toBe(403);
    expect((await upload(t, 'sk_test_' + 'A'.repeat(32), 'photo', tinyPng())).status).toBe(401);
    const f = (await upload(t, m.test, 'photo', tinyPng())).body;
    expect((await client(t.app, m.test)('GET', `/v1/files/${f.id}`)).status).toBe(200);
    expect((await client(t.app, op)('GET', `/v1/files/${f.id}`)).status).toBe(200);
    expect((await client(t.app, other.test)('GET', `/v1/files/${f.id}`)).status).toBe(404);
    expect((await client(t.app, m.live)('GET', `/v1/files/${f.id}`)).status).toBe(404);
  });

  it('deliver enforces signature, photo and COD requirements with the param', async () => {
    const call = client(t.app, op);
    const sig = (await upload(t, op, 'signature', tinyPng())).body.id;
    const photo = (await upload(t, op, 'photo', tinyPng())).body.id;
    const o = await orderIn(t, m.test, op, courier, 'in_transit', {
      requires_signature: true,
      requires_photo: true,
      cash_on_delivery: 50,
    });
    const url = `/v1/orders/${o.id}/deliver`;
    const full = {
      receiver_name: 'Ana',
      signature_file: sig,
      photo_files: [photo],
      collected_amount: 50,
      payment_method: 'cash',
    };
    const cases: [Record<string, unknown>, string, string][] = [
      [{ ...full, receiver_name: undefined }, 'receiver_name', 'parameter_missing'],
      [{ ...full, signature_file: undefined }, 'signature_file', 'parameter_missing'],
      [{ ...full, photo_files: [] }, 'photo_files', 'parameter_missing'],
      [{ ...full, collected_amount: undefined }, 'collected_amount', 'parameter_missing'],
      [{ ...full, payment_method: undefined }, 'payment_method', 'parameter_missing'],
      [{ ...full, payment_method: 'iou' }, 'payment_method', 'parameter_invalid'],
      [{ ...full, relationship: 'boss' }, 'relationship', 'parameter_invalid'],
      [{ ...full, signature_file: photo }, 'signature_file', 'parameter_invalid'],
      [{ ...full, photo_files: [photo, sig] }, 'photo_files[1]', 'parameter_invalid'],
      [{ ...full, signature_file: 'file_nope' }, 'signature_file', 'parameter_invalid'],
      [{ ...full, delivered_packages: 3 }, 'delivered_packages', 'parameter_invalid'],
      [{ ...full, collected_amount: 1.005 }, 'collected_amount', 'parameter_invalid'],
    ];
    for (const [body, param, code] of cases) {
      const res = await call('POST', url, JSON.parse(JSON.stringify(body)));
      expect(res.status, param).toBe(422);
      expect(res.body.error.param, param).toBe(param);
      expect(res.body.error.code, param).toBe(code);
    }
    // Nothing moved while the proof was refused.
    expect((await call('GET', `/v1/orders/${o.id}`)).body.status).toBe('in_transit');

    // Files of another account, or of the live environment, are not the order's.
    const foreign = (await upload(t, other.test, 'signature', tinyPng())).body.id;
    const opLive = await newOperator(t, 'live');
    const liveFile = (await upload(t, opLive, 'signature', tinyPng())).body.id;
    for (const id of [foreign, liveFile]) {
      const res = await call('POST', url, { ...full, signature_file: id });
      expect(res.status).toBe(422);
      expect(res.body.error.param).toBe('signature_file');
    }

    const short = await call('POST', url, { ...full, collected_amount: 45.5, payment_method: 'mobile_wallet' });
    expect(short.status).toBe(200);
    expect(short.body).toMatchObject({ status: 'delivered', attempts: 1 });
    const proof = await client(t.app, m.test)('GET', `/v1/orders/${o.id}/proof`);
    expect(proof.status).toBe(200);
    expect(proof.body).toMatchObject({
      receiver_name: 'Ana',
      receiver_document: null,
      collected_amount: 45.5,
      payment_method: 'mobile_wallet',
      cod_status: 'short',
      delivered_packages: 2,
    });
    expect(proof.body.photo_urls).toHaveLength(1);
    const img = await t.app.inject({ method: 'GET', url: local(proof.body.signature_url) });
    expect(img.statusCode).toBe(200);
    expect(img.rawPayload.equals(tinyPng())).toBe(true);
    expect((await t.app.inject({ method: 'GET', url: local(proof.body.photo_urls[0]) })).statusCode).toBe(200);
    // Another account still sees nothing.
    expect((await client(t.app, other.test)('GET', `/v1/orders/${o.id}/proof`)).status).toBe(404);
  });

  it('cod_status: collected and over; proof 404 names the status before delivery', async () => {
    const call = client(t.app, op);
    for (const [amount, status] of [
      [50, 'collected'],
      [60, 'over'],
    ] as const) {
      const o = await orderIn(t, m.test, op, courier, 'at_location', { cash_on_delivery: 50 });
      const res = await call('POST', `/v1/orders/${o.id}/deliver`, {
        receiver_name: 'Ana',
        collected_amount: amount,
        payment_method: 'cash',
      });
      expect(res.status).toBe(200);
      expect((await call('GET', `/v1/orders/${o.id}/proof`)).body.cod_status).toBe(status);
    }
    const pending = (await client(t.app, m.test)('POST', '/v1/orders', validOrder())).body;
    const res = await call('GET', `/v1/orders/${pending.id}/proof`);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('resource_missing');
    expect(res.body.error.message).toContain('pending');
  });
});
