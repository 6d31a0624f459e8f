import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS, LOCKOUT_WINDOW_MS } from '../src/features/people/lockout.js';
import { attachApp, client, describeEach, newOperator, type Res, startApp, type TestApp } from './helpers.js';
import { cookieFrom, moveClock, newUser, PASSWORD } from './people-helpers.js';

/**
 * Issue #18, defects 3–5: the sign-in lock-outs (docs/console-auth.md, "Lock-out"). Every test has
 * its own users and its own addresses (a /64 or an IPv4 /24 of its own), so no count is shared.
 */

let net = 0;
/** A fresh IPv6 /64; `at(n)` is its n-th address (all of them one client). */
const fresh64 = () => {
  net += 1;
  const prefix = `2001:db8:${(net >> 8).toString(16)}:${(net & 255).toString(16)}`;
  return { at: (n: number) => ({ 'x-forwarded-for': `${prefix}:${n.toString(16)}:0:0:1` }) };
};
let v4 = 0;
const freshV4 = () => {
  v4 += 1;
  return { 'x-forwarded-for': `198.18.${Math.floor(v4 / 250)}.${v4 % 250}` };
};

const WRONG = 'wrong password!';
const statuses = (all: Res[]) => all.map((r) => r.status);
const count = (all: Res[], status: number) => all.filter((r) => r.status === status).length;

describeEach('sign-in lock-outs (issue #18)', (engine) => {
  let t: TestApp;

  beforeAll(async () => {
    // The per-address request limit is off, so every 429 here is the lock-out's.
    t = await startApp(engine, {
      RUTA_PUBLIC_URL: 'https://ruta.example.com',
      RUTA_TRUST_PROXY: 'true',
      RUTA_PUBLIC_RATE_LIMIT_PER_MIN: '0',
    });
  });
  afterAll(async () => t?.close());

  const signIn = (email: string, password: string, from: Record<string, string>, device?: string, app = t) =>
    client(app.app)('POST', '/v1/session', { email, password }, { ...from, ...(device ? { cookie: device } : {}) });
  /** Signs in from a browser and returns its `ruta_device` cookie (name=value). */
  async function knownBrowser(email: string): Promise<string> {
    const res = await signIn(email, PASSWORD, freshV4());
    expect(res.status).toBe(200);
    const line = cookieFrom(res.raw, 'ruta_device') ?? '';
    expect(line).toMatch(/^ruta_device=[\w-]{43};/);
    return line.split(';')[0] as string;
  }

  describe('defect 3: the attempt is counted before the password is checked', () => {
    it('50 wrong passwords sent at once: at most 5 are checked (401), the rest get 429', async () => {
      const u = await newUser(t, 'admin');
      const from = freshV4();
      const all = await Promise.all(Array.from({ length: 50 }, () => signIn(u.email, WRONG, from)));
      const checked = count(all, 401);
      expect(checked, statuses(all).join(',')).toBeLessThanOrEqual(LIMITS.pair);
      expect(count(all, 429)).toBe(50 - checked);
      for (const r of all.filter((x) => x.status === 429)) {
        expect(r.body.error.code).toBe('rate_limited');
        expect(Number(r.headers['retry-after'])).toBeGreaterThan(0);
      }
      // The lock remembers exactly the guesses that were checked: the rest of the 5 are left, then 429.
      for (let i = checked; i < LIMITS.pair; i++) expect((await signIn(u.email, WRONG, from)).status).toBe(401);
      expect((await signIn(u.email, PASSWORD, from)).status).toBe(429);
    });

    it('two instances on one database share the count: 25 guesses at each, at once, at most 5 checked', async () => {
      const second = await attachApp(t, { RUTA_TRUST_PROXY: 'true', RUTA_PUBLIC_RATE_LIMIT_PER_MIN: '0' });
      try {
        const u = await newUser(t, 'dispatcher');
        const from = freshV4();
        const all = await Promise.all(
          Array.from({ length: 50 }, (_, i) => signIn(u.email, WRONG, from, undefined, i % 2 ? second : t)),
        );
        expect(count(all, 401), statuses(all).join(',')).toBeLessThanOrEqual(LIMITS.pair);
        expect(count(all, 401) + count(all, 429)).toBe(50);
      } finally {
        await second.close();
      }
    });

    it('courier codes: 30 wrong codes sent at once from one address: at most 5 are looked up', async () => {
      const op = await newOperator(t);
      const courier = (await client(t.app, op)('POST', '/v1/couriers', { name: 'Race' })).body;
      const good = (await client(t.app, op)('POST', `/v1/couriers/${courier.id}/sign_in_codes`)).body.code;
      const from = freshV4();
      const all = await Promise.all(
        Array.from({ length: 30 }, () => client(t.app)('POST', '/v1/courier_session', { code: 'ZZZZZZZZ' }, from)),
      );
      expect(count(all, 401), statuses(all).join(',')).toBeLessThanOrEqual(LIMITS.code);
      expect(count(all, 401) + count(all, 429)).toBe(30);
      // Whatever got through, the address is now held: the good code waits too.
      const before = count(all, 401);
      for (let i = before; i < LIMITS.code; i++) {
        expect((await client(t.app)('POST', '/v1/courier_session', { code: 'ZZZZZZZZ' }, from)).status).toBe(401);
      }
      expect((await client(t.app)('POST', '/v1/courier_session', { code: good }, from)).status).toBe(429);
    });
  });

  describe('defect 4: an IPv6 client is its /64', () => {
    it('20 failures from 20 addresses of one /64 (20 emails) lock that /64, not the next one', async () => {
      const net64 = fresh64();
      for (let i = 0; i < LIMITS.address; i++) {
        const res = await signIn(`nobody${i}-${net}@example.com`, WRONG, net64.at(i + 1));
        expect(res.status, `attempt ${i + 1}`).toBe(401);
      }
      const u = await newUser(t, 'dispatcher');
      const locked = await signIn(u.email, PASSWORD, net64.at(0xffff));
      expect(locked.status).toBe(429);
      expect(locked.body.error.code).toBe('rate_limited');
      expect((await signIn(u.email, PASSWORD, fresh64().at(1))).status).toBe(200);
    });

    it('5 failures for one email from 5 addresses of one /64 lock that email there only', async () => {
      const u = await newUser(t, 'admin');
      const net64 = fresh64();
      for (let i = 1; i <= LIMITS.pair; i++) expect((await signIn(u.email, WRONG, net64.at(i))).status).toBe(401);
      expect((await signIn(u.email, PASSWORD, net64.at(99))).status).toBe(429);
      expect((await signIn(u.email, PASSWORD, fresh64().at(1))).status).toBe(200);
    });

    it('an IPv4-mapped IPv6 address is its IPv4 address', async () => {
      const u = await newUser(t, 'admin');
      const from = freshV4();
      const mapped = { 'x-forwarded-for': `::ffff:${from['x-forwarded-for']}` };
      for (let i = 0; i < LIMITS.pair; i++)
        expect((await signIn(u.email, WRONG, i % 2 ? from : mapped)).status).toBe(401);
      expect((await signIn(u.email, PASSWORD, mapped)).status).toBe(429);
      expect((await signIn(u.email, PASSWORD, from)).status).toBe(429);
    });

    it('courier codes: 5 wrong codes from 5 addresses of one /64 lock the /64', async () => {
      const op = await newOperator(t);
      const courier = (await client(t.app, op)('POST', '/v1/couriers', { name: 'Six' })).body;
      const good = (await client(t.app, op)('POST', `/v1/couriers/${courier.id}/sign_in_codes`)).body.code;
      const net64 = fresh64();
      for (let i = 1; i <= LIMITS.code; i++) {
        expect((await client(t.app)('POST', '/v1/courier_session', { code: 'ZZZZZZZZ' }, net64.at(i))).status).toBe(
          401,
        );
      }
      const locked = await client(t.app)('POST', '/v1/courier_session', { code: good }, net64.at(77));
      expect(locked.status).toBe(429);
      // The refused attempt did not spend the code.
      expect((await client(t.app)('POST', '/v1/courier_session', { code: good }, fresh64().at(1))).status).toBe(200);
    });
  });

  describe('defect 5: failures elsewhere do not lock the user out', () => {
    it('5 bad guesses from one address hold that address only; the user signs in from another', async () => {
      const u = await newUser(t, 'admin');
      const attacker = freshV4();
      for (let i = 0; i < LIMITS.pair; i++) expect((await signIn(u.email, WRONG, attacker)).status).toBe(401);
      const held = await signIn(u.email, PASSWORD, attacker);
      expect(held.status).toBe(429);
      expect(cookieFrom(held.raw, 'ruta_session')).toBeUndefined();
      expect((await signIn(u.email, PASSWORD, freshV4())).status).toBe(200);
    });

    it('the known browser gets in even from the attacker’s address (one NAT), where others are held', async () => {
      const u = await newUser(t, 'admin');
      const device = await knownBrowser(u.email);
      const office = freshV4();
      for (let i = 0; i < LIMITS.pair; i++) expect((await signIn(u.email, WRONG, office)).status).toBe(401);
      expect((await signIn(u.email, PASSWORD, office)).status).toBe(429);
      const res = await signIn(u.email, PASSWORD, office, device);
      expect(res.status).toBe(200);
      // The same browser keeps its token, renewed.
      expect(cookieFrom(res.raw, 'ruta_device')?.split(';')[0]).toBe(device);
    });

    it('the account is slowed, not locked: 20 failures from 4 networks hold unknown browsers everywhere, not the known one', async () => {
      const u = await newUser(t, 'dispatcher');
      const device = await knownBrowser(u.email);
      for (let n = 0; n < LIMITS.account / LIMITS.pair; n++) {
        const from = freshV4();
        for (let i = 0; i < LIMITS.pair; i++) expect((await signIn(u.email, WRONG, from)).status).toBe(401);
      }
      const elsewhere = await signIn(u.email, PASSWORD, freshV4());
      expect(elsewhere.status).toBe(429);
      expect(Number(elsewhere.headers['retry-after'])).toBeGreaterThan(14 * 60);
      expect((await signIn(u.email, PASSWORD, freshV4(), device)).status).toBe(200);
    });

    it('a known browser has its own count: 5 wrong passwords with its cookie hold it, anywhere', async () => {
      const u = await newUser(t, 'admin');
      const device = await knownBrowser(u.email);
      for (let i = 0; i < LIMITS.device; i++)
        expect((await signIn(u.email, WRONG, freshV4(), device)).status).toBe(401);
      expect((await signIn(u.email, PASSWORD, freshV4(), device)).status).toBe(429);
      // Without the cookie it is an unknown browser at a fresh address: not held.
      expect((await signIn(u.email, PASSWORD, freshV4())).status).toBe(200);
    });

    it('the account’s ceiling holds known browsers too, once known browsers alone failed 100 times', async () => {
      const u = await newUser(t, 'admin');
      const device = await knownBrowser(u.email);
      // Reaching it through the API takes 20 known browsers failing 5 times each; its rows are the same.
      const now = t.ctx.clock();
      await t.ctx.db
        .insertInto('sign_in_attempts')
        .values(
          Array.from({ length: LIMITS.accountCeiling }, (_, i) => ({
            bucket: `account:${u.email}`,
            at: now - 1000 + i,
            attempt_id: `seed${i}`,
          })),
        )
        .execute();
      const held = await signIn(u.email, PASSWORD, freshV4(), device);
      expect(held.status).toBe(429);
      expect(Number(held.headers['retry-after'])).toBeGreaterThan(14 * 60);
    });

    it('a device cookie of another user, or a forged one, counts for nothing and is replaced', async () => {
      const a = await newUser(t, 'admin');
      const b = await newUser(t, 'admin');
      const aDevice = await knownBrowser(a.email);
      const office = freshV4();
      for (let i = 0; i < LIMITS.pair; i++) expect((await signIn(b.email, WRONG, office)).status).toBe(401);
      expect((await signIn(b.email, PASSWORD, office, aDevice)).status).toBe(429);
      expect((await signIn(b.email, PASSWORD, office, 'ruta_device=forged')).status).toBe(429);
      const res = await signIn(b.email, PASSWORD, freshV4(), 'ruta_device=forged');
      expect(res.status).toBe(200);
      const issued = cookieFrom(res.raw, 'ruta_device') ?? '';
      expect(issued).not.toContain('forged');
      expect(issued).toContain('HttpOnly');
      expect(issued).toContain('Path=/v1/session');
      expect(issued).toContain('Secure');
      // Only its hash is stored.
      const token = issued.split(';')[0]?.split('=')[1] as string;
      const rows = await t.ctx.db.selectFrom('known_devices').selectAll().where('user_id', '=', b.id).execute();
      expect(rows).toHaveLength(1);
      expect(JSON.stringify(rows)).not.toContain(token);
    });

    it('Retry-After is when the oldest failure that keeps the lock leaves the window', async () => {
      const u = await newUser(t, 'admin');
      const from = freshV4();
      // A held clock: the real one moves on while five password checks run, and Retry-After is exact.
      const start = Date.now();
      const at = (ms: number) => Object.assign(t.ctx, { clock: () => start + ms });
      try {
        for (let i = 0; i < LIMITS.pair; i++) {
          at(i * 60_000);
          expect((await signIn(u.email, WRONG, from)).status).toBe(401);
        }
        at(5 * 60_000);
        const held = await signIn(u.email, PASSWORD, from);
        expect(held.status).toBe(429);
        // The first failure (at 0) leaves at 15 min: 10 minutes from now.
        expect(Number(held.headers['retry-after'])).toBe(LOCKOUT_WINDOW_MS / 1000 - 5 * 60);
        at(LOCKOUT_WINDOW_MS + 1000);
        expect((await signIn(u.email, PASSWORD, from)).status).toBe(200);
      } finally {
        moveClock(t, 0);
      }
    });

    it('a success forgets the person’s own typos at that address', async () => {
      const u = await newUser(t, 'admin');
      const from = freshV4();
      for (let i = 0; i < LIMITS.pair - 1; i++) expect((await signIn(u.email, WRONG, from)).status).toBe(401);
      expect((await signIn(u.email, PASSWORD, from)).status).toBe(200);
      for (let i = 0; i < LIMITS.pair; i++) expect((await signIn(u.email, WRONG, from)).status).toBe(401);
      expect((await signIn(u.email, PASSWORD, from)).status).toBe(429);
    });

    it('an unknown email is counted like a known one: same 401, then the same 429', async () => {
      const u = await newUser(t, 'admin');
      const from = freshV4();
      const ghost = `ghost-${net}-${v4}@example.com`;
      const known: Res[] = [];
      const unknown: Res[] = [];
      for (let i = 0; i < LIMITS.pair + 1; i++) {
        known.push(await signIn(u.email, WRONG, from));
        unknown.push(await signIn(ghost, WRONG, from));
      }
      expect(statuses(known)).toEqual(statuses(unknown));
      expect(known[0]?.body.error.message).toBe(unknown[0]?.body.error.message);
      expect(statuses(known).at(-1)).toBe(429);
    });
  });
});
