import type { AppContext } from '../../shared/context.js';
import { ApiError, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { iso } from '../../shared/time.js';
import { rememberDevice } from './devices.js';
import { clearBuckets, deleteDevicesOf } from './lockout-repo.js';
import type { CreatedPasswordReset, PasswordResetView } from './password-schemas.js';
import { hashPassword } from './passwords.js';
import * as repo from './repo.js';
import { type SignedIn, signInBuckets, startSession } from './sessions.js';
import { hashToken, newToken } from './tokens.js';
import { checkPassword } from './users.js';

/**
 * An admin's password reset is a single-use link, like an invitation, rather than a password the
 * admin types: the admin never learns the user's password, and the user chooses it. 24 hours: long
 * enough to hand the link over, short enough that a forgotten one goes stale.
 */
export const PASSWORD_RESET_TTL_MS = 24 * 60 * 60 * 1000;

const gone = () =>
  new ApiError('resource_missing', 'No such password reset: it may be mistyped, already used or expired.', 'token');

/**
 * `POST /v1/users/{id}/password_reset`. From this moment the old password no longer signs in (the
 * reset may be because it leaked), every session of the user ends, no browser counts as known for
 * it any more, and earlier links of the user stop working. All in one transaction.
 */
export async function issuePasswordReset(
  ctx: AppContext,
  adminId: string,
  userId: string,
): Promise<CreatedPasswordReset> {
  const user = await repo.findUser(ctx.db, userId);
  if (!user) throw notFound('user', userId);
  if (user.id === adminId) {
    // It would end the admin's own session; changing one's own password keeps it.
    throw new ApiError('parameter_invalid', 'To change your own password, use POST /v1/session/password.', 'id');
  }
  if (user.status !== 'active') {
    throw new ApiError('parameter_invalid', `User ${userId} is disabled; enable it first.`, 'id');
  }
  // A random password nobody knows takes the old one's place: a real scrypt hash, so signing in
  // as this user meanwhile costs the same work as any wrong password.
  const unusable = await hashPassword(newToken());
  const now = ctx.clock();
  const token = newToken();
  const row = {
    id: newId('pwr', now),
    user_id: user.id,
    token_hash: hashToken(token),
    created_by: adminId,
    created_at: now,
    expires_at: now + PASSWORD_RESET_TTL_MS,
    used_at: null,
  };
  const ended = await ctx.db.transaction().execute(async (trx) => {
    await repo.setPasswordHash(trx, user.id, unusable, now);
    await repo.expireResetsOf(trx, user.id, now);
    await repo.insertPasswordReset(trx, row);
    await deleteDevicesOf(trx, user.id);
    return repo.deleteSessionsOf(trx, user.id);
  });
  return {
    id: row.id,
    object: 'password_reset',
    user: user.id,
    email: user.email,
    // In the fragment, so the token never reaches a server's access log.
    url: `${ctx.config.publicUrl.replace(/\/$/, '')}/console/#password_reset=${token}`,
    expires_at: iso(row.expires_at),
    sessions_ended: ended,
  };
}

/** The public view of an open link: enough for the page that sets the password. */
export async function showPasswordReset(ctx: AppContext, token: string): Promise<PasswordResetView> {
  const reset = await repo.openPasswordReset(ctx.db, hashToken(token), ctx.clock());
  if (reset?.status !== 'active') throw gone();
  return { object: 'password_reset', email: reset.email, expires_at: iso(reset.expires_at) };
}

/**
 * `POST /v1/password_resets/{token}/complete {password}`: takes the link (once), sets the password
 * and signs the user in, like a password sign-in from this browser: it becomes a known browser,
 * and the user's failures at this address (the reason for the reset, often) are forgotten.
 */
export async function completePasswordReset(
  ctx: AppContext,
  token: string,
  body: { password: string },
  ip: string,
  deviceToken: string | undefined,
): Promise<SignedIn> {
  checkPassword(body.password);
  // Looked up before scrypt runs, so a wrong link costs the server nothing.
  if (!(await repo.openPasswordReset(ctx.db, hashToken(token), ctx.clock()))) throw gone();
  const hash = await hashPassword(body.password);
  const user = await ctx.db.transaction().execute(async (trx) => {
    const now = ctx.clock();
    const reset = await repo.takePasswordReset(trx, hashToken(token), now);
    if (!reset) throw gone();
    const row = await repo.setPasswordHash(trx, reset.user_id, hash, now);
    // Disabled since the link was made: the link goes with the rollback, unused.
    if (row?.status !== 'active') throw gone();
    await repo.deleteSessionsOf(trx, row.id);
    return row;
  });
  const [pair] = signInBuckets(user.email, ip, undefined);
  if (pair) await clearBuckets(ctx.db, [pair.key]);
  const device = await rememberDevice(ctx, user.id, undefined, deviceToken);
  return { ...(await startSession(ctx, user)), device };
}
