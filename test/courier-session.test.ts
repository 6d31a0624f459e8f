import { afterAll, beforeAll, expect, it } from 'vitest';
import { CODE_TTL_MS, COURIER_SESSION_MS } from '../src/features/people/courier-sign-in.js';
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
import { orderIn, tinyPng } from './lifecycle-helpers.js';
import { cookieFrom, courierSession, moveClock, sessionClient, userSession } from './people-helpers.js';

let ipSeq = 0;
const freshIp = () => {
  ipSeq += 1;
  return { 'x-forwarded-for': `192.0.2.${ipSeq}` };
};

describeEach('courier sign-in and courier scope (DESIGN §9)', (engine) => {
  let t: TestApp;
  let a: Merchant;
  let op: string;
  let opLive: string;

  const newCourier = async (name = 'Luis', key = op) =>
    (await client(t.app, key)('POST', '/v1/couriers', { name })).body;
  const issue = async (courierId: string, key = op) =>
    client(t.app, key)('POST', `/v1/couriers/${courierId}/sign_in_codes`);
  const redeem = (code: string, headers = freshIp()) => client(t.app)('POST', '/v1/courier_session', { code }, headers);

  beforeAll(async () => {
    t = await startApp(engine, { RUTA_PUBLIC_URL: 'https://ruta.example.com', RUTA_TRUST_PROXY: 'true' });
    a = await newMerchant(t, 'A');
    op = await newOperator(t, 'test');
    opLive = await newOperator(t, 'live');
  });
  afterAll(async () => t?.close());

  it('issues a code (operator key, admin, dispatcher); it signs a phone in once, with a 30-day cookie', async () => {
    const c = await newCourier();
    const res = await issue(c.id);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ object: 'courier_sign_in_code', courier: c.id });
    expect(res.body.code).toMatch(/^[23456789ABCDEFGHJKMNPQRSTVWXYZ]{8}$/);
    expect(res.body.url).toBe(`https://ruta.example.com/courier/#code=${res.body.code}`);
    expect(Date.parse(res.body.expires_at) - Date.now()).toBeLessThanOrEqual(CODE_TTL_MS);
    const stored = await t.ctx.db
      .selectFrom('courier_sign_in_codes')
      .selectAll()
      .where('courier_id', '=', c.id)
      .execute();
    expect(stored).toHaveLength(1);
    expect(JSON.stringify(stored)).not.toContain(res.body.code);

    const signed = await redeem(res.body.code.toLowerCase());
    expect(signed.status).toBe(200);
    expect(signed.body).toMatchObject({ object: 'courier_session', courier: { id: c.id, name: 'Luis' } });
    expect(signed.body.csrf_token).toMatch(/^[\w-]{43}$/);
    const line = cookieFrom(signed.raw, 'ruta_courier_session') ?? '';
    expect(line).toMatch(/HttpOnly/);
    expect(line).toMatch(/SameSite=Lax/);
    expect(line).toMatch(/Secure/);
    expect(Date.parse(signed.body.expires_at) - Date.now()).toBeGreaterThan(COURIER_SESSION_MS - 60_000);
    const s = { cookie: line.split(';')[0] as string, csrf: signed.body.csrf_token, body: signed.body };
    const me = await sessionClient(t, s)('GET', '/v1/courier_session');
    expect(me.status).toBe(200);
    expect(me.body.courier.id).toBe(c.id);

    // Used: a second phone cannot use it.
    const again = await redeem(res.body.code);
    expect(again.status).toBe(401);
    expect(again.body.error.code).toBe('invalid_credentials');

    for (const role of ['admin', 'dispatcher'] as const) {
      const u = sessionClient(t, await userSession(t, role));
      expect((await u('POST', `/v1/couriers/${c.id}/sign_in_codes`)).status, role).toBe(201);
    }
  });

  it('merchant keys, merchant users and couriers cannot issue codes (403); unknown or other-env couriers are 404', async () => {
    const c = await newCourier();
    for (const key of [a.test, a.live]) {
      const res = await issue(c.id, key);
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('permission_denied');
    }
    const m = sessionClient(t, await userSession(t, 'merchant', a.accountId));
    expect((await m('POST', `/v1/couriers/${c.id}/sign_in_codes`)).status).toBe(403);
    const phone = sessionClient(t, await courierSession(t, op, c.id));
    expect((await phone('POST', `/v1/couriers/${c.id}/sign_in_codes`)).status).toBe(403);
    expect((await issue(c.id, opLive)).status).toBe(404);
    expect((await issue('cou_nope')).status).toBe(404);
  });

  it('an expired code is refused', async () => {
    const c = await newCourier();
    const code = (await issue(c.id)).body.code;
    moveClock(t, CODE_TTL_MS + 1000);
    try {
      const res = await redeem(code);
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('invalid_credentials');
    } finally {
      moveClock(t, 0);
    }
  });

  it('5 wrong codes from one address: 429 with Retry-After, even for a good code', async () => {
    const c = await newCourier();
    const good = (await issue(c.id)).body.code;
    const from = freshIp();
    for (let i = 0; i < 5; i++) expect((await redeem('ZZZZZZZZ', from)).status).toBe(401);
    const locked = await redeem(good, from);
    expect(locked.status).toBe(429);
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
    // The code was not spent by the refused attempt: another address can still use it.
    expect((await redeem(good)).status).toBe(200);
  });

  it('a courier session sees only its own unfinished assigned orders and its routes (404 for the rest)', async () => {
    const me = await newCourier('Me');
    const other = await newCourier('Other');
    const mine = await orderIn(t, a.test, op, me.id, 'picked_up');
    const theirs = await orderIn(t, a.test, op, other.id, 'picked_up');
    const done = await orderIn(t, a.test, op, me.id, 'delivered');
    const unassigned = (await client(t.app, a.test)('POST', '/v1/orders', validOrder())).body;
    const myRoute = (await client(t.app, op)('POST', '/v1/routes', { courier_id: me.id, order_ids: [unassigned.id] }))
      .body;
    const otherRoute = (
      await client(t.app, op)('POST', '/v1/routes', {
        courier_id: other.id,
        order_ids: [(await client(t.app, a.test)('POST', '/v1/orders', validOrder())).body.id],
      })
    ).body;
    const phone = sessionClient(t, await courierSession(t, op, me.id));

    const got = await phone('GET', `/v1/orders/${mine.id}`);
    expect(got.status).toBe(200);
    // Its active stop: the customer's phone and full address are there.
    expect(got.body.customer.phone).toBe('+51987654321');
    expect(got.body.delivery_address.address).toBe('Av. Larco 123');
    for (const id of [theirs.id, done.id]) {
      const res = await phone('GET', `/v1/orders/${id}`);
      expect(res.status, id).toBe(404);
      expect(res.body.error.code).toBe('resource_missing');
    }
    const list = (await phone('GET', '/v1/orders?limit=100')).body.data.map((o: { id: string }) => o.id);
    expect(list).toContain(mine.id);
    expect(list).toContain(unassigned.id);
    expect(list).not.toContain(theirs.id);
    expect(list).not.toContain(done.id);
    const cursor = await phone('GET', `/v1/orders?starting_after=${theirs.id}`);
    expect(cursor.status).toBe(422);

    expect((await phone('GET', `/v1/routes/${myRoute.id}`)).status).toBe(200);
    expect((await phone('GET', `/v1/routes/${otherRoute.id}`)).status).toBe(404);
    expect((await phone('GET', `/v1/couriers/${me.id}`)).status).toBe(200);
    expect((await phone('GET', `/v1/couriers/${other.id}`)).status).toBe(404);
    expect((await phone('GET', `/v1/orders/${mine.id}/tracking`)).status).toBe(200);
    expect((await phone('GET', `/v1/orders/${theirs.id}/tracking`)).status).toBe(404);
  });

  it('a courier runs ready..fail on its orders, uploads files and posts its own location; nothing else', async () => {
    const me = await newCourier('Runner');
    const other = await newCourier('Else');
    const phone = sessionClient(t, await courierSession(t, op, me.id));
    const o = await orderIn(t, a.test, op, me.id, 'assigned');
    for (const action of ['ready', 'pickup', 'depart', 'approach', 'arrive']) {
      const res = await phone('POST', `/v1/orders/${o.id}/${action}`);
      expect(res.status, `${action}: ${JSON.stringify(res.body)}`).toBe(200);
    }
    const file = await phone('POST', '/v1/files?purpose=signature', tinyPng(), { 'content-type': 'image/png' });
    expect(file.status).toBe(201);
    const delivered = await phone('POST', `/v1/orders/${o.id}/deliver`, {
      receiver_name: 'Ana',
      signature_file: file.body.id,
    });
    expect(delivered.status).toBe(200);
    expect(delivered.body.status).toBe('delivered');
    // Finished: no longer visible to the courier, while the merchant sees it delivered.
    expect((await phone('GET', `/v1/orders/${o.id}`)).status).toBe(404);
    expect((await client(t.app, a.test)('GET', `/v1/orders/${o.id}`)).body.status).toBe('delivered');

    const f = await orderIn(t, a.test, op, me.id, 'picked_up');
    expect((await phone('POST', `/v1/orders/${f.id}/fail`, { reason: 'customer_absent' })).status).toBe(200);

    // Someone else's order: 404, and it does not move.
    const theirs = await orderIn(t, a.test, op, other.id, 'assigned');
    expect((await phone('POST', `/v1/orders/${theirs.id}/ready`)).status).toBe(404);
    expect((await client(t.app, op)('GET', `/v1/orders/${theirs.id}`)).body.status).toBe('assigned');

    // Operations outside the courier's list: 403, even on its own order.
    const own = await orderIn(t, a.test, op, me.id, 'assigned');
    const forbidden: [string, string, unknown?][] = [
      ['POST', `/v1/orders/${own.id}/cancel`],
      ['POST', `/v1/orders/${own.id}/reschedule`, { requested_date: '2030-01-02T15:00:00Z' }],
      ['POST', `/v1/orders/${own.id}/assign`, { courier_id: me.id }],
      ['POST', `/v1/orders/${own.id}/validate`],
      ['POST', '/v1/orders', validOrder()],
      ['POST', '/v1/orders/quote', validOrder()],
      ['POST', '/v1/couriers', { name: 'X' }],
      ['GET', '/v1/couriers'],
      ['PATCH', `/v1/couriers/${me.id}`, { name: 'Renamed' }],
      ['POST', '/v1/routes', { courier_id: me.id, order_ids: [own.id] }],
      ['GET', `/v1/files/${file.body.id}`],
      ['GET', '/v1/webhook_endpoints'],
      ['GET', '/v1/events'],
      ['GET', '/v1/users'],
      ['GET', '/v1/api_keys'],
    ];
    for (const [method, url, body] of forbidden) {
      const res = await phone(method as 'GET', url, body);
      expect(res.status, `${method} ${url}: ${JSON.stringify(res.body)}`).toBe(403);
      expect(res.body.error.code).toBe('permission_denied');
    }
    expect((await client(t.app, op)('GET', `/v1/orders/${own.id}`)).body.status).toBe('assigned');

    const loc = await phone('POST', `/v1/couriers/${me.id}/location`, { lat: -12.1, lng: -77.03 });
    expect(loc.status).toBe(200);
    expect(loc.body.location.lat).toBe(-12.1);
    const elsewhere = await phone('POST', `/v1/couriers/${other.id}/location`, { lat: 1, lng: 1 });
    expect(elsewhere.status).toBe(404);
    // The phone's buffered batch (what the app sends while on duty): its own courier only.
    const at = new Date(t.ctx.clock() + 1000).toISOString();
    const batch = await phone('POST', `/v1/couriers/${me.id}/locations`, {
      points: [{ lat: -12.2, lng: -77.04, recorded_at: at }],
    });
    expect(batch.status, JSON.stringify(batch.body)).toBe(200);
    expect(batch.body.location.lat).toBe(-12.2);
    const batchElsewhere = await phone('POST', `/v1/couriers/${other.id}/locations`, {
      points: [{ lat: 1, lng: 1, recorded_at: at }],
    });
    expect(batchElsewhere.status).toBe(404);
    expect((await client(t.app, op)('GET', `/v1/couriers/${other.id}`)).body.location).toBeNull();
  });

  it('CSRF applies to the courier cookie too', async () => {
    const me = await newCourier();
    const s = await courierSession(t, op, me.id);
    const res = await client(t.app)('POST', `/v1/couriers/${me.id}/location`, { lat: 1, lng: 1 }, { cookie: s.cookie });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('csrf_failed');
    const evil = await sessionClient(t, s)(
      'POST',
      `/v1/couriers/${me.id}/location`,
      { lat: 1, lng: 1 },
      {
        origin: 'https://evil.example',
      },
    );
    expect(evil.status).toBe(403);
  });

  it('sign out, sign out everywhere, disabling the courier, and the 30-day end', async () => {
    const me = await newCourier();
    const one = sessionClient(t, await courierSession(t, op, me.id));
    const two = sessionClient(t, await courierSession(t, op, me.id));
    const three = sessionClient(t, await courierSession(t, op, me.id));
    const out = await one('DELETE', '/v1/courier_session');
    expect(out.status).toBe(200);
    expect((await one('GET', '/v1/courier_session')).status).toBe(401);
    expect((await two('GET', '/v1/courier_session')).status).toBe(200);

    const all = await client(t.app, op)('POST', `/v1/couriers/${me.id}/sign_out_everywhere`);
    expect(all.status).toBe(200);
    expect(all.body).toEqual({ object: 'courier_sign_out', courier: me.id, sessions_ended: 2 });
    for (const phone of [two, three]) {
      const res = await phone('GET', '/v1/courier_session');
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('session_invalid');
    }

    const four = sessionClient(t, await courierSession(t, op, me.id));
    const disabled = await client(t.app, op)('PATCH', `/v1/couriers/${me.id}`, { status: 'disabled' });
    expect(disabled.body.status).toBe('disabled');
    expect((await four('GET', '/v1/courier_session')).status).toBe(401);
    const code = await issue(me.id);
    expect(code.status).toBe(422);
    // Enabled again, the old phone stays signed out.
    await client(t.app, op)('PATCH', `/v1/couriers/${me.id}`, { status: 'active' });
    expect((await four('GET', '/v1/courier_session')).status).toBe(401);

    const five = sessionClient(t, await courierSession(t, op, me.id));
    moveClock(t, COURIER_SESSION_MS + 1000);
    try {
      expect((await five('GET', '/v1/courier_session')).status).toBe(401);
    } finally {
      moveClock(t, 0);
    }
  });

  it('a code issued while the courier was active is refused once the courier is disabled', async () => {
    const me = await newCourier();
    const code = (await issue(me.id)).body.code;
    await client(t.app, op)('PATCH', `/v1/couriers/${me.id}`, { status: 'disabled' });
    expect((await redeem(code)).status).toBe(401);
  });
});
