import type { Executor } from '../../shared/db/index.js';
import type { KnownDevicesTable } from '../../shared/db/schema.js';

// Sign-in attempts: rows in the database, so every instance behind a load balancer counts the same.

/**
 * Records one attempt in each of its buckets, before the credential is checked. Its own statement,
 * committed before `attemptsSince` runs: of concurrent attempts, the one whose insert commits k-th
 * then reads at least k rows, so no more than `limit` of them can read a count within the limit,
 * on any number of instances. (One statement that inserted and counted would read a snapshot taken
 * before the others' inserts, and let them all through.)
 */
export async function insertAttempt(db: Executor, attemptId: string, buckets: string[], at: number): Promise<void> {
  await db
    .insertInto('sign_in_attempts')
    .values(buckets.map((bucket) => ({ bucket, at, attempt_id: attemptId })))
    .execute();
}

/** The attempts of these buckets inside the window (failures, and attempts still being checked), oldest first. */
export async function attemptsSince(db: Executor, buckets: string[], since: number) {
  const rows = await db
    .selectFrom('sign_in_attempts')
    .select(['bucket', 'at', 'attempt_id'])
    .where('bucket', 'in', buckets)
    .where('at', '>', since)
    .orderBy('at', 'asc')
    .execute();
  return rows.map((r) => ({ bucket: r.bucket, at: Number(r.at), attemptId: r.attempt_id }));
}

/** Takes an attempt back (it succeeded, or it was refused before any check). */
export async function deleteAttempt(db: Executor, attemptId: string, buckets: string[], at: number): Promise<void> {
  await db
    .deleteFrom('sign_in_attempts')
    .where('bucket', 'in', buckets)
    .where('at', '=', at)
    .where('attempt_id', '=', attemptId)
    .execute();
}

/** Forgets a bucket's failures (the user's own typos, once they got it right). */
export async function clearBuckets(db: Executor, buckets: string[]): Promise<void> {
  if (buckets.length === 0) return;
  await db.deleteFrom('sign_in_attempts').where('bucket', 'in', buckets).execute();
}

/** Rows older than the window count for nothing; dropping them keeps the table small. */
export async function purgeAttempts(db: Executor, before: number): Promise<void> {
  await db.deleteFrom('sign_in_attempts').where('at', '<=', before).execute();
}

// Known devices: browsers a user signed in from (cookie `ruta_device`).

/** The device row of this token, when it is this user's and still valid. */
export async function knownDevice(db: Executor, tokenHash: string, userId: string, now: number) {
  return db
    .selectFrom('known_devices')
    .select(['token_hash', 'user_id', 'expires_at'])
    .where('token_hash', '=', tokenHash)
    .where('user_id', '=', userId)
    .where('expires_at', '>', now)
    .executeTakeFirst();
}

export async function insertDevice(db: Executor, row: KnownDevicesTable): Promise<void> {
  await db.insertInto('known_devices').values(row).execute();
}

export async function touchDevice(db: Executor, tokenHash: string, now: number, expiresAt: number): Promise<void> {
  await db
    .updateTable('known_devices')
    .set({ last_used_at: now, expires_at: expiresAt })
    .where('token_hash', '=', tokenHash)
    .execute();
}

/** A device whose cookie a browser replaced, or one that has expired, is only a row to drop. */
export async function deleteDevice(db: Executor, tokenHash: string): Promise<void> {
  await db.deleteFrom('known_devices').where('token_hash', '=', tokenHash).execute();
}

export async function purgeExpiredDevices(db: Executor, userId: string, now: number): Promise<void> {
  await db.deleteFrom('known_devices').where('user_id', '=', userId).where('expires_at', '<=', now).execute();
}

/** After an admin's password reset: no browser counts as the user's any more. */
export async function deleteDevicesOf(db: Executor, userId: string): Promise<void> {
  await db.deleteFrom('known_devices').where('user_id', '=', userId).execute();
}
