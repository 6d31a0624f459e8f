import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../src/features/people/lockout.js';
import { PASSWORD_RESET_TTL_MS } from '../src/features/people/password-resets.js';
import { client, describeEach, type Merchant, newMerchant, newOperator, startApp, type TestApp } from './helpers.js';
import {
  cookieFrom,
  courierSession,
  moveClock,
  newUser,
  PASSWORD,
  type Session,
  sessionClient,
  signIn,
  userSession,
} from './people-helpers.js';

/** Issue #18, defect 6: changing one's password, and admins' password resets (docs/console-auth.md). */

let v4 = 0;
const freshIp = () => {
  v4 += 1;
  return { 'x-forwarded-for': `198.19.${Math.floor(v4 / 250)}.${v4 % 250}` };
};
const NEW = 'a brand new password';

describeEach('passwords: change and admin reset (issue #18, defect 6)', (engine) => {
  let t: TestApp;
  let a: Merchant;
  let admin: ReturnType<typeof sessionClient>;
  let adminId: string;

  beforeAll(async () => {
    t = await startApp(engine, { RUTA_PUBLIC_URL: 'https://ruta.example.com', RUTA_TRUST_PROXY: 'true' });
    a = await newMerchant(t, 'A');
    const s = await userSession(t, 'admin');
    admin = sessionClient(t, s);
    adminId = s.body.user.id;
  });
  afterAll(async () => t?.close());

  const signInFrom = (email: string, password: string, from = freshIp(), cookie?: string) =>
    client(t.app)('POST', '/v1/session', { email, password }, { ...from, ...(cookie ? { cookie } : {}) });
  const alive = async (s: Session) => (await sessionClient(t, s)('GET', '/v1/session')).status;
  const tokenOf = (url: string) => url.split('#password_reset=')[1] as string;

  describe('POST /v1/session/password', () => {
    it('changes the password: the other sessions end, this one goes on; only the new password signs in', async () => {
      const u = await newUser(t, 'dispatcher');
      const here = await signIn(t, u.email);
      const elsewhere = await signIn(t, u.email);
      const other = await userSession(t, 'dispatcher');
      const res = await sessionClient(t, here)('POST', '/v1/session/password', {
        current_password: PASSWORD,
        new_password: NEW,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toMatchObject({ object: 'password_change', user: { id: u.id }, sessions_ended: 1 });
      expect(JSON.stringify(res.body)).not.toMatch(/scrypt|brand new|correct horse/);
      expect(await alive(here)).toBe(200);
      expect(await alive(elsewhere)).toBe(401);
      // Another user's session is untouched.
      expect(await alive(other)).toBe(200);
      expect((await signInFrom(u.email, PASSWORD)).status).toBe(401);
      expect((await signInFrom(u.email, NEW)).status).toBe(200);
    });

    it('a wrong current password is 422 current_password (the session stays); 5 of them, then 429', async () => {
      const s = await userSession(t, 'admin');
      const call = sessionClient(t, s);
      for (let i = 0; i < LIMITS.change; i++) {
        const res = await call('POST', '/v1/session/password', {
          current_password: 'not it at all',
          new_password: NEW,
        });
        expect(res.status).toBe(422);
        expect(res.body.error).toMatchObject({ code: 'parameter_invalid', param: 'current_password' });
      }
      expect(await alive(s)).toBe(200);
      const held = await call('POST', '/v1/session/password', { current_password: PASSWORD, new_password: NEW });
      expect(held.status).toBe(429);
      expect(Number(held.headers['retry-after'])).toBeGreaterThan(14 * 60);
      // Nothing changed.
      expect((await signInFrom(s.body.user.email, PASSWORD)).status).toBe(200);
    });

    it('the new password follows the rules: at least 10 characters, not the current one (422 new_password)', async () => {
      const s = await userSession(t, 'merchant', a.accountId);
      const call = sessionClient(t, s);
      for (const body of [
        { current_password: PASSWORD, new_password: 'short' },
        { current_password: PASSWORD, new_password: PASSWORD },
      ]) {
        const res = await call('POST', '/v1/session/password', body);
        expect(res.status).toBe(422);
        expect(res.body.error.param).toBe('new_password');
      }
      const missing = await call('POST', '/v1/session/password', { new_password: NEW });
      expect(missing.status).toBe(422);
      expect(missing.body.error.param).toBe('current_password');
      // A merchant user changes its own password like anyone else.
      const ok = await call('POST', '/v1/session/password', { current_password: PASSWORD, new_password: NEW });
      expect(ok.status).toBe(200);
      expect(ok.body.user).toMatchObject({ role: 'merchant', account: a.accountId });
    });

    it('CSRF: without the token, or from another Origin, 403 csrf_failed and the password stays', async () => {
      const s = await userSession(t, 'admin');
      const body = { current_password: PASSWORD, new_password: NEW };
      const none = await client(t.app)('POST', '/v1/session/password', body, { cookie: s.cookie });
      expect(none.status).toBe(403);
      expect(none.body.error.code).toBe('csrf_failed');
      const evil = await sessionClient(t, s)('POST', '/v1/session/password', body, { origin: 'https://evil.example' });
      expect(evil.status).toBe(403);
      expect(evil.body.error.code).toBe('csrf_failed');
      expect((await signInFrom(s.body.user.email, PASSWORD)).status).toBe(200);
    });

    it('API keys and courier sessions get 403; no credentials 401', async () => {
      const body = { current_password: PASSWORD, new_password: NEW };
      const op = await newOperator(t);
      for (const key of [op, a.test]) {
        const res = await client(t.app, key)('POST', '/v1/session/password', body);
        expect(res.status).toBe(403);
        expect(res.body.error.code).toBe('permission_denied');
      }
      const courier = (await client(t.app, op)('POST', '/v1/couriers', { name: 'Pat' })).body;
      const phone = await courierSession(t, op, courier.id);
      expect((await sessionClient(t, phone)('POST', '/v1/session/password', body)).status).toBe(403);
      const anon = await client(t.app)('POST', '/v1/session/password', body);
      expect(anon.status).toBe(401);
    });
  });

  describe('POST /v1/users/{id}/password_reset', () => {
    it('a single-use link: at once the old password stops working and every session ends; the link signs in', async () => {
      const u = await newUser(t, 'dispatcher');
      const s1 = await signIn(t, u.email);
      const s2 = await signIn(t, u.email);
      const res = await admin('POST', `/v1/users/${u.id}/password_reset`);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body).toMatchObject({ object: 'password_reset', user: u.id, email: u.email, sessions_ended: 2 });
      expect(res.body.id).toMatch(/^pwr_/);
      expect(res.body.url).toMatch(/^https:\/\/ruta\.example\.com\/console\/#password_reset=[\w-]{43}$/);
      expect(Date.parse(res.body.expires_at) - Date.now()).toBeGreaterThan(PASSWORD_RESET_TTL_MS - 60_000);
      expect(Date.parse(res.body.expires_at) - Date.now()).toBeLessThanOrEqual(PASSWORD_RESET_TTL_MS);
      const token = tokenOf(res.body.url);
      const stored = await t.ctx.db.selectFrom('password_resets').selectAll().where('user_id', '=', u.id).execute();
      expect(stored).toHaveLength(1);
      expect(JSON.stringify(stored)).not.toContain(token);
      expect(await alive(s1)).toBe(401);
      expect(await alive(s2)).toBe(401);
      expect((await signInFrom(u.email, PASSWORD)).status).toBe(401);

      const shown = await client(t.app)('GET', `/v1/password_resets/${token}`);
      expect(shown.status).toBe(200);
      expect(shown.body).toEqual({ object: 'password_reset', email: u.email, expires_at: res.body.expires_at });
      const done = await client(t.app)('POST', `/v1/password_resets/${token}/complete`, { password: NEW });
      expect(done.status, JSON.stringify(done.body)).toBe(200);
      expect(done.body).toMatchObject({ object: 'session', user: { id: u.id } });
      const cookie = cookieFrom(done.raw, 'ruta_session')?.split(';')[0] as string;
      expect(cookie).toMatch(/^ruta_session=/);
      expect(cookieFrom(done.raw, 'ruta_device')).toMatch(/^ruta_device=/);
      expect(await alive({ cookie, csrf: done.body.csrf_token, body: done.body })).toBe(200);
      // Single use.
      expect((await client(t.app)('POST', `/v1/password_resets/${token}/complete`, { password: NEW })).status).toBe(
        404,
      );
      expect((await client(t.app)('GET', `/v1/password_resets/${token}`)).status).toBe(404);
      expect((await signInFrom(u.email, NEW)).status).toBe(200);
    });

    it('a new link replaces the last; an expired one is 404; the new password follows the rules', async () => {
      const u = await newUser(t, 'dispatcher');
      const first = tokenOf((await admin('POST', `/v1/users/${u.id}/password_reset`)).body.url);
      const second = tokenOf((await admin('POST', `/v1/users/${u.id}/password_reset`, {})).body.url);
      const gone = await client(t.app)('GET', `/v1/password_resets/${first}`);
      expect(gone.status).toBe(404);
      expect(gone.body.error).toMatchObject({ code: 'resource_missing', param: 'token' });
      const short = await client(t.app)('POST', `/v1/password_resets/${second}/complete`, { password: 'short' });
      expect(short.status).toBe(422);
      expect(short.body.error.param).toBe('password');
      try {
        moveClock(t, PASSWORD_RESET_TTL_MS + 1000);
        expect((await client(t.app)('GET', `/v1/password_resets/${second}`)).status).toBe(404);
        expect((await client(t.app)('POST', `/v1/password_resets/${second}/complete`, { password: NEW })).status).toBe(
          404,
        );
      } finally {
        moveClock(t, 0);
      }
    });

    it('a reset forgets the user’s known browsers', async () => {
      const u = await newUser(t, 'admin');
      const first = await signInFrom(u.email, PASSWORD);
      const device = cookieFrom(first.raw, 'ruta_device')?.split(';')[0] as string;
      const token = tokenOf((await admin('POST', `/v1/users/${u.id}/password_reset`)).body.url);
      expect((await client(t.app)('POST', `/v1/password_resets/${token}/complete`, { password: NEW })).status).toBe(
        200,
      );
      const office = freshIp();
      for (let i = 0; i < LIMITS.pair; i++)
        expect((await signInFrom(u.email, 'wrong password!', office)).status).toBe(401);
      // The old browser is a stranger now: held at the address like anyone.
      expect((await signInFrom(u.email, NEW, office, device)).status).toBe(429);
    });

    it('completing the reset where the user was locked out lifts that lock, and signs them in', async () => {
      const u = await newUser(t, 'dispatcher');
      const from = freshIp();
      for (let i = 0; i < LIMITS.pair; i++)
        expect((await signInFrom(u.email, 'wrong password!', from)).status).toBe(401);
      expect((await signInFrom(u.email, PASSWORD, from)).status).toBe(429);
      const token = tokenOf((await admin('POST', `/v1/users/${u.id}/password_reset`)).body.url);
      const done = await client(t.app)('POST', `/v1/password_resets/${token}/complete`, { password: NEW }, from);
      expect(done.status).toBe(200);
      expect((await signInFrom(u.email, NEW, from)).status).toBe(200);
    });

    it('a user disabled after the link was made cannot use it', async () => {
      const u = await newUser(t, 'dispatcher');
      const token = tokenOf((await admin('POST', `/v1/users/${u.id}/password_reset`)).body.url);
      expect((await admin('PATCH', `/v1/users/${u.id}`, { status: 'disabled' })).status).toBe(200);
      expect((await client(t.app)('GET', `/v1/password_resets/${token}`)).status).toBe(404);
      expect((await client(t.app)('POST', `/v1/password_resets/${token}/complete`, { password: NEW })).status).toBe(
        404,
      );
      expect((await signInFrom(u.email, NEW)).status).toBe(401);
    });

    it('admins only (403), a real user (404), not oneself, not a disabled user (422 id), CSRF checked', async () => {
      const u = await newUser(t, 'dispatcher');
      const others = [
        sessionClient(t, await userSession(t, 'dispatcher')),
        sessionClient(t, await userSession(t, 'merchant', a.accountId)),
        client(t.app, await newOperator(t)),
        client(t.app, a.test),
      ];
      for (const call of others) {
        const res = await call('POST', `/v1/users/${u.id}/password_reset`);
        expect(res.status).toBe(403);
        expect(res.body.error.code).toBe('permission_denied');
      }
      expect((await client(t.app)('POST', `/v1/users/${u.id}/password_reset`)).status).toBe(401);
      const missing = await admin('POST', '/v1/users/usr_00000000000000000000000000/password_reset');
      expect(missing.status).toBe(404);
      expect(missing.body.error.code).toBe('resource_missing');
      const self = await admin('POST', `/v1/users/${adminId}/password_reset`);
      expect(self.status).toBe(422);
      expect(self.body.error.param).toBe('id');
      const disabled = await newUser(t, 'dispatcher');
      await admin('PATCH', `/v1/users/${disabled.id}`, { status: 'disabled' });
      const refused = await admin('POST', `/v1/users/${disabled.id}/password_reset`);
      expect(refused.status).toBe(422);
      expect(refused.body.error.param).toBe('id');
      const extra = await admin('POST', `/v1/users/${u.id}/password_reset`, { password: 'x'.repeat(12) });
      expect(extra.status).toBe(422);
      expect(extra.body.error.param).toBe('password');
      // None of the refusals touched the user: the old password still works.
      expect((await signInFrom(u.email, PASSWORD)).status).toBe(200);
      const s = await userSession(t, 'admin');
      const csrf = await client(t.app)('POST', `/v1/users/${u.id}/password_reset`, undefined, { cookie: s.cookie });
      expect(csrf.status).toBe(403);
      expect(csrf.body.error.code).toBe('csrf_failed');
    });

    it('a replay with the same Idempotency-Key never shows the link again', async () => {
      const u = await newUser(t, 'dispatcher');
      const key = { 'idempotency-key': `reset-${u.id}` };
      const first = await admin('POST', `/v1/users/${u.id}/password_reset`, {}, key);
      expect(first.status).toBe(201);
      const again = await admin('POST', `/v1/users/${u.id}/password_reset`, {}, key);
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe('idempotent_secret_withheld');
      expect(JSON.stringify(again.body)).not.toContain(tokenOf(first.body.url));
    });
  });
});
