import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { DUMMY_HASH, hashPassword, verifyPassword } from '../src/features/people/passwords.js';
import { ABSOLUTE_TIMEOUT_MS, IDLE_TIMEOUT_MS } from '../src/features/people/sessions.js';
import { CODE_ALPHABET, newCode, normalizeCode } from '../src/features/people/tokens.js';
import { csrfTokenFor } from '../src/shared/auth.js';
import { loggerOptions } from '../src/shared/context.js';
import { attachApp, client, describeEach, startApp, useApp, useMerchant, validOrder } from './helpers.js';
import { cookieFrom, moveClock, newUser, PASSWORD, sessionClient, signIn, userSession } from './people-helpers.js';

describe('passwords and tokens (units)', () => {
  it('the logger redacts cookies, passwords and hashes', () => {
    const lines: string[] = [];
    const log = pino(loggerOptions('info'), { write: (l: string) => lines.push(l) });
    log.info(
      {
        req: { headers: { cookie: 'ruta_session=s3cr3t' } },
        password: 'hunter2hunter2',
        user: { password_hash: 'scrypt$x' },
      },
      'x',
    );
    expect(lines.join('')).not.toMatch(/s3cr3t|hunter2|scrypt/);
  });

  it('hashes with scrypt N=2^15, r=8, p=1 and a fresh salt; verifies only the right password', async () => {
    const a = await hashPassword('correct horse battery');
    const b = await hashPassword('correct horse battery');
    expect(a).toMatch(/^scrypt\$32768\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain('correct');
    expect(await verifyPassword('correct horse battery', a)).toBe(true);
    expect(await verifyPassword('correct horse batterx', a)).toBe(false);
    expect(await verifyPassword('', a)).toBe(false);
    expect(await verifyPassword('x', 'not-a-hash')).toBe(false);
    expect(await verifyPassword('x', 'scrypt$32768$8$1$$')).toBe(false);
  });

  it('the dummy hash is a real scrypt hash (so an unknown email costs the same work)', async () => {
    expect(DUMMY_HASH).toMatch(/^scrypt\$32768\$8\$1\$/);
    expect(await verifyPassword('anything at all', DUMMY_HASH)).toBe(false);
  });

  it('CSRF tokens are derived per session token, and differ between sessions', () => {
    expect(csrfTokenFor('a')).toBe(csrfTokenFor('a'));
    expect(csrfTokenFor('a')).not.toBe(csrfTokenFor('b'));
    expect(csrfTokenFor('a')).toMatch(/^[\w-]{43}$/);
  });

  it('sign-in codes: 8 characters of an unambiguous alphabet, typed forgivingly', () => {
    const codes = new Set(Array.from({ length: 200 }, newCode));
    expect(codes.size).toBe(200);
    for (const c of codes) expect(c).toMatch(/^[23456789ABCDEFGHJKMNPQRSTVWXYZ]{8}$/);
    expect(CODE_ALPHABET).not.toMatch(/[01ILOU]/);
    expect(normalizeCode('k7qx-2m9p')).toBe('K7QX2M9P');
    expect(normalizeCode('K7QX 2M9P')).toBe('K7QX2M9P');
    expect(normalizeCode('K7QX2M9')).toBeUndefined();
    expect(normalizeCode('K7QX2M9O')).toBeUndefined();
  });
});

let ipSeq = 0;
/** A client address nobody else uses. */
const freshIp = () => {
  ipSeq += 1;
  return { 'x-forwarded-for': `198.51.${Math.floor(ipSeq / 250)}.${ipSeq % 250}` };
};

describeEach('sessions (DESIGN §8)', (engine) => {
  // Behind a proxy, so each test's failed sign-ins come from an address of their own and the
  // per-address lock-out of one test never touches another.
  const t = useApp(engine, { RUTA_PUBLIC_URL: 'https://ruta.example.com', RUTA_TRUST_PROXY: 'true' });
  // And its own two accounts, so what one test creates is never in another's lists.
  const a = useMerchant(t, 'A');
  const b = useMerchant(t, 'B');

  it('signs in: cookie flags, the session body, and GET /v1/session says who', async () => {
    const u = await newUser(t, 'dispatcher');
    const res = await client(t.app)('POST', '/v1/session', { email: u.email.toUpperCase(), password: PASSWORD });
    expect(res.status).toBe(200);
    const line = cookieFrom(res.raw, 'ruta_session') ?? '';
    expect(line).toMatch(/^ruta_session=[\w-]{43};/);
    expect(line).toContain('HttpOnly');
    expect(line).toContain('SameSite=Lax');
    expect(line).toContain('Path=/');
    expect(line).toContain('Secure');
    expect(res.body).toMatchObject({ object: 'session', user: { id: u.id, email: u.email, role: 'dispatcher' } });
    expect(res.body.user).not.toHaveProperty('password_hash');
    expect(JSON.stringify(res.body)).not.toContain('scrypt');
    expect(Date.parse(res.body.expires_at) - Date.now()).toBeGreaterThan(ABSOLUTE_TIMEOUT_MS - 60_000);
    const token = line.split(';')[0]?.split('=')[1] ?? '';
    expect(res.body.csrf_token).toBe(csrfTokenFor(token));
    // Only the hash is stored.
    const rows = await t.ctx.db.selectFrom('sessions').select('token_hash').where('user_id', '=', u.id).execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]?.token_hash).not.toContain(token);
    const s = { cookie: line.split(';')[0] as string, csrf: res.body.csrf_token, body: res.body };
    const me = await sessionClient(t, s)('GET', '/v1/session');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ user: { id: u.id }, csrf_token: res.body.csrf_token });
  });

  it('no Secure flag when RUTA_PUBLIC_URL is http', async () => {
    const plain = await startApp(engine, { RUTA_PUBLIC_URL: 'http://localhost:3000' });
    try {
      const u = await newUser(plain, 'admin');
      const res = await client(plain.app)('POST', '/v1/session', { email: u.email, password: PASSWORD });
      expect(res.status).toBe(200);
      expect(cookieFrom(res.raw, 'ruta_session')).not.toContain('Secure');
      // On the machine's own loopback, any of its names with the same scheme and port is the
      // console's own (the start-up log names 127.0.0.1); another port, or another host, is not.
      const signIn = (origin: string) =>
        client(plain.app)('POST', '/v1/session', { email: u.email, password: PASSWORD }, { origin });
      for (const origin of ['http://127.0.0.1:3000', 'http://[::1]:3000', 'http://localhost:3000']) {
        expect((await signIn(origin)).status, origin).toBe(200);
      }
      for (const origin of ['http://127.0.0.1:3001', 'https://127.0.0.1:3000', 'http://localhost.evil.example:3000']) {
        const res = await signIn(origin);
        expect(res.status, origin).toBe(403);
        expect(res.body.error.code).toBe('csrf_failed');
      }
    } finally {
      await plain.close();
    }
  });

  it('a wrong password and an unknown email get the same 401 invalid_credentials', async () => {
    const u = await newUser(t, 'admin');
    const wrong = await client(t.app)(
      'POST',
      '/v1/session',
      { email: u.email, password: 'wrong password!' },
      freshIp(),
    );
    const unknown = await client(t.app)(
      'POST',
      '/v1/session',
      { email: 'nobody@example.com', password: PASSWORD },
      freshIp(),
    );
    for (const res of [wrong, unknown]) {
      expect(res.status).toBe(401);
      expect(res.body.error).toMatchObject({ type: 'authentication_error', code: 'invalid_credentials' });
      expect(cookieFrom(res.raw, 'ruta_session')).toBeUndefined();
    }
    expect(wrong.body.error.message).toBe(unknown.body.error.message);
  });

  it('malformed sign-in bodies are 422 with the param', async () => {
    const res = await client(t.app)('POST', '/v1/session', { email: 'x@example.com' });
    expect(res.status).toBe(422);
    expect(res.body.error.param).toBe('password');
    const extra = await client(t.app)('POST', '/v1/session', { email: 'x@example.com', password: 'p', admin: true });
    expect(extra.status).toBe(422);
    expect(extra.body.error.param).toBe('admin');
  });

  it('locks an email out at one address after 5 failures there: 429 with Retry-After, even with the right password', async () => {
    const u = await newUser(t, 'admin');
    const call = client(t.app);
    // One address; other addresses are not held (test/sign-in-lockout.test.ts has the whole rule).
    const from = freshIp();
    for (let i = 0; i < 5; i++) {
      const res = await call('POST', '/v1/session', { email: u.email, password: 'wrong password!' }, from);
      expect(res.status).toBe(401);
    }
    const locked = await call('POST', '/v1/session', { email: u.email, password: PASSWORD }, from);
    expect(locked.status).toBe(429);
    expect(locked.body.error.code).toBe('rate_limited');
    expect(cookieFrom(locked.raw, 'ruta_session')).toBeUndefined();
    const retry = Number(locked.headers['retry-after']);
    expect(retry).toBeGreaterThan(14 * 60);
    expect(retry).toBeLessThanOrEqual(15 * 60);
    // A second instance on the same database sees the same lock (the failures are rows).
    const second = await attachApp(t, { RUTA_TRUST_PROXY: 'true' });
    try {
      const other = await client(second.app)(
        'POST',
        '/v1/session',
        { email: u.email.toUpperCase(), password: PASSWORD },
        from,
      );
      expect(other.status).toBe(429);
    } finally {
      await second.close();
    }
    // 15 minutes later the lock has lifted and the right password works.
    moveClock(t, 15 * 60 * 1000 + 1000);
    try {
      expect((await call('POST', '/v1/session', { email: u.email, password: PASSWORD }, from)).status).toBe(200);
    } finally {
      moveClock(t, 0);
    }
  });

  it('locks out one address after 20 failures, whatever the emails', async () => {
    const ip = await startApp(engine, { RUTA_TRUST_PROXY: 'true' });
    try {
      const u = await newUser(ip, 'admin');
      const call = client(ip.app);
      const from = { 'x-forwarded-for': '203.0.113.9' };
      for (let i = 0; i < 20; i++) {
        expect(
          (await call('POST', '/v1/session', { email: `n${i}@example.com`, password: 'x'.repeat(10) }, from)).status,
        ).toBe(401);
      }
      const locked = await call('POST', '/v1/session', { email: u.email, password: PASSWORD }, from);
      expect(locked.status).toBe(429);
      expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
      // Another address is not locked.
      expect(
        (
          await call(
            'POST',
            '/v1/session',
            { email: u.email, password: PASSWORD },
            { 'x-forwarded-for': '203.0.113.10' },
          )
        ).status,
      ).toBe(200);
    } finally {
      await ip.close();
    }
    // Its own app (migrations) and 22 password checks, each a deliberate scrypt even for an unknown
    // email: 30 s ran out once on a machine busy with browser tests.
  }, 90_000);

  it('a disabled user cannot sign in, and disabling ends their sessions at once', async () => {
    const u = await newUser(t, 'dispatcher');
    const s = await signIn(t, u.email);
    const call = sessionClient(t, s);
    expect((await call('GET', '/v1/orders')).status).toBe(200);
    const adm = sessionClient(t, await userSession(t, 'admin'));
    expect((await adm('PATCH', `/v1/users/${u.id}`, { status: 'disabled' })).body.status).toBe('disabled');
    const after = await call('GET', '/v1/orders');
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe('session_invalid');
    const again = await client(t.app)('POST', '/v1/session', { email: u.email, password: PASSWORD }, freshIp());
    expect(again.status).toBe(401);
    expect(again.body.error.code).toBe('invalid_credentials');
  });

  it('idle timeout: 12 h without a request ends the session; activity keeps it alive', async () => {
    const u = await newUser(t, 'dispatcher');
    const s = await signIn(t, u.email);
    const call = sessionClient(t, s);
    try {
      moveClock(t, IDLE_TIMEOUT_MS - 60_000);
      expect((await call('GET', '/v1/session')).status).toBe(200);
      // Active 11 h 59 min in; another 11 h later it still lives (idle counts from the last request).
      moveClock(t, 2 * IDLE_TIMEOUT_MS - 120_000);
      expect((await call('GET', '/v1/session')).status).toBe(200);
      moveClock(t, 3 * IDLE_TIMEOUT_MS);
      const res = await call('GET', '/v1/session');
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('session_invalid');
    } finally {
      moveClock(t, 0);
    }
    // Gone for good, even with the clock back.
    expect((await call('GET', '/v1/session')).status).toBe(401);
  });

  it('absolute timeout: 7 days after sign-in, even when active', async () => {
    const u = await newUser(t, 'dispatcher');
    const s = await signIn(t, u.email);
    const call = sessionClient(t, s);
    try {
      for (let h = 11; h < 7 * 24; h += 11) {
        moveClock(t, h * 3600_000);
        expect((await call('GET', '/v1/session')).status, `${h} h`).toBe(200);
      }
      moveClock(t, ABSOLUTE_TIMEOUT_MS);
      expect((await call('GET', '/v1/session')).status).toBe(401);
    } finally {
      moveClock(t, 0);
    }
  });

  it('DELETE /v1/session signs out: the cookie is cleared and no longer works', async () => {
    const s = await userSession(t, 'admin');
    const call = sessionClient(t, s);
    const res = await call('DELETE', '/v1/session');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ object: 'session', deleted: true });
    expect(cookieFrom(res.raw, 'ruta_session')).toMatch(/^ruta_session=;/);
    expect((await call('GET', '/v1/session')).status).toBe(401);
  });

  it('a forged or unknown cookie is 401 session_invalid; no credentials at all is 401', async () => {
    const forged = await client(t.app)('GET', '/v1/orders', undefined, { cookie: 'ruta_session=forged' });
    expect(forged.status).toBe(401);
    expect(forged.body.error.code).toBe('session_invalid');
    expect((await client(t.app)('GET', '/v1/session')).status).toBe(401);
  });

  describe('CSRF', () => {
    it('a state change with the cookie needs X-CSRF-Token: without it, or wrong, 403 csrf_failed', async () => {
      const s = await userSession(t, 'merchant', a.accountId);
      for (const headers of [{ 'x-csrf-token': '' }, { 'x-csrf-token': `${s.csrf.slice(0, -1)}x` }]) {
        const res = await sessionClient(t, s)('POST', '/v1/orders', validOrder(), headers);
        expect(res.status).toBe(403);
        expect(res.body.error).toMatchObject({ type: 'permission_error', code: 'csrf_failed' });
      }
      const none = await client(t.app)('POST', '/v1/orders', validOrder(), { cookie: s.cookie });
      expect(none.status).toBe(403);
      expect(none.body.error.code).toBe('csrf_failed');
      // Nothing was created.
      expect((await client(t.app, a.test)('GET', '/v1/orders')).body.data).toHaveLength(0);
      // With the token it works; reads never need it.
      expect((await sessionClient(t, s)('POST', '/v1/orders', validOrder())).status).toBe(201);
      expect((await client(t.app)('GET', '/v1/orders', undefined, { cookie: s.cookie })).status).toBe(200);
    });

    it('another session\u2019s token does not do', async () => {
      const s1 = await userSession(t, 'admin');
      const s2 = await userSession(t, 'admin');
      const res = await sessionClient(t, { ...s1, csrf: s2.csrf })('DELETE', '/v1/session');
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('csrf_failed');
    });

    it('an Origin other than RUTA_PUBLIC_URL is refused; the right one passes', async () => {
      const s = await userSession(t, 'merchant', a.accountId);
      const evil = await sessionClient(t, s)('POST', '/v1/orders', validOrder(), { origin: 'https://evil.example' });
      expect(evil.status).toBe(403);
      expect(evil.body.error.code).toBe('csrf_failed');
      const good = await sessionClient(t, s)('POST', '/v1/orders', validOrder(), {
        origin: 'https://ruta.example.com',
      });
      expect(good.status).toBe(201);
    });

    it('POST /v1/session needs no token but checks Origin', async () => {
      const u = await newUser(t, 'admin');
      const evil = await client(t.app)(
        'POST',
        '/v1/session',
        { email: u.email, password: PASSWORD },
        {
          origin: 'https://evil.example',
        },
      );
      expect(evil.status).toBe(403);
      expect(evil.body.error.code).toBe('csrf_failed');
      const ok = await client(t.app)(
        'POST',
        '/v1/session',
        { email: u.email, password: PASSWORD },
        {
          origin: 'https://ruta.example.com',
        },
      );
      expect(ok.status).toBe(200);
    });

    it('bearer keys need neither token nor Origin, and win over a cookie', async () => {
      const s = await userSession(t, 'admin');
      const res = await client(t.app, a.test)('POST', '/v1/orders', validOrder(), {
        origin: 'https://evil.example',
        cookie: s.cookie,
      });
      expect(res.status).toBe(201);
    });
  });

  describe('merchant users and Ruta-Mode', () => {
    it('a merchant user sees its own account only: another account\u2019s order is 404', async () => {
      const s = sessionClient(t, await userSession(t, 'merchant', a.accountId));
      const mine = (await client(t.app, a.test)('POST', '/v1/orders', validOrder())).body;
      const theirs = (await client(t.app, b.test)('POST', '/v1/orders', validOrder())).body;
      expect((await s('GET', `/v1/orders/${mine.id}`)).status).toBe(200);
      const other = await s('GET', `/v1/orders/${theirs.id}`);
      expect(other.status).toBe(404);
      expect(other.body.error.code).toBe('resource_missing');
      const list = (await s('GET', '/v1/orders?limit=100')).body.data.map((o: { id: string }) => o.id);
      expect(list).toContain(mine.id);
      expect(list).not.toContain(theirs.id);
    });

    it('Ruta-Mode picks the environment: test by default, live on request, never mixed', async () => {
      const s = await userSession(t, 'merchant', a.accountId);
      const testOrder = (await client(t.app, a.test)('POST', '/v1/orders', validOrder())).body;
      const liveOrder = (await client(t.app, a.live)('POST', '/v1/orders', validOrder())).body;
      const test = sessionClient(t, s);
      const live = sessionClient(t, s, 'live');
      expect((await test('GET', `/v1/orders/${testOrder.id}`)).status).toBe(200);
      expect((await test('GET', `/v1/orders/${liveOrder.id}`)).status).toBe(404);
      expect((await live('GET', `/v1/orders/${liveOrder.id}`)).status).toBe(200);
      expect((await live('GET', `/v1/orders/${testOrder.id}`)).status).toBe(404);
      const created = await live('POST', '/v1/orders', validOrder());
      expect(created.body.livemode).toBe(true);
      // Live merchants do not drive deliveries, exactly like sk_live keys.
      const move = await live('POST', `/v1/orders/${liveOrder.id}/validate`);
      expect(move.status).toBe(403);
      expect((await test('POST', `/v1/orders/${testOrder.id}/validate`)).status).toBe(200);
      const bad = await sessionClient(t, s)('GET', '/v1/orders', undefined, { 'ruta-mode': 'prod' });
      expect(bad.status).toBe(422);
      expect(bad.body.error.param).toBe('Ruta-Mode');
    });

    it('dispatchers act as the carrier in both environments; merchant-only operations are 403', async () => {
      const s = await userSession(t, 'dispatcher');
      const testOrder = (await client(t.app, b.test)('POST', '/v1/orders', validOrder())).body;
      const liveOrder = (await client(t.app, b.live)('POST', '/v1/orders', validOrder())).body;
      expect((await sessionClient(t, s)('GET', `/v1/orders/${testOrder.id}`)).status).toBe(200);
      expect((await sessionClient(t, s)('GET', `/v1/orders/${liveOrder.id}`)).status).toBe(404);
      expect((await sessionClient(t, s, 'live')('POST', `/v1/orders/${liveOrder.id}/validate`)).status).toBe(200);
      const create = await sessionClient(t, s)('POST', '/v1/orders', validOrder());
      expect(create.status).toBe(403);
      expect(create.body.error.code).toBe('permission_denied');
      expect((await sessionClient(t, s)('POST', '/v1/couriers', { name: 'Dora' })).status).toBe(201);
    });
  });
});
