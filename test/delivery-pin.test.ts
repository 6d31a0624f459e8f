import { expect, it } from 'vitest';
import { client, describeEach, useApp, useMerchant, useOperator, validOrder } from './helpers.js';
import { eventsOf } from './lifecycle-helpers.js';
import { courierSession, sessionClient, userSession } from './people-helpers.js';

// 10:00 in Lima: outside the default quiet hours, so out_for_delivery is queued (and rendered) at once.
const MORNING = Date.parse('2026-11-25T15:00:00Z');

describeEach('delivery PIN and proof settings (DESIGN §14)', (engine) => {
  const t = useApp(engine, { RUTA_DEFAULT_TIMEZONE: 'America/Lima' }, { clock: () => MORNING });
  const m = useMerchant(t, 'Licorería Sol');
  const other = useMerchant(t, 'Otra Tienda');
  const op = useOperator(t, 'test');

  const order = async (key: string, over: Record<string, unknown> = {}) => {
    const res = await client(t.app, key)('POST', '/v1/orders', validOrder({ cash_on_delivery: 0, ...over }));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body;
  };
  const courierOf = async () => (await client(t.app, op.key)('POST', '/v1/couriers', { name: 'Luis Rojas' })).body.id;
  const onTheWay = async (id: string, courier: string) => {
    for (const [a, b] of [['assign', { courier_id: courier }], ['pickup'], ['depart']] as const) {
      const res = await client(t.app, op.key)('POST', `/v1/orders/${id}/${a}`, b);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
  };

  it('settings: defaults, a merchant changes its own, the carrier its defaults; validation; who may', async () => {
    const mine = client(t.app, m.test);
    const first = await mine('GET', '/v1/proof_settings');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ object: 'proof_settings', account: m.accountId, inherited: true, pin: 'off' });
    const put = await mine('PUT', '/v1/proof_settings', { pin: 'required', age_check: 'optional' });
    expect(put.body).toMatchObject({ inherited: false, pin: 'required', age_check: 'optional', signature: 'optional' });
    // Live and test keys are one account: its settings hold in both environments.
    expect((await client(t.app, m.live)('GET', '/v1/proof_settings')).body.pin).toBe('required');
    // Another merchant is untouched; the carrier's defaults too.
    expect((await client(t.app, other.test)('GET', '/v1/proof_settings')).body).toMatchObject({ pin: 'off' });
    const carrier = await client(t.app, op.key)('GET', '/v1/proof_settings');
    expect(carrier.body).toMatchObject({ account: null, inherited: false });

    for (const [body, param] of [
      [{ pin: 'always' }, 'pin'],
      [{ selfie: 'required' }, 'selfie'],
    ] as const) {
      const bad = await mine('PUT', '/v1/proof_settings', body);
      expect(bad.status).toBe(422);
      expect(bad.body.error.param).toBe(param);
    }
    const dispatcher = sessionClient(t, await userSession(t, 'dispatcher'), 'test');
    expect((await dispatcher('GET', '/v1/proof_settings')).body.account).toBeNull();
    const courier = sessionClient(t, await courierSession(t, op.key, await courierOf()));
    expect((await courier('GET', '/v1/proof_settings')).status).toBe(403);
    expect((await courier('PUT', '/v1/proof_settings', { pin: 'off' })).status).toBe(403);
    expect((await client(t.app)('GET', '/v1/proof_settings')).status).toBe(401);
  });

  it("an order's flags raise the account's levels and never lower them; the order shows what delivery asks for", async () => {
    await client(t.app, m.test)('PUT', '/v1/proof_settings', { signature: 'required', photo: 'off' });
    const o = await order(m.test, { requires_signature: false, requires_age_check: true });
    expect(o.requires_signature).toBe(true);
    expect(o.proof_requirements).toEqual({
      signature: 'required',
      photo: 'off',
      pin: 'off',
      id_check: 'required',
      age_check: 'required',
    });
    expect(o.pin).toBeNull();
    expect(o.delivery_pin).toBeUndefined();
    // Under the defaults, the spec's own: a signature unless the order says false.
    const plain = await order(other.test, { requires_signature: false });
    expect(plain.proof_requirements).toMatchObject({ signature: 'optional', photo: 'optional', pin: 'off' });
    expect((await order(other.test)).proof_requirements.signature).toBe('required');
    // An account that turns signatures off: an order that does not mention one needs none.
    await client(t.app, other.test)('PUT', '/v1/proof_settings', { signature: 'off' });
    expect((await order(other.test)).requires_signature).toBe(false);
    expect((await order(other.test, { requires_signature: true })).proof_requirements.signature).toBe('required');
  });

  it('PIN: made at creation, shown to the merchant only, 5 wrong tries lock it, an override lets the delivery through', async () => {
    await client(t.app, m.test)('PUT', '/v1/proof_settings', { pin: 'required', id_check: 'required' });
    await client(t.app, m.test)('PUT', '/v1/notification_settings', {
      triggers: { out_for_delivery: { sms: true, whatsapp: false, email: false } },
    });
    const o = await order(m.test, { requires_signature: false });
    expect(o.delivery_pin).toMatch(/^[0-9]{4}$/);
    expect(o.pin).toEqual({ state: 'set', attempts: 0 });
    const pin: string = o.delivery_pin;
    const wrong = pin === '0000' ? '1111' : '0000';
    expect((await client(t.app, m.test)('GET', `/v1/orders/${o.id}`)).body.delivery_pin).toBe(pin);
    const listed = await client(t.app, m.test)('GET', '/v1/orders');
    expect(listed.body.data.find((x: { id: string }) => x.id === o.id).delivery_pin).toBe(pin);

    const courierId = await courierOf();
    await onTheWay(o.id, courierId);
    // The carrier's people and the courier: the PIN's state, never the PIN.
    const courier = sessionClient(t, await courierSession(t, op.key, courierId));
    const dispatcher = sessionClient(t, await userSession(t, 'dispatcher'), 'test');
    for (const who of [client(t.app, op.key), courier, dispatcher]) {
      const read = await who('GET', `/v1/orders/${o.id}`);
      expect(read.status).toBe(200);
      expect(read.body.pin).toEqual({ state: 'set', attempts: 0 });
      expect(JSON.stringify(read.body)).not.toContain(`"${pin}"`);
    }
    expect(JSON.stringify((await courier('GET', '/v1/orders?limit=100')).body)).not.toContain('delivery_pin');
    const board = await dispatcher('GET', `/v1/orders?account=${m.accountId}`);
    expect(JSON.stringify(board.body)).not.toContain('delivery_pin');
    const page = await client(t.app)('GET', `/track/${o.tracking_code}`);
    const json = await client(t.app)('GET', `/v1/public/tracking/${o.tracking_code}`);
    // (A bare 4-digit match could be a year or a coordinate: the PIN would show as a value or a text node.)
    expect(page.raw.body).not.toContain(`>${pin}<`);
    expect(json.raw.body).not.toContain(`"${pin}"`);
    for (const body of [page.raw.body, json.raw.body]) expect(body).not.toContain('delivery_pin');
    // The customer's out_for_delivery message carries it; the carrier reads it blanked.
    const sms = (await client(t.app, m.test)('GET', `/v1/messages?order=${o.id}`)).body.data.find(
      (x: { trigger: string }) => x.trigger === 'out_for_delivery',
    );
    expect(sms.body).toContain(pin);
    const seen = await client(t.app, op.key)('GET', `/v1/messages/${sms.id}`);
    expect(seen.body.body).not.toContain(pin);
    expect(seen.body.body).toContain('••••');

    const deliver = (body: Record<string, unknown>) =>
      courier('POST', `/v1/orders/${o.id}/deliver`, {
        receiver_name: 'Ana',
        id_document: { type: 'national_id', number: '45879612' },
        ...body,
      });
    const none = await deliver({});
    expect([none.status, none.body.error.code, none.body.error.param]).toEqual([422, 'parameter_missing', 'pin']);
    // A proof missing something else is no try: the ID document is asked before the PIN is counted.
    const noId = await courier('POST', `/v1/orders/${o.id}/deliver`, { receiver_name: 'Ana', pin: wrong });
    expect(noId.body.error.param).toBe('id_document');
    for (let i = 1; i <= 4; i++) {
      const r = await deliver({ pin: wrong });
      expect([r.status, r.body.error.code, r.body.error.param]).toEqual([422, 'pin_mismatch', 'pin']);
      expect(r.body.error.message).toContain(`${5 - i} tr`);
    }
    const fifth = await deliver({ pin: wrong });
    expect([fifth.status, fifth.body.error.code]).toEqual([409, 'pin_locked']);
    // Locked: even the right PIN is refused now.
    expect((await deliver({ pin })).body.error.code).toBe('pin_locked');
    expect((await client(t.app, m.test)('GET', `/v1/orders/${o.id}`)).body.pin).toEqual({
      state: 'locked',
      attempts: 5,
    });

    // Only the carrier (or a test key on its own) overrides; never the courier; only a locked PIN.
    expect((await courier('POST', `/v1/orders/${o.id}/pin_override`, { reason: 'x' })).status).toBe(403);
    expect((await client(t.app, other.test)('POST', `/v1/orders/${o.id}/pin_override`, { reason: 'x' })).status).toBe(
      404,
    );
    const blank = await dispatcher('POST', `/v1/orders/${o.id}/pin_override`, { reason: '' });
    expect(blank.status).toBe(422);
    const over = await dispatcher('POST', `/v1/orders/${o.id}/pin_override`, {
      reason: 'Customer showed the SMS on a new phone; DNI checked',
    });
    expect(over.status, JSON.stringify(over.body)).toBe(200);
    expect(over.body.pin).toEqual({ state: 'overridden', attempts: 5 });
    expect(over.body.delivery_pin).toBeUndefined();
    expect((await dispatcher('POST', `/v1/orders/${o.id}/pin_override`, { reason: 'again' })).body.error.code).toBe(
      'pin_not_locked',
    );

    const done = await deliver({});
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    const proof = (await client(t.app, m.test)('GET', `/v1/orders/${o.id}/proof`)).body;
    expect(proof).toMatchObject({
      pin: 'overridden',
      id_document: { type: 'national_id', number: '45879612' },
      age_verified: null,
    });
    const events = (await eventsOf(t, o.id)).map((e) => e.event);
    expect(events).toEqual(expect.arrayContaining(['order.pin_locked', 'order.pin_overridden', 'order.delivered']));
    const overridden = (await eventsOf(t, o.id)).find((e) => e.event === 'order.pin_overridden');
    expect(overridden.data).toMatchObject({ reason: 'Customer showed the SMS on a new phone; DNI checked' });
    for (const e of await eventsOf(t, o.id)) expect(e.data.message?.body ?? '').not.toContain(pin);
  });

  it('the right PIN delivers; age check needs the ID document and 18+', async () => {
    const o = await order(m.test, { requires_signature: false, requires_pin: true, requires_age_check: true });
    const courierId = await courierOf();
    await onTheWay(o.id, courierId);
    const courier = sessionClient(t, await courierSession(t, op.key, courierId));
    const id_document = { type: 'passport', number: 'X1234567' };
    const base = { receiver_name: 'Ana', pin: o.delivery_pin, id_document };
    const under = await courier('POST', `/v1/orders/${o.id}/deliver`, { ...base, age_verified: false });
    expect([under.status, under.body.error.param]).toEqual([422, 'age_verified']);
    const ok = await courier('POST', `/v1/orders/${o.id}/deliver`, { ...base, age_verified: true });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.delivery_pin).toBeUndefined();
    const proof = (await client(t.app, m.test)('GET', `/v1/orders/${o.id}/proof`)).body;
    expect(proof).toMatchObject({ pin: 'verified', age_verified: true, id_document });
  });

  it('wrong PINs sent at once are each counted: the fifth locks, once', async () => {
    const o = await order(m.test, { requires_signature: false, requires_pin: true });
    await onTheWay(o.id, await courierOf());
    const wrong = o.delivery_pin === '0000' ? '1111' : '0000';
    const answers = await Promise.all(
      Array.from({ length: 7 }, () =>
        client(t.app, op.key)('POST', `/v1/orders/${o.id}/deliver`, { receiver_name: 'Ana', pin: wrong }),
      ),
    );
    const codes = answers.map((r) => r.body.error.code).sort();
    expect(codes).toEqual([...Array(3).fill('pin_locked'), ...Array(4).fill('pin_mismatch')]);
    expect((await client(t.app, m.test)('GET', `/v1/orders/${o.id}`)).body.pin).toEqual({
      state: 'locked',
      attempts: 5,
    });
    expect((await eventsOf(t, o.id)).filter((e) => e.event === 'order.pin_locked')).toHaveLength(1);
  });
});
