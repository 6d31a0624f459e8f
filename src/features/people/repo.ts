import type { Executor } from '../../shared/db/index.js';
import type {
  CourierSessionsTable,
  CourierSignInCodesTable,
  CouriersTable,
  InvitationsTable,
  PasswordResetsTable,
  SessionsTable,
  UsersTable,
} from '../../shared/db/schema.js';

export type UserRow = UsersTable;

export async function insertUser(db: Executor, row: UserRow): Promise<void> {
  await db.insertInto('users').values(row).execute();
}

export async function findUserByEmail(db: Executor, email: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('email', '=', email.toLowerCase()).executeTakeFirst();
}

export async function findUser(db: Executor, id: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Oldest first; a carrier has tens of users, not thousands, so one page holds them. */
export async function listUsers(db: Executor): Promise<UserRow[]> {
  return db.selectFrom('users').selectAll().orderBy('created_at').orderBy('id').execute();
}

export async function countUsers(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function updateUser(
  db: Executor,
  id: string,
  set: Partial<Pick<UserRow, 'name' | 'role' | 'account_id' | 'status' | 'updated_at'>>,
): Promise<UserRow | undefined> {
  return db.updateTable('users').set(set).where('id', '=', id).returningAll().executeTakeFirst();
}

// Sessions

export async function insertSession(db: Executor, row: SessionsTable): Promise<void> {
  await db.insertInto('sessions').values(row).execute();
}

/** The session and its user in one read: every cookie request runs this. */
export async function sessionByHash(db: Executor, tokenHash: string) {
  return db
    .selectFrom('sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .select([
      's.id',
      's.user_id',
      's.created_at',
      's.last_seen_at',
      's.expires_at',
      'u.role',
      'u.account_id',
      'u.status',
    ])
    .where('s.token_hash', '=', tokenHash)
    .executeTakeFirst();
}

/** Idle timeout counts from last_seen_at; refreshed at most once a minute so reads stay reads. */
export async function touchSession(db: Executor, id: string, at: number): Promise<void> {
  await db.updateTable('sessions').set({ last_seen_at: at }).where('id', '=', id).execute();
}

export async function deleteSession(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('sessions').where('id', '=', id).execute();
}

/** A user's sessions that have ended by either timeout; swept when the user signs in again. */
export async function purgeEndedSessions(db: Executor, userId: string, now: number, idleMs: number): Promise<void> {
  await db
    .deleteFrom('sessions')
    .where('user_id', '=', userId)
    .where((eb) => eb.or([eb('expires_at', '<=', now), eb('last_seen_at', '<=', now - idleMs)]))
    .execute();
}

export async function deleteSessionsOf(db: Executor, userId: string): Promise<number> {
  const res = await db.deleteFrom('sessions').where('user_id', '=', userId).executeTakeFirst();
  return Number(res.numDeletedRows);
}

/** Every session of the user but `keep` (the one that changed the password). */
export async function deleteOtherSessions(db: Executor, userId: string, keep: string): Promise<number> {
  const res = await db.deleteFrom('sessions').where('user_id', '=', userId).where('id', '!=', keep).executeTakeFirst();
  return Number(res.numDeletedRows);
}

export async function setPasswordHash(db: Executor, userId: string, hash: string, at: number) {
  return db
    .updateTable('users')
    .set({ password_hash: hash, updated_at: at })
    .where('id', '=', userId)
    .returningAll()
    .executeTakeFirst();
}

// Password resets (admins issue single-use links, like invitations)

export async function insertPasswordReset(db: Executor, row: PasswordResetsTable): Promise<void> {
  await db.insertInto('password_resets').values(row).execute();
}

/** A new link replaces the user's earlier open ones: only the last one given out works. */
export async function expireResetsOf(db: Executor, userId: string, now: number): Promise<void> {
  await db
    .updateTable('password_resets')
    .set({ expires_at: now })
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .execute();
}

/** An open link (unused, unexpired) and its user's email, for the page that sets the password. */
export async function openPasswordReset(db: Executor, tokenHash: string, now: number) {
  return db
    .selectFrom('password_resets as r')
    .innerJoin('users as u', 'u.id', 'r.user_id')
    .select(['r.id', 'r.user_id', 'r.expires_at', 'u.email', 'u.status'])
    .where('r.token_hash', '=', tokenHash)
    .where('r.used_at', 'is', null)
    .where('r.expires_at', '>', now)
    .executeTakeFirst();
}

/** Single use: of two concurrent uses of a link, only one matches `used_at is null`. */
export async function takePasswordReset(db: Executor, tokenHash: string, now: number) {
  return db
    .updateTable('password_resets')
    .set({ used_at: now })
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returningAll()
    .executeTakeFirst();
}

// Invitations

export async function insertInvitation(db: Executor, row: InvitationsTable): Promise<void> {
  await db.insertInto('invitations').values(row).execute();
}

/** An invitation that can still be used: unused and not expired. */
export async function openInvitation(db: Executor, tokenHash: string, now: number) {
  return db
    .selectFrom('invitations')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .where('accepted_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
}

/** Invitations still open (unused, unexpired), oldest first: a carrier invites tens, not thousands. */
export async function pendingInvitations(db: Executor, now: number) {
  return db
    .selectFrom('invitations')
    .select(['id', 'email', 'role', 'account_id', 'created_at', 'expires_at'])
    .where('accepted_at', 'is', null)
    .where('expires_at', '>', now)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/**
 * Revoking ends an open invitation by expiring it now: its link then fails exactly as an expired one
 * does (openInvitation, takeInvitation), and the row stays as the record of who invited whom.
 * The same guard as accepting, so an invitation already accepted or expired is left alone (undefined).
 */
export async function expireInvitation(db: Executor, id: string, now: number) {
  return db
    .updateTable('invitations')
    .set({ expires_at: now })
    .where('id', '=', id)
    .where('accepted_at', 'is', null)
    .where('expires_at', '>', now)
    .returning(['id', 'email', 'role', 'account_id', 'created_at', 'expires_at'])
    .executeTakeFirst();
}

/** Single use: of two concurrent accepts, only one matches `accepted_at is null`. */
export async function takeInvitation(db: Executor, tokenHash: string, now: number) {
  return db
    .updateTable('invitations')
    .set({ accepted_at: now })
    .where('token_hash', '=', tokenHash)
    .where('accepted_at', 'is', null)
    .where('expires_at', '>', now)
    .returningAll()
    .executeTakeFirst();
}

// Couriers' sign-in codes and sessions

export async function insertCode(db: Executor, row: CourierSignInCodesTable): Promise<void> {
  await db.insertInto('courier_sign_in_codes').values(row).execute();
}

/** Single use, like invitations: the guarded UPDATE lets exactly one sign-in have the code. */
export async function takeCode(db: Executor, codeHash: string, now: number) {
  return db
    .updateTable('courier_sign_in_codes')
    .set({ used_at: now })
    .where('code_hash', '=', codeHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returningAll()
    .executeTakeFirst();
}

export async function insertCourierSession(db: Executor, row: CourierSessionsTable): Promise<void> {
  await db.insertInto('courier_sessions').values(row).execute();
}

export async function courierSessionByHash(db: Executor, tokenHash: string) {
  return db
    .selectFrom('courier_sessions as s')
    .innerJoin('couriers as c', 'c.id', 's.courier_id')
    .select(['s.id', 's.courier_id', 's.expires_at', 'c.mode', 'c.account_id', 'c.status'])
    .where('s.token_hash', '=', tokenHash)
    .executeTakeFirst();
}

export async function courierRow(db: Executor, id: string): Promise<CouriersTable | undefined> {
  return db.selectFrom('couriers').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function deleteCourierSession(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('courier_sessions').where('id', '=', id).execute();
}

export async function deleteCourierSessionsOf(db: Executor, courierId: string): Promise<number> {
  const res = await db.deleteFrom('courier_sessions').where('courier_id', '=', courierId).executeTakeFirst();
  return Number(res.numDeletedRows);
}
