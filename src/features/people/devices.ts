import type { AppContext } from '../../shared/context.js';
import * as repo from './lockout-repo.js';
import { hashToken, newToken } from './tokens.js';

/**
 * A "known browser" (OWASP's device cookies; GitHub's and Auth0's known devices): a successful
 * password sign-in leaves a long-lived random token in cookie `ruta_device`, stored hashed with the
 * user it signed in. A later sign-in of that user carrying it is not held by the locks of its
 * address, so nobody can keep the real user out by failing from elsewhere (or from behind the same
 * NAT); it has its own, equally strict count. One token per browser: the last user who signed in
 * on it.
 */
export const DEVICE_COOKIE = 'ruta_device';
/** Sliding: each successful sign-in from the browser renews it. */
export const DEVICE_TTL_MS = 180 * 24 * 60 * 60 * 1000;

export interface Device {
  token: string;
  expiresAt: number;
}

/**
 * The hash of the browser's token when it is known for this user. The same lookup runs whether or
 * not the email names a user (then for nobody's id), so it tells no more than the password check.
 */
export async function knownDeviceOf(
  ctx: AppContext,
  token: string | undefined,
  userId: string | undefined,
): Promise<string | undefined> {
  if (!token) return undefined;
  const hash = hashToken(token);
  return (await repo.knownDevice(ctx.db, hash, userId ?? '', ctx.clock())) ? hash : undefined;
}

/**
 * After a successful sign-in: renews the known browser's token, or gives the browser a new one
 * (never the one it brought, which might have been planted: a token is only ever made here).
 */
export async function rememberDevice(
  ctx: AppContext,
  userId: string,
  known: string | undefined,
  presented: string | undefined,
): Promise<Device> {
  const now = ctx.clock();
  const expiresAt = now + DEVICE_TTL_MS;
  if (known && presented) {
    await repo.touchDevice(ctx.db, known, now, expiresAt);
    return { token: presented, expiresAt };
  }
  // The browser's old token (another user's, or expired) is replaced by the cookie set now.
  if (presented) await repo.deleteDevice(ctx.db, hashToken(presented));
  await repo.purgeExpiredDevices(ctx.db, userId, now);
  const token = newToken();
  await repo.insertDevice(ctx.db, {
    token_hash: hashToken(token),
    user_id: userId,
    created_at: now,
    last_used_at: now,
    expires_at: expiresAt,
  });
  return { token, expiresAt };
}
