import type { AppContext } from '../../shared/context.js';
import type { UserRole } from '../../shared/db/schema.js';
import { ApiError, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { iso } from '../../shared/time.js';
import * as repo from './repo.js';
import type { CreatedInvitation, InvitationView, PendingInvitation } from './schemas.js';
import { type StartedSession, startSession } from './sessions.js';
import { hashToken, newToken } from './tokens.js';
import { checkPassword, checkRoleAccount, createUser, EMAIL_PATTERN } from './users.js';

/** DESIGN §8: an invitation link is single use and valid 72 h. */
export const INVITATION_TTL_MS = 72 * 60 * 60 * 1000;

const gone = () =>
  new ApiError('resource_missing', 'No such invitation: it may be mistyped, already used or expired.', 'token');

export async function invite(
  ctx: AppContext,
  adminId: string,
  body: { email: string; role: UserRole; account?: string | null },
): Promise<CreatedInvitation> {
  const email = body.email.trim().toLowerCase();
  if (!EMAIL_PATTERN.test(email)) throw new ApiError('parameter_invalid', 'Invalid email.', 'email');
  const accountId = await checkRoleAccount(ctx.db, body.role, body.account);
  if (await repo.findUserByEmail(ctx.db, email)) {
    throw new ApiError('email_taken', `A user with email ${email} already exists.`, 'email');
  }
  const now = ctx.clock();
  const token = newToken();
  const row = {
    id: newId('inv', now),
    email,
    role: body.role,
    account_id: accountId,
    token_hash: hashToken(token),
    created_by: adminId,
    created_at: now,
    expires_at: now + INVITATION_TTL_MS,
    accepted_at: null,
  };
  await repo.insertInvitation(ctx.db, row);
  return {
    id: row.id,
    object: 'invitation',
    email,
    role: row.role,
    account: accountId,
    // In the fragment, so the token never reaches a server's access log.
    url: `${ctx.config.publicUrl.replace(/\/$/, '')}/console/#invitation=${token}`,
    expires_at: iso(row.expires_at),
  };
}

type InvitationListing = NonNullable<Awaited<ReturnType<typeof repo.expireInvitation>>>;

const presentPending = (r: InvitationListing): PendingInvitation => ({
  id: r.id,
  object: 'invitation',
  email: r.email,
  role: r.role,
  account: r.account_id,
  created_at: iso(r.created_at),
  expires_at: iso(r.expires_at),
});

/** The open invitations, for the admin's Users page; their links are never shown again (only hashes are kept). */
export async function listInvitations(ctx: AppContext) {
  const rows = await repo.pendingInvitations(ctx.db, ctx.clock());
  return { object: 'list' as const, data: rows.map(presentPending), has_more: false };
}

/**
 * Takes back an open invitation (sent to the wrong address, or the person no longer joins): its link
 * stops working at once. One already accepted, expired or revoked is 404, like a mistyped id: there
 * is nothing open left to revoke. Invitations belong to the carrier, not to an environment.
 */
export async function revokeInvitation(ctx: AppContext, id: string): Promise<PendingInvitation> {
  const row = await repo.expireInvitation(ctx.db, id, ctx.clock());
  if (!row) throw notFound('invitation', id);
  return presentPending(row);
}

/** The public view of an open invitation: enough for the page that sets the password. */
export async function showInvitation(ctx: AppContext, token: string): Promise<InvitationView> {
  const inv = await repo.openInvitation(ctx.db, hashToken(token), ctx.clock());
  if (!inv) throw gone();
  return { object: 'invitation', email: inv.email, role: inv.role, expires_at: iso(inv.expires_at) };
}

/** Takes the invitation (once), creates the user and signs them in, all or nothing. */
export async function acceptInvitation(
  ctx: AppContext,
  token: string,
  body: { name: string; password: string },
): Promise<StartedSession> {
  checkPassword(body.password);
  if (body.name.trim() === '') throw new ApiError('parameter_invalid', 'Invalid name: it is blank.', 'name');
  const user = await ctx.db.transaction().execute(async (trx) => {
    const inv = await repo.takeInvitation(trx, hashToken(token), ctx.clock());
    if (!inv) throw gone();
    return createUser(
      ctx,
      { email: inv.email, name: body.name, role: inv.role, account: inv.account_id, password: body.password },
      trx,
    );
  });
  return startSession(ctx, user);
}
