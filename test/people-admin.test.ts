import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INVITATION_TTL_MS } from '../src/features/people/invitations.js';
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
import { cookieFrom, moveClock, newUser, PASSWORD, sessionClient, signIn, userSession } from './people-helpers.js';

describeEach('users, invitations, accounts and API keys over the API', (engine) => {
  let t: TestApp;
  let a: Merchant;
  let b: Merchant;
  let admin: ReturnType<typeof sessionClient>;
  let adminId: string;

  beforeAll(async () => {
    t = await startApp(engine, { RUTA_PUBLIC_URL: 'https://ruta.example.com', RUTA_TRUST_PROXY: 'true' });
    a = await newMerchant(t, 'A');
    b = await newMerchant(t, 'B');
    const s = await userSession(t, 'admin');
    admin = sessionClient(t, s);
    adminId = s.body.user.id;
  });
  afterAll(async () => t?.close());

  /** Who must be refused (403) on admin-only operations. */
  async function nonAdmins() {
    const dispatcher = sessionClient(t, await userSession(t, 'dispatcher'));
    const merchant = sessionClient(t, await userSession(t, 'merchant', a.accountId));
    return [
      ['dispatcher', dispatcher],
      ['merchant user', merchant],
      ['operator key', client(t.app, await newOperator(t))],
      ['secret key', client(t.app, a.test)],
    ] as const;
  }

  describe('users', () => {
    it('admins create, list and update users; emails are unique case-insensitively', async () => {
      const res = await admin('POST', '/v1/users', {
        email: 'Disp@Example.com',
        name: 'Dora',
        role: 'dispatcher',
        password: 'a long password',
      });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ object: 'user', email: 'disp@example.com', role: 'dispatcher', account: null });
      expect(JSON.stringify(res.body)).not.toMatch(/password|scrypt/);
      const dup = await admin('POST', '/v1/users', {
        email: 'DISP@example.com',
        name: 'Again',
        role: 'dispatcher',
        password: 'a long password',
      });
      expect(dup.status).toBe(409);
      expect(dup.body.error).toMatchObject({ code: 'email_taken', param: 'email' });
      const list = await admin('GET', '/v1/users');
      expect(list.body.data.map((u: { id: string }) => u.id)).toContain(res.body.id);
      const patched = await admin('PATCH', `/v1/users/${res.body.id}`, { role: 'admin', name: 'Dora A.' });
      expect(patched.body).toMatchObject({ role: 'admin', name: 'Dora A.' });
      expect((await signIn(t, 'disp@example.com', 'a long password')).body.user.role).toBe('admin');
    });

    it('checks passwords, roles and accounts (422 with the param)', async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{ email: 'x1@example.com', name: 'X', role: 'admin', password: 'short' }, 'password'],
        [{ email: 'x2@example.com', name: 'X', role: 'merchant', password: 'a long password' }, 'account'],
        [
          { email: 'x3@example.com', name: 'X', role: 'merchant', account: 'acct_nope', password: 'a long password' },
          'account',
        ],
        [
          { email: 'x4@example.com', name: 'X', role: 'admin', account: a.accountId, password: 'a long password' },
          'account',
        ],
        [{ email: 'not-an-email', name: 'X', role: 'admin', password: 'a long password' }, 'email'],
        [{ email: 'x5@example.com', name: 'X', role: 'owner', password: 'a long password' }, 'role'],
      ];
      for (const [body, param] of cases) {
        const res = await admin('POST', '/v1/users', body);
        expect(res.status, JSON.stringify(body)).toBe(422);
        expect(res.body.error.param, JSON.stringify(body)).toBe(param);
      }
      // The message names the role with its article: "An admin", "A dispatcher".
      for (const [role, message] of [
        ['admin', 'An admin belongs to no account.'],
        ['dispatcher', 'A dispatcher belongs to no account.'],
      ]) {
        const body = {
          email: `x6-${role}@example.com`,
          name: 'X',
          role,
          account: a.accountId,
          password: 'a long password',
        };
        expect((await admin('POST', '/v1/users', body)).body.error.message).toBe(message);
      }
      const self = await admin('PATCH', `/v1/users/${adminId}`, { status: 'disabled' });
      expect(self.status).toBe(422);
      expect(self.body.error.param).toBe('status');
      expect((await admin('PATCH', '/v1/users/usr_nope', { status: 'disabled' })).status).toBe(404);
    });

    it('only admins manage users (403 for everyone else)', async () => {
      const target = await newUser(t, 'dispatcher');
      for (const [who, call] of await nonAdmins()) {
        for (const [method, url, body] of [
          ['GET', '/v1/users'],
          ['POST', '/v1/users', { email: 'y@example.com', name: 'Y', role: 'admin', password: 'a long password' }],
          ['PATCH', `/v1/users/${target.id}`, { status: 'disabled' }],
        ] as const) {
          const res = await call(method, url, body);
          expect(res.status, `${who} ${method} ${url}`).toBe(403);
          expect(res.body.error.code).toBe('permission_denied');
        }
      }
      expect((await client(t.app)('GET', '/v1/users')).status).toBe(401);
    });

    it('a role change ends the user\u2019s sessions (they never keep powers they lost)', async () => {
      const u = await newUser(t, 'admin');
      const s = sessionClient(t, await signIn(t, u.email));
      expect((await s('GET', '/v1/users')).status).toBe(200);
      await admin('PATCH', `/v1/users/${u.id}`, { role: 'dispatcher' });
      expect((await s('GET', '/v1/users')).status).toBe(401);
    });
  });

  describe('invitations', () => {
    it('admin invites; the link shows email and role; accepting creates the user and signs in; single use', async () => {
      const inv = await admin('POST', '/v1/invitations', {
        email: 'New@Example.com',
        role: 'merchant',
        account: a.accountId,
      });
      expect(inv.status).toBe(201);
      expect(inv.body).toMatchObject({
        object: 'invitation',
        email: 'new@example.com',
        role: 'merchant',
        account: a.accountId,
      });
      const token = inv.body.url.split('#invitation=')[1];
      expect(inv.body.url.startsWith('https://ruta.example.com/console/#invitation=')).toBe(true);
      expect(Date.parse(inv.body.expires_at) - Date.now()).toBeGreaterThan(INVITATION_TTL_MS - 60_000);
      const stored = await t.ctx.db.selectFrom('invitations').selectAll().where('id', '=', inv.body.id).execute();
      expect(JSON.stringify(stored)).not.toContain(token);

      const shown = await client(t.app)('GET', `/v1/invitations/${token}`);
      expect(shown.status).toBe(200);
      expect(shown.body).toMatchObject({ object: 'invitation', email: 'new@example.com', role: 'merchant' });

      const weak = await client(t.app)('POST', `/v1/invitations/${token}/accept`, { name: 'N', password: 'short' });
      expect(weak.status).toBe(422);
      expect(weak.body.error.param).toBe('password');

      const ok = await client(t.app)('POST', `/v1/invitations/${token}/accept`, {
        name: 'Nina',
        password: 'a long password',
      });
      expect(ok.status).toBe(201);
      expect(ok.body).toMatchObject({
        object: 'session',
        user: { email: 'new@example.com', role: 'merchant', account: a.accountId },
      });
      const line = cookieFrom(ok.raw, 'ruta_session') ?? '';
      const s = sessionClient(t, { cookie: line.split(';')[0] as string, csrf: ok.body.csrf_token, body: ok.body });
      expect((await s('POST', '/v1/orders', validOrder())).status).toBe(201);

      const twice = await client(t.app)('POST', `/v1/invitations/${token}/accept`, {
        name: 'Nina',
        password: 'a long password',
      });
      expect(twice.status).toBe(404);
      expect((await client(t.app)('GET', `/v1/invitations/${token}`)).status).toBe(404);
      expect((await signIn(t, 'new@example.com', 'a long password')).body.user.name).toBe('Nina');
    });

    it('an expired invitation is 404; an invitation for an existing email is 409; non-admins 403', async () => {
      const inv = await admin('POST', '/v1/invitations', { email: 'late@example.com', role: 'dispatcher' });
      const token = inv.body.url.split('#invitation=')[1];
      moveClock(t, INVITATION_TTL_MS + 1000);
      try {
        expect((await client(t.app)('GET', `/v1/invitations/${token}`)).status).toBe(404);
        const res = await client(t.app)('POST', `/v1/invitations/${token}/accept`, { name: 'L', password: PASSWORD });
        expect(res.status).toBe(404);
      } finally {
        moveClock(t, 0);
      }
      const existing = await newUser(t, 'dispatcher');
      const dup = await admin('POST', '/v1/invitations', { email: existing.email, role: 'dispatcher' });
      expect(dup.status).toBe(409);
      for (const [who, call] of await nonAdmins()) {
        const res = await call('POST', '/v1/invitations', { email: 'z@example.com', role: 'dispatcher' });
        expect(res.status, who).toBe(403);
      }
      expect((await client(t.app)('GET', '/v1/invitations/nope')).status).toBe(404);
    });

    it('admins list the open invitations (never their links); accepted and expired ones drop out', async () => {
      const open = await admin('POST', '/v1/invitations', { email: 'Pending@Example.com', role: 'dispatcher' });
      const taken = await admin('POST', '/v1/invitations', { email: 'taken@example.com', role: 'dispatcher' });
      const merchantInv = await admin('POST', '/v1/invitations', {
        email: 'shop@example.com',
        role: 'merchant',
        account: a.accountId,
      });
      const token = taken.body.url.split('#invitation=')[1];
      expect(
        (await client(t.app)('POST', `/v1/invitations/${token}/accept`, { name: 'T', password: PASSWORD })).status,
      ).toBe(201);
      const list = await admin('GET', '/v1/invitations');
      expect(list.status).toBe(200);
      const ids = list.body.data.map((i: { id: string }) => i.id);
      expect(ids).toContain(open.body.id);
      expect(ids).not.toContain(taken.body.id);
      expect(list.body.data.find((i: { id: string }) => i.id === open.body.id)).toEqual({
        id: open.body.id,
        object: 'invitation',
        email: 'pending@example.com',
        role: 'dispatcher',
        account: null,
        created_at: expect.any(String),
        expires_at: open.body.expires_at,
      });
      expect(list.body.data.find((i: { id: string }) => i.id === merchantInv.body.id).account).toBe(a.accountId);
      // No token and no link, in any form.
      expect(JSON.stringify(list.body)).not.toMatch(/url|token|#invitation/);
      moveClock(t, INVITATION_TTL_MS + 1000);
      try {
        // A session of that later time (the first admin's would have timed out by then).
        const then = sessionClient(t, await userSession(t, 'admin'));
        const later = (await then('GET', '/v1/invitations')).body.data.map((i: { id: string }) => i.id);
        expect(later).not.toContain(open.body.id);
      } finally {
        moveClock(t, 0);
      }
      for (const [who, call] of await nonAdmins()) {
        const res = await call('GET', '/v1/invitations');
        expect(res.status, who).toBe(403);
        expect(res.body.error.code).toBe('permission_denied');
      }
      expect((await client(t.app)('GET', '/v1/invitations')).status).toBe(401);
    });

    it('admins revoke an open invitation: its link stops working; accepted, expired or unknown ones are 404', async () => {
      const inv = await admin('POST', '/v1/invitations', { email: 'Revoked@Example.com', role: 'dispatcher' });
      const token = inv.body.url.split('#invitation=')[1];
      const res = await admin('POST', `/v1/invitations/${inv.body.id}/revoke`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: inv.body.id, object: 'invitation', email: 'revoked@example.com' });
      expect(Date.parse(res.body.expires_at)).toBeLessThanOrEqual(Date.now());
      // The link is dead both ways, and the invitation is no longer listed; the row is kept.
      expect((await client(t.app)('GET', `/v1/invitations/${token}`)).status).toBe(404);
      const accept = await client(t.app)('POST', `/v1/invitations/${token}/accept`, { name: 'R', password: PASSWORD });
      expect(accept.status).toBe(404);
      expect(
        await t.ctx.db.selectFrom('users').select('id').where('email', '=', 'revoked@example.com').execute(),
      ).toEqual([]);
      const ids = (await admin('GET', '/v1/invitations')).body.data.map((i: { id: string }) => i.id);
      expect(ids).not.toContain(inv.body.id);
      expect(
        await t.ctx.db.selectFrom('invitations').select('id').where('id', '=', inv.body.id).execute(),
      ).toHaveLength(1);
      // Twice: nothing open is left to revoke.
      const again = await admin('POST', `/v1/invitations/${inv.body.id}/revoke`);
      expect(again.status).toBe(404);
      expect(again.body.error.code).toBe('resource_missing');

      // An accepted invitation cannot be revoked (the user exists: disable them instead).
      const used = await admin('POST', '/v1/invitations', { email: 'used@example.com', role: 'dispatcher' });
      const usedToken = used.body.url.split('#invitation=')[1];
      expect(
        (await client(t.app)('POST', `/v1/invitations/${usedToken}/accept`, { name: 'U', password: PASSWORD })).status,
      ).toBe(201);
      expect((await admin('POST', `/v1/invitations/${used.body.id}/revoke`)).status).toBe(404);
      expect((await admin('POST', '/v1/invitations/inv_nope/revoke')).status).toBe(404);
      // Nor an expired one.
      const late = await admin('POST', '/v1/invitations', { email: 'expired@example.com', role: 'dispatcher' });
      moveClock(t, INVITATION_TTL_MS + 1000);
      try {
        const then = sessionClient(t, await userSession(t, 'admin'));
        expect((await then('POST', `/v1/invitations/${late.body.id}/revoke`)).status).toBe(404);
      } finally {
        moveClock(t, 0);
      }
    });

    it('revoking: admins in either environment (invitations are the carrier\u2019s); everyone else 403', async () => {
      const inv = await admin('POST', '/v1/invitations', { email: 'wrongrole@example.com', role: 'dispatcher' });
      for (const [who, call] of await nonAdmins()) {
        const res = await call('POST', `/v1/invitations/${inv.body.id}/revoke`);
        expect(res.status, who).toBe(403);
        expect(res.body.error.code, who).toBe('permission_denied');
      }
      expect((await client(t.app)('POST', `/v1/invitations/${inv.body.id}/revoke`)).status).toBe(401);
      // Still open after all those refusals.
      const ids = (await admin('GET', '/v1/invitations')).body.data.map((i: { id: string }) => i.id);
      expect(ids).toContain(inv.body.id);
      // An admin session acting in live revokes it: the switch of environment does not hide it.
      const live = sessionClient(t, await userSession(t, 'admin'), 'live');
      expect((await live('POST', `/v1/invitations/${inv.body.id}/revoke`)).status).toBe(200);
      // A cookie request without the CSRF token changes nothing.
      const other = await admin('POST', '/v1/invitations', { email: 'csrf@example.com', role: 'dispatcher' });
      const s = await userSession(t, 'admin');
      const noCsrf = await client(t.app)('POST', `/v1/invitations/${other.body.id}/revoke`, undefined, {
        cookie: s.cookie,
      });
      expect(noCsrf.status).toBe(403);
      expect(noCsrf.body.error.code).toBe('csrf_failed');
      const still = (await admin('GET', '/v1/invitations')).body.data.map((i: { id: string }) => i.id);
      expect(still).toContain(other.body.id);
      // Malformed: a body with fields is refused.
      const bad = await admin('POST', `/v1/invitations/${other.body.id}/revoke`, { zzz: 1 });
      expect(bad.status).toBe(422);
    });

    it('accepting checks Origin', async () => {
      const inv = await admin('POST', '/v1/invitations', { email: 'o@example.com', role: 'dispatcher' });
      const token = inv.body.url.split('#invitation=')[1];
      const res = await client(t.app)(
        'POST',
        `/v1/invitations/${token}/accept`,
        { name: 'O', password: PASSWORD },
        {
          origin: 'https://evil.example',
        },
      );
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('csrf_failed');
    });
  });

  describe('accounts', () => {
    it('admins list, read and edit accounts; new pricing applies to the next quote at once', async () => {
      const list = await admin('GET', '/v1/accounts');
      expect(list.body.data.map((x: { id: string }) => x.id)).toEqual(
        expect.arrayContaining([a.accountId, b.accountId]),
      );
      const before = (await client(t.app, b.test)('POST', '/v1/orders/quote', validOrder())).body;
      const res = await admin('PATCH', `/v1/accounts/${b.accountId}`, {
        name: 'B renamed',
        origin: { lat: -12.05, lng: -77.04 },
        pricing: { base_fee: 900, minimum: 0 },
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        object: 'account',
        name: 'B renamed',
        origin: { lat: -12.05, lng: -77.04 },
        pricing: { base_fee: 900, minimum: 0 },
      });
      expect((await admin('GET', `/v1/accounts/${b.accountId}`)).body.name).toBe('B renamed');
      const after = (await client(t.app, b.test)('POST', '/v1/orders/quote', validOrder())).body;
      expect(after).not.toEqual(before);
      const bad = await admin('PATCH', `/v1/accounts/${b.accountId}`, { currency: 'usd' });
      expect(bad.status).toBe(422);
      expect(bad.body.error.param).toBe('currency');
      expect((await admin('GET', '/v1/accounts/acct_nope')).status).toBe(404);
    });

    it('admins create an account with its pricing and origin; its two secret keys are shown once and work', async () => {
      const res = await admin('POST', '/v1/accounts', {
        name: '  Nueva Tienda ',
        currency: 'PEN',
        origin: { lat: -12.09, lng: -77.05 },
        pricing: { base_fee: 700, minimum: 0 },
      });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        object: 'account',
        name: 'Nueva Tienda',
        currency: 'PEN',
        origin: { lat: -12.09, lng: -77.05 },
        pricing: { base_fee: 700, minimum: 0 },
      });
      expect(res.body.id).toMatch(/^acct_/);
      expect(res.body.keys.test).toMatch(/^sk_test_/);
      expect(res.body.keys.live).toMatch(/^sk_live_/);
      // The keys work, each in its environment, on the new account; the order is priced with its pricing.
      const order = await client(t.app, res.body.keys.test)('POST', '/v1/orders', validOrder());
      expect(order.status).toBe(201);
      expect(order.body).toMatchObject({ livemode: false, currency: 'PEN' });
      expect((await client(t.app, res.body.keys.live)('GET', '/v1/orders')).body.data).toEqual([]);
      expect((await client(t.app, res.body.keys.test)('GET', `/v1/orders/${order.body.id}`)).body.id).toBe(
        order.body.id,
      );
      // Another account cannot see its order.
      expect((await client(t.app, a.test)('GET', `/v1/orders/${order.body.id}`)).status).toBe(404);
      // The secrets are never shown again: not in the account, nor in the key list.
      const read = await admin('GET', `/v1/accounts/${res.body.id}`);
      expect(read.body.keys).toBeUndefined();
      const keys = await admin('GET', `/v1/api_keys?account=${res.body.id}`);
      expect(keys.body.data.map((k: { mode: string }) => k.mode).sort()).toEqual(['live', 'test']);
      expect(JSON.stringify(keys.body)).not.toContain(res.body.keys.test);
      expect((await admin('GET', '/v1/accounts')).body.data.map((x: { id: string }) => x.id)).toContain(res.body.id);

      // Defaults: the configured currency, no origin, default pricing.
      const plain = await admin('POST', '/v1/accounts', { name: 'Plain' });
      expect(plain.status).toBe(201);
      expect(plain.body).toMatchObject({ currency: t.ctx.config.defaultCurrency, origin: null, pricing: null });

      for (const [body, param] of [
        [{ name: '   ' }, 'name'],
        [{}, 'name'],
        [{ name: 'X', currency: 'usd' }, 'currency'],
        [{ name: 'X', pricing: { base_fee: -1 } }, 'pricing'],
        [{ name: 'X', zzz: 1 }, 'zzz'],
      ] as const) {
        const bad = await admin('POST', '/v1/accounts', body);
        expect(bad.status, JSON.stringify(body)).toBe(422);
        expect(bad.body.error.param, JSON.stringify(body)).toBe(param);
      }
    });

    it("only admins (403 for dispatchers, merchants and keys); the list is the whole carrier's", async () => {
      for (const [who, call] of await nonAdmins()) {
        // Dispatchers and operator keys pick accounts by name (the board's filter); merchants may not.
        const list = await call('GET', '/v1/accounts');
        if (who === 'dispatcher' || who === 'operator key') {
          expect(list.status, who).toBe(200);
          expect(list.body.data.map((x: { id: string }) => x.id)).toContain(a.accountId);
        } else expect(list.status, who).toBe(403);
        for (const [method, url, body] of [
          ['GET', `/v1/accounts/${a.accountId}`],
          ['PATCH', `/v1/accounts/${a.accountId}`, { name: 'Hacked' }],
          ['POST', '/v1/accounts', { name: 'Sneaky' }],
        ] as const) {
          const res = await call(method, url, body);
          expect(res.status, `${who} ${method} ${url}`).toBe(403);
          expect(res.body.error.code).toBe('permission_denied');
        }
      }
      // Nothing was made by the refused calls.
      const names = (await admin('GET', '/v1/accounts')).body.data.map((x: { name: string }) => x.name);
      expect(names).not.toContain('Sneaky');
      expect((await client(t.app)('POST', '/v1/accounts', { name: 'Anon' })).status).toBe(401);
    });
  });

  describe('API keys', () => {
    it('an Idempotency-Key on an answer with a secret: no second key, and the replay never holds the secret', async () => {
      const m = sessionClient(t, await userSession(t, 'merchant', a.accountId));
      const headers = { 'idempotency-key': `secret-${Date.now()}` };
      const before = (await m('GET', '/v1/api_keys')).body.data.length;
      const made = await m('POST', '/v1/api_keys', { mode: 'test' }, headers);
      expect(made.status).toBe(201);
      const again = await m('POST', '/v1/api_keys', { mode: 'test' }, headers);
      expect(again.status).toBe(409);
      expect(again.body.error).toMatchObject({ code: 'idempotent_secret_withheld', param: 'Idempotency-Key' });
      expect(JSON.stringify(again.body)).not.toContain(made.body.secret);
      expect((await m('GET', '/v1/api_keys')).body.data.length).toBe(before + 1);
      // Nothing at rest holds it either.
      const stored = await t.ctx.db.selectFrom('idempotency_keys').select('response_body').execute();
      expect(stored.some((r) => (r.response_body ?? '').includes(made.body.secret))).toBe(false);
      // An invitation's link is a secret too.
      const inv = { 'idempotency-key': `inv-${Date.now()}` };
      const body = { email: `idem${Date.now()}@example.com`, role: 'dispatcher' };
      const invite = await admin('POST', '/v1/invitations', body, inv);
      expect(invite.status).toBe(201);
      const replay = await admin('POST', '/v1/invitations', body, inv);
      expect(replay.status).toBe(409);
      expect(replay.body.error.code).toBe('idempotent_secret_withheld');
      expect(JSON.stringify(replay.body)).not.toContain(invite.body.url);
    });

    it('a merchant user creates, lists, rolls (24 h overlap) and revokes its account\u2019s keys', async () => {
      const m = sessionClient(t, await userSession(t, 'merchant', a.accountId));
      const made = await m('POST', '/v1/api_keys', { mode: 'test' });
      expect(made.status).toBe(201);
      expect(made.body).toMatchObject({ object: 'api_key', account: a.accountId, role: 'merchant', mode: 'test' });
      expect(made.body.secret).toMatch(/^sk_test_/);
      const works = client(t.app, made.body.secret);
      expect((await works('GET', '/v1/orders')).status).toBe(200);
      const list = await m('GET', '/v1/api_keys');
      expect(list.body.data.map((k: { id: string }) => k.id)).toContain(made.body.id);
      expect(JSON.stringify(list.body)).not.toContain(made.body.secret);
      expect(list.body.data.every((k: { account: string }) => k.account === a.accountId)).toBe(true);

      const rolled = await m('POST', `/v1/api_keys/${made.body.id}/roll`);
      expect(rolled.status).toBe(201);
      expect(rolled.body.secret).toMatch(/^sk_test_/);
      expect(rolled.body.secret).not.toBe(made.body.secret);
      expect((await client(t.app, rolled.body.secret)('GET', '/v1/orders')).status).toBe(200);
      // The old key works for 24 hours more, then stops.
      expect((await works('GET', '/v1/orders')).status).toBe(200);
      moveClock(t, 24 * 3600_000 + 1000);
      try {
        expect((await works('GET', '/v1/orders')).status).toBe(401);
        expect((await client(t.app, rolled.body.secret)('GET', '/v1/orders')).status).toBe(200);
      } finally {
        moveClock(t, 0);
      }

      const revoked = await m('DELETE', `/v1/api_keys/${rolled.body.id}`);
      expect(revoked.status).toBe(200);
      expect(revoked.body.revoked_at).not.toBeNull();
      expect((await client(t.app, rolled.body.secret)('GET', '/v1/orders')).status).toBe(401);
    });

    it('another account\u2019s keys are 404 for a merchant user (naming it in ?account= or the body, 403); admins manage any account\u2019s and operator keys', async () => {
      const m = sessionClient(t, await userSession(t, 'merchant', a.accountId));
      const bKey = (await admin('POST', '/v1/api_keys', { mode: 'live', account: b.accountId })).body;
      expect(bKey.secret).toMatch(/^sk_live_/);
      expect((await m('POST', `/v1/api_keys/${bKey.id}/roll`)).status).toBe(404);
      expect((await m('DELETE', `/v1/api_keys/${bKey.id}`)).status).toBe(404);
      expect((await m('GET', `/v1/api_keys?account=${b.accountId}`)).status).toBe(403);
      // Asking for its own account explicitly is fine; creating for another is not possible.
      expect((await m('GET', `/v1/api_keys?account=${a.accountId}`)).status).toBe(200);
      const other = await m('POST', '/v1/api_keys', { mode: 'test', account: b.accountId });
      expect(other.status).toBe(403);
      expect(other.body.error).toMatchObject({ code: 'permission_denied', param: 'account' });
      // The same answer for an account that does not exist: nothing tells the two apart.
      const none = await m('POST', '/v1/api_keys', { mode: 'test', account: 'acct_nope' });
      expect(none.status).toBe(403);
      expect(none.body.error.message).toBe(other.body.error.message);
      expect((await client(t.app, bKey.secret)('GET', '/v1/orders')).status).toBe(200);

      const opKey = await admin('POST', '/v1/api_keys', { mode: 'live' });
      expect(opKey.body).toMatchObject({ role: 'operator', account: null, mode: 'live' });
      expect(opKey.body.secret).toMatch(/^ok_live_/);
      const ops = await admin('GET', '/v1/api_keys');
      expect(ops.body.data.map((k: { id: string }) => k.id)).toContain(opKey.body.id);
      expect(ops.body.data.every((k: { role: string }) => k.role === 'operator')).toBe(true);
      expect(
        (await admin('GET', `/v1/api_keys?account=${b.accountId}`)).body.data.map((k: { id: string }) => k.id),
      ).toContain(bKey.id);
      expect((await admin('DELETE', `/v1/api_keys/${opKey.body.id}`)).status).toBe(200);
      expect((await client(t.app, opKey.body.secret)('GET', '/v1/orders')).status).toBe(401);
    });

    it('keys cannot manage keys, nor can dispatchers (403); malformed bodies are 422', async () => {
      const d = sessionClient(t, await userSession(t, 'dispatcher'));
      for (const call of [client(t.app, a.test), client(t.app, a.live), client(t.app, await newOperator(t)), d]) {
        for (const [method, url, body] of [
          ['GET', '/v1/api_keys'],
          ['POST', '/v1/api_keys', { mode: 'test' }],
        ] as const) {
          const res = await call(method, url, body);
          expect(res.status, `${method} ${url}`).toBe(403);
          expect(res.body.error.code).toBe('permission_denied');
        }
      }
      const bad = await admin('POST', '/v1/api_keys', { mode: 'prod' });
      expect(bad.status).toBe(422);
      expect(bad.body.error.param).toBe('mode');
    });
  });
});
