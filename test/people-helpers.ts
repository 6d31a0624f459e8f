import { randomBytes, scryptSync } from 'node:crypto';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { createKey } from '../src/features/accounts/service.js';
import { issueCode, signInCourier } from '../src/features/people/courier-sign-in.js';
import { invite } from '../src/features/people/invitations.js';
import { PASSWORD_RESET_TTL_MS } from '../src/features/people/password-resets.js';
import { insertPasswordReset, insertUser } from '../src/features/people/repo.js';
import { startSession } from '../src/features/people/sessions.js';
import { hashToken, newToken } from '../src/features/people/tokens.js';
import type { UserRole, UsersTable } from '../src/shared/db/schema.js';
import { newId } from '../src/shared/ids.js';
import { client, type Res, type TestApp } from './helpers.js';

export const PASSWORD = 'correct horse battery';

/** A signed-in browser: its cookie header and the session's CSRF token. */
export interface Session {
  cookie: string;
  csrf: string;
  body: any;
}

/**
 * PASSWORD hashed with scrypt at N = 2^10 rather than the server's 2^15, made once per test file.
 * A hash carries its own parameters, so sign-in verifies it exactly as any other, in ~1 ms instead
 * of ~100: the suite signs in thousands of times. The server's own cost is tested in sessions.test.ts
 * (and every user made through the API or the CLI still gets it).
 */
const CHEAP_N = 2 ** 10;
const cheapSalt = randomBytes(16);
const CHEAP_HASH = [
  'scrypt',
  CHEAP_N,
  8,
  1,
  cheapSalt.toString('base64url'),
  scryptSync(PASSWORD.normalize('NFC'), cheapSalt, 32, { N: CHEAP_N, r: 8, p: 1 }).toString('base64url'),
].join('$');

let seq = 0;
/**
 * A user as the service writes one (validation is tested on the API and the CLI), with PASSWORD
 * stored as the cheap hash above.
 */
export async function newUser(t: TestApp, role: UserRole, account?: string, email?: string) {
  seq += 1;
  const now = t.ctx.clock();
  const row = {
    id: newId('usr', now),
    email: (email ?? `${role}${seq}-${Math.random().toString(36).slice(2, 8)}@example.com`).toLowerCase(),
    name: `${role} ${seq}`,
    role,
    account_id: account ?? null,
    status: 'active' as const,
    password_hash: CHEAP_HASH,
    created_at: now,
    updated_at: now,
  };
  await insertUser(t.ctx.db, row);
  return row;
}

export function cookieFrom(res: LightMyRequestResponse | { headers: LightMyRequestResponse['headers'] }, name: string) {
  const raw = res.headers['set-cookie'];
  const all = Array.isArray(raw) ? raw : raw ? [raw] : [];
  const line = all.find((c) => c.startsWith(`${name}=`));
  return line;
}

/** Signs in through the API: `POST /v1/session`. */
export async function signIn(t: TestApp, email: string, password = PASSWORD): Promise<Session> {
  const res = await client(t.app)('POST', '/v1/session', { email, password });
  if (res.status !== 200) throw new Error(`sign-in → ${res.status} ${JSON.stringify(res.body)}`);
  const line = cookieFrom(res.raw, 'ruta_session');
  if (!line) throw new Error('no ruta_session cookie');
  return { cookie: line.split(';')[0] as string, csrf: res.body.csrf_token, body: res.body };
}

/** Signs a user of `role` in; merchants need their account. */
export async function userSession(t: TestApp, role: UserRole, account?: string): Promise<Session> {
  const u = await newUser(t, role, account);
  return signIn(t, u.email);
}

/** Like `client`, but as the browser: the cookie, the CSRF token, and optionally Ruta-Mode. */
export function sessionClient(t: TestApp, s: Session, mode?: 'test' | 'live') {
  const base = client(t.app);
  return <T = any>(
    method: InjectOptions['method'],
    url: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Res<T>> =>
    base<T>(method, url, body, {
      cookie: s.cookie,
      'x-csrf-token': s.csrf,
      ...(mode ? { 'ruta-mode': mode } : {}),
      ...headers,
    });
}

/** Issues a code for `courierId` with a carrier key and trades it for a courier session. */
export async function courierSession(t: TestApp, carrierKey: string, courierId: string): Promise<Session> {
  const code = await client(t.app, carrierKey)('POST', `/v1/couriers/${courierId}/sign_in_codes`);
  if (code.status !== 201) throw new Error(`code → ${code.status} ${JSON.stringify(code.body)}`);
  const res = await client(t.app)('POST', '/v1/courier_session', { code: code.body.code });
  if (res.status !== 200) throw new Error(`courier sign-in → ${res.status} ${JSON.stringify(res.body)}`);
  const line = cookieFrom(res.raw, 'ruta_courier_session');
  if (!line) throw new Error('no ruta_courier_session cookie');
  return { cookie: line.split(';')[0] as string, csrf: res.body.csrf_token, body: res.body };
}

/** Moves the app's clock (every service reads ctx.clock) by `ms`, from the real time. */
export function moveClock(t: TestApp, ms: number): void {
  const offset = ms;
  Object.assign(t.ctx, { clock: () => Date.now() + offset });
}

/** The people objects the corpus and isolation rows name; fresh tokens each time (they are single use). */
export interface PeopleFixture {
  /** A signed-in admin of its own (changing its password ends no other fixture's session). */
  admin: Session;
  adminEmail: string;
  courier: Session;
  user: { id: string };
  account: { id: string };
  apiKey: { id: string };
  invitation: string;
  /** Another open invitation's id (revoking it needs one that accepting has not used). */
  invitationId: string;
  code: string;
  /** The token of an open password reset link (of a user of its own). */
  passwordReset: string;
}

const shared = new WeakMap<TestApp, { admin: UsersTable; target: UsersTable }>();

/** A user with password PASSWORD, without scrypt: the hash of one made through the service is reused. */
async function quickUser(t: TestApp, role: UserRole, like: UsersTable): Promise<UsersTable> {
  seq += 1;
  const now = t.ctx.clock();
  const row = {
    ...like,
    id: newId('usr', now),
    email: `${role}${seq}-${Math.random().toString(36).slice(2, 8)}@example.com`,
    role,
    account_id: null,
    status: 'active' as const,
    created_at: now,
    updated_at: now,
  };
  await insertUser(t.ctx.db, row);
  return row;
}

/**
 * Cheap enough to call per corpus case: the users are made once per app (scrypt is slow on
 * purpose); sessions, keys, invitations and codes are rows made through the services.
 */
export async function makePeopleFixture(t: TestApp, accountId: string, courierId: string): Promise<PeopleFixture> {
  let users = shared.get(t);
  if (!users) {
    users = { admin: await newUser(t, 'admin'), target: await newUser(t, 'dispatcher') };
    shared.set(t, users);
  }
  const admin = await quickUser(t, 'admin', users.admin);
  const started = await startSession(t.ctx, admin);
  const resetToken = newToken();
  const now = t.ctx.clock();
  await insertPasswordReset(t.ctx.db, {
    id: newId('pwr', now),
    user_id: (await quickUser(t, 'dispatcher', users.admin)).id,
    token_hash: hashToken(resetToken),
    created_by: users.admin.id,
    created_at: now,
    expires_at: now + PASSWORD_RESET_TTL_MS,
    used_at: null,
  });
  const carrier = { mode: 'test' as const, accountId: null };
  const phone = await signInCourier(t.ctx, (await issueCode(t.ctx, carrier, courierId)).code, '192.0.2.250');
  const key = await createKey(t.ctx, { role: 'merchant', mode: 'test', accountId });
  seq += 1;
  const inv = await invite(t.ctx, users.admin.id, {
    email: `invited${seq}-${Date.now()}@example.com`,
    role: 'dispatcher',
  });
  return {
    admin: { cookie: `ruta_session=${started.token}`, csrf: started.view.csrf_token, body: started.view },
    adminEmail: admin.email,
    courier: { cookie: `ruta_courier_session=${phone.token}`, csrf: phone.view.csrf_token, body: phone.view },
    user: { id: users.target.id },
    account: { id: accountId },
    apiKey: { id: key.id },
    invitation: inv.url.split('#invitation=')[1] as string,
    invitationId: (
      await invite(t.ctx, users.admin.id, { email: `revocable${seq}-${Date.now()}@example.com`, role: 'dispatcher' })
    ).id,
    code: (await issueCode(t.ctx, carrier, courierId)).code,
    passwordReset: resetToken,
  };
}
