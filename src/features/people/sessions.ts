import type { Authenticators, Principal } from '../../shared/auth.js';
import { csrfTokenFor } from '../../shared/auth.js';
import type { AppContext } from '../../shared/context.js';
import type { Mode } from '../../shared/db/schema.js';
import { ApiError } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { clientOf } from '../../shared/rate-limit.js';
import { iso } from '../../shared/time.js';
import { authenticate as authenticateKey } from '../accounts/service.js';
import { type Device, knownDeviceOf, rememberDevice } from './devices.js';
import { type Bucket, beginAttempt, LIMITS } from './lockout.js';
import { DUMMY_HASH, verifyPassword } from './passwords.js';
import * as repo from './repo.js';
import type { SessionView } from './schemas.js';
import { hashToken, newToken } from './tokens.js';
import { presentUser } from './users.js';

/** DESIGN §8: a session ends after 12 h without a request, and 7 d after sign-in whatever happens. */
export const IDLE_TIMEOUT_MS = 12 * 60 * 60 * 1000;
export const ABSOLUTE_TIMEOUT_MS = 7 * 24 * 60 * 60 * 1000;
/** last_seen_at is written at most this often: most requests stay reads. */
const TOUCH_EVERY_MS = 60 * 1000;

export interface StartedSession {
  token: string;
  expiresAt: number;
  view: SessionView;
}

function view(user: repo.UserRow, token: string, expiresAt: number, lastSeen: number): SessionView {
  return {
    object: 'session',
    user: presentUser(user),
    csrf_token: csrfTokenFor(token),
    expires_at: iso(expiresAt),
    idle_expires_at: iso(Math.min(expiresAt, lastSeen + IDLE_TIMEOUT_MS)),
  };
}

/** Opens a session for a user who has just proved who they are (password or invitation). */
export async function startSession(ctx: AppContext, user: repo.UserRow): Promise<StartedSession> {
  const now = ctx.clock();
  const token = newToken();
  const expiresAt = now + ABSOLUTE_TIMEOUT_MS;
  // Sessions that ended without a sign-out (a closed laptop) would otherwise stay forever.
  await repo.purgeEndedSessions(ctx.db, user.id, now, IDLE_TIMEOUT_MS);
  await repo.insertSession(ctx.db, {
    id: newId('ses', now),
    user_id: user.id,
    token_hash: hashToken(token),
    created_at: now,
    last_seen_at: now,
    expires_at: expiresAt,
  });
  return { token, expiresAt, view: view(user, token, expiresAt, now) };
}

const invalid = () => new ApiError('invalid_credentials', 'The email or password is not correct.');

export interface SignedIn extends StartedSession {
  /** The browser's `ruta_device` cookie, new or renewed. */
  device: Device;
}

/** The buckets a password attempt counts in (docs/console-auth.md, "Lock-out"). */
export function signInBuckets(email: string, ip: string, knownDevice: string | undefined): Bucket[] {
  const client = clientOf(ip);
  if (knownDevice) {
    return [
      { key: `device:${knownDevice}`, limit: LIMITS.device },
      { key: `account:${email}`, limit: LIMITS.accountCeiling },
    ];
  }
  return [
    { key: `pair:${email}|${client}`, limit: LIMITS.pair },
    { key: `address:${client}`, limit: LIMITS.address },
    { key: `account:${email}`, limit: LIMITS.account },
  ];
}

/**
 * `POST /v1/session`. A wrong email and a wrong password get the same answer after the same work
 * (an unknown email is checked against a dummy hash, and counted like a real one), so neither the
 * body nor the time tells whether the email exists. A disabled user is refused the same way. The
 * attempt is counted before the password is checked (issue #18), per (email, client) and per
 * client, and per email everywhere; a browser known for the user skips the first two.
 */
export async function signIn(
  ctx: AppContext,
  email: string,
  password: string,
  ip: string,
  deviceToken?: string,
): Promise<SignedIn> {
  const normalized = email.trim().toLowerCase();
  const user = await repo.findUserByEmail(ctx.db, normalized);
  const known = await knownDeviceOf(ctx, deviceToken, user?.id);
  const buckets = signInBuckets(normalized, ip, known);
  const attempt = await beginAttempt(ctx, buckets);
  const ok = await verifyPassword(password, user?.password_hash ?? DUMMY_HASH);
  if (!user || !ok || user.status !== 'active') {
    await attempt.failed();
    throw invalid();
  }
  // The person's own typos are forgotten; the address's and the account's counts are not.
  await attempt.succeeded([(buckets[0] as Bucket).key]);
  const device = await rememberDevice(ctx, user.id, known, deviceToken);
  return { ...(await startSession(ctx, user)), device };
}

/** The cookie → principal lookup for user sessions, with both timeouts and the user's status. */
export async function authenticateSession(ctx: AppContext, token: string, mode: Mode): Promise<Principal | undefined> {
  const s = await repo.sessionByHash(ctx.db, hashToken(token));
  if (!s) return undefined;
  const now = ctx.clock();
  if (s.status !== 'active' || now >= s.expires_at || now >= s.last_seen_at + IDLE_TIMEOUT_MS) {
    // An ended session is removed at once; its cookie can never come back.
    await repo.deleteSession(ctx.db, s.id);
    return undefined;
  }
  if (now - s.last_seen_at >= TOUCH_EVERY_MS) await repo.touchSession(ctx.db, s.id, now);
  const base = { kind: 'user' as const, mode, userId: s.user_id, sessionId: s.id };
  // Admins and dispatchers act as the carrier; a merchant user as its account's secret key.
  if (s.role === 'merchant') return { ...base, role: 'merchant', accountId: s.account_id };
  return { ...base, role: s.role, accountId: null };
}

export async function sessionView(ctx: AppContext, p: Principal, token: string): Promise<SessionView> {
  const s = await repo.sessionByHash(ctx.db, hashToken(token));
  const user = p.userId && (await repo.findUser(ctx.db, p.userId));
  if (!s || !user) throw new ApiError('session_invalid', 'Your session has ended; sign in again.');
  return view(user, token, s.expires_at, s.last_seen_at);
}

export async function endSession(ctx: AppContext, sessionId: string): Promise<void> {
  await repo.deleteSession(ctx.db, sessionId);
}

/** The courier app's cookie → principal: the courier's own environment and account, and its id. */
export async function authenticateCourier(ctx: AppContext, token: string): Promise<Principal | undefined> {
  const s = await repo.courierSessionByHash(ctx.db, hashToken(token));
  if (!s) return undefined;
  if (s.status !== 'active' || ctx.clock() >= s.expires_at) {
    await repo.deleteCourierSession(ctx.db, s.id);
    return undefined;
  }
  return {
    kind: 'courier',
    role: 'courier',
    mode: s.mode,
    accountId: s.account_id,
    courierId: s.courier_id,
    sessionId: s.id,
  };
}

/** What the app hands to installAuth: every way of being someone, owned by the features that store them. */
export function authenticators(ctx: AppContext): Authenticators {
  return {
    key: (secret) => authenticateKey(ctx.db, secret, ctx.clock()),
    session: (token, mode) => authenticateSession(ctx, token, mode),
    courierSession: (token) => authenticateCourier(ctx, token),
  };
}
