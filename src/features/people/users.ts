import type { AppContext } from '../../shared/context.js';
import type { Executor } from '../../shared/db/index.js';
import type { UserRole, UserStatus } from '../../shared/db/schema.js';
import { ApiError, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { iso } from '../../shared/time.js';
import { findAccount } from '../accounts/repo.js';
import { beginAttempt, LIMITS } from './lockout.js';
import type { PasswordChanged } from './password-schemas.js';
import { hashPassword, MIN_PASSWORD_LENGTH, verifyPassword } from './passwords.js';
import * as repo from './repo.js';
import type { User } from './schemas.js';

export function presentUser(u: repo.UserRow): User {
  return {
    id: u.id,
    object: 'user',
    email: u.email,
    name: u.name,
    role: u.role,
    account: u.account_id,
    status: u.status,
    created_at: iso(u.created_at),
    updated_at: iso(u.updated_at),
  };
}

/** `user@host` with one @ and something on both sides; the mailbox itself is the user's business. */
export const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+$/;

export function checkPassword(password: string, param = 'password'): void {
  if (password.length < MIN_PASSWORD_LENGTH) {
    throw new ApiError('parameter_invalid', `Invalid ${param}: use at least ${MIN_PASSWORD_LENGTH} characters.`, param);
  }
}

/** A merchant user belongs to exactly one account; admins and dispatchers to none. */
export async function checkRoleAccount(db: Executor, role: UserRole, account: string | null | undefined) {
  if (role === 'merchant') {
    if (!account) throw new ApiError('parameter_missing', 'A merchant user needs an account.', 'account');
    if (!(await findAccount(db, account))) {
      throw new ApiError('parameter_invalid', `Invalid account: no such account '${account}'.`, 'account');
    }
    return account;
  }
  // "An admin", "A dispatcher": the article follows the role's first sound.
  const article = /^[aeiou]/.test(role) ? 'An' : 'A';
  if (account) throw new ApiError('parameter_invalid', `${article} ${role} belongs to no account.`, 'account');
  return null;
}

export interface NewUser {
  email: string;
  name: string;
  role: UserRole;
  account?: string | null;
  password: string;
}

export async function createUser(ctx: AppContext, input: NewUser, db: Executor = ctx.db): Promise<repo.UserRow> {
  const email = input.email.trim().toLowerCase();
  if (!EMAIL_PATTERN.test(email)) throw new ApiError('parameter_invalid', 'Invalid email.', 'email');
  if (input.name.trim() === '') throw new ApiError('parameter_invalid', 'Invalid name: it is blank.', 'name');
  checkPassword(input.password);
  const accountId = await checkRoleAccount(db, input.role, input.account);
  if (await repo.findUserByEmail(db, email)) {
    throw new ApiError('email_taken', `A user with email ${email} already exists.`, 'email');
  }
  const now = ctx.clock();
  const row: repo.UserRow = {
    id: newId('usr', now),
    email,
    name: input.name.trim(),
    role: input.role,
    account_id: accountId,
    status: 'active',
    password_hash: await hashPassword(input.password),
    created_at: now,
    updated_at: now,
  };
  try {
    await repo.insertUser(db, row);
  } catch (err) {
    // Two creations racing for one email: the unique index decides, and the loser hears why.
    if (await repo.findUserByEmail(db, email)) {
      throw new ApiError('email_taken', `A user with email ${email} already exists.`, 'email');
    }
    throw err;
  }
  return row;
}

export interface UserUpdate {
  name?: string;
  role?: UserRole;
  account?: string | null;
  status?: UserStatus;
}

/**
 * Changes a user's name, role (with its account) or status. Disabling ends every session of the
 * user in the same transaction, so the next request of any of them is already refused.
 */
export async function updateUser(ctx: AppContext, actorId: string | null, id: string, body: UserUpdate) {
  const user = await repo.findUser(ctx.db, id);
  if (!user) throw notFound('user', id);
  if (actorId === id && (body.status === 'disabled' || (body.role !== undefined && body.role !== 'admin'))) {
    // An admin locking themselves out would leave nobody to undo it.
    throw new ApiError(
      'parameter_invalid',
      'You cannot disable or demote your own user.',
      body.status ? 'status' : 'role',
    );
  }
  const role = body.role ?? user.role;
  const account =
    body.role !== undefined || body.account !== undefined
      ? await checkRoleAccount(ctx.db, role, body.account === undefined ? user.account_id : body.account)
      : user.account_id;
  const name = body.name?.trim();
  if (name === '') throw new ApiError('parameter_invalid', 'Invalid name: it is blank.', 'name');
  return ctx.db.transaction().execute(async (trx) => {
    const row = await repo.updateUser(trx, id, {
      ...(name === undefined ? {} : { name }),
      role,
      account_id: account,
      ...(body.status === undefined ? {} : { status: body.status }),
      updated_at: ctx.clock(),
    });
    if (!row) throw notFound('user', id);
    // A role change also ends sessions: a session must never keep powers its user lost.
    if (row.status === 'disabled' || row.role !== user.role || row.account_id !== user.account_id) {
      await repo.deleteSessionsOf(trx, id);
    }
    return row;
  });
}

/** The CLI's `users disable EMAIL`. */
export async function disableByEmail(ctx: AppContext, email: string): Promise<repo.UserRow | undefined> {
  const user = await repo.findUserByEmail(ctx.db, email);
  if (!user) return undefined;
  return updateUser(ctx, null, user.id, { status: 'disabled' });
}

/**
 * `POST /v1/session/password`: the signed-in user changes their password, proving the current one
 * (a session left open on a shared computer must not be enough). Wrong current passwords are
 * counted like sign-in failures, before the check: 5 in 15 minutes, then 429. The user's other
 * sessions end in the same transaction; this one goes on.
 */
export async function changePassword(
  ctx: AppContext,
  userId: string,
  sessionId: string,
  body: { current_password: string; new_password: string },
): Promise<PasswordChanged> {
  checkPassword(body.new_password, 'new_password');
  const user = await repo.findUser(ctx.db, userId);
  if (!user) throw new ApiError('session_invalid', 'Your session has ended; sign in again.');
  const bucket = `change:${userId}`;
  const attempt = await beginAttempt(ctx, [{ key: bucket, limit: LIMITS.change }]);
  if (!(await verifyPassword(body.current_password, user.password_hash))) {
    await attempt.failed();
    throw new ApiError('parameter_invalid', 'The current password is not correct.', 'current_password');
  }
  await attempt.succeeded([bucket]);
  if (body.new_password.normalize('NFC') === body.current_password.normalize('NFC')) {
    throw new ApiError('parameter_invalid', 'Invalid new_password: it is the current password.', 'new_password');
  }
  const hash = await hashPassword(body.new_password);
  return ctx.db.transaction().execute(async (trx) => {
    const row = await repo.setPasswordHash(trx, userId, hash, ctx.clock());
    if (!row) throw new ApiError('session_invalid', 'Your session has ended; sign in again.');
    const ended = await repo.deleteOtherSessions(trx, userId, sessionId);
    return { object: 'password_change' as const, user: presentUser(row), sessions_ended: ended };
  });
}
