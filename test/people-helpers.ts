import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { createKey } from '../src/features/accounts/service.js';
import { issueCode, signInCourier } from '../src/features/people/courier-sign-in.js';
import { invite } from '../src/features/people/invitations.js';
import { startSession } from '../src/features/people/sessions.js';
import { createUser } from '../src/features/people/users.js';
import type { UserRole, UsersTable } from '../src/shared/db/schema.js';
import { client, type Res, type TestApp } from './helpers.js';

export const PASSWORD = 'correct horse battery';

/** A signed-in browser: its cookie header and the session's CSRF token. */
export interface Session {
  cookie: string;
  csrf: string;
  body: any;
}

let seq = 0;
/** A user made through the service (the CLI's path), so the API under test is not also the set-up. */
export async function newUser(t: TestApp, role: UserRole, account?: string, email?: string) {
  seq += 1;
  const row = await createUser(t.ctx, {
    email: email ?? `${role}${seq}-${Math.random().toString(36).slice(2, 8)}@example.com`,
    name: `${role} ${seq}`,
    role,
    account: account ?? null,
    password: PASSWORD,
  });
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
}

const shared = new WeakMap<TestApp, { admin: UsersTable; target: UsersTable }>();

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
  const started = await startSession(t.ctx, users.admin);
  const carrier = { mode: 'test' as const, accountId: null };
  const phone = await signInCourier(t.ctx, (await issueCode(t.ctx, carrier, courierId)).code, '192.0.2.250');
  const key = await createKey(t.ctx.db, { role: 'merchant', mode: 'test', accountId });
  seq += 1;
  const inv = await invite(t.ctx, users.admin.id, {
    email: `invited${seq}-${Date.now()}@example.com`,
    role: 'dispatcher',
  });
  return {
    admin: { cookie: `ruta_session=${started.token}`, csrf: started.view.csrf_token, body: started.view },
    adminEmail: users.admin.email,
    courier: { cookie: `ruta_courier_session=${phone.token}`, csrf: phone.view.csrf_token, body: phone.view },
    user: { id: users.target.id },
    account: { id: accountId },
    apiKey: { id: key.id },
    invitation: inv.url.split('#invitation=')[1] as string,
    invitationId: (
      await invite(t.ctx, users.admin.id, { email: `revocable${seq}-${Date.now()}@example.com`, role: 'dispatcher' })
    ).id,
    code: (await issueCode(t.ctx, carrier, courierId)).code,
  };
}
