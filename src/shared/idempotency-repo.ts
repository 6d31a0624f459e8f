import type { Executor } from './db/index.js';
import type { IdempotencyKeysTable, Mode } from './db/schema.js';

export interface KeyRef {
  owner: string;
  mode: Mode;
  key: string;
}

/** Inserts an in-flight row unless one exists; true when this call created it (race-safe on both engines). */
export async function tryInsert(db: Executor, row: IdempotencyKeysTable): Promise<boolean> {
  const res = await db
    .insertInto('idempotency_keys')
    .values(row)
    .onConflict((oc) => oc.columns(['owner', 'mode', 'key']).doNothing())
    .executeTakeFirst();
  return Number(res.numInsertedOrUpdatedRows ?? 0) === 1;
}

export async function find(db: Executor, ref: KeyRef): Promise<IdempotencyKeysTable | undefined> {
  return db
    .selectFrom('idempotency_keys')
    .selectAll()
    .where('owner', '=', ref.owner)
    .where('mode', '=', ref.mode)
    .where('key', '=', ref.key)
    .executeTakeFirst();
}

/**
 * Takes over a row whose lock or lifetime ran out. The compare-and-set on the observed
 * `locked_at` lets exactly one of several racing instances win.
 */
export async function takeOver(
  db: Executor,
  ref: KeyRef,
  observedLockedAt: number,
  next: Pick<IdempotencyKeysTable, 'fingerprint' | 'locked_at' | 'expires_at'>,
): Promise<boolean> {
  const res = await db
    .updateTable('idempotency_keys')
    .set({ ...next, response_status: null, response_body: null })
    .where('owner', '=', ref.owner)
    .where('mode', '=', ref.mode)
    .where('key', '=', ref.key)
    .where('locked_at', '=', observedLockedAt)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** Stores the response of the request holding the lock (`lockedAt` identifies that holder). */
export async function complete(
  db: Executor,
  ref: KeyRef,
  lockedAt: number,
  status: number,
  body: string,
): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .set({ response_status: status, response_body: body })
    .where('owner', '=', ref.owner)
    .where('mode', '=', ref.mode)
    .where('key', '=', ref.key)
    .where('locked_at', '=', lockedAt)
    .where('response_status', 'is', null)
    .execute();
}

/** Frees the key (after a 5xx) so the client may retry; only the holder's own row is deleted. */
export async function release(db: Executor, ref: KeyRef, lockedAt: number): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('owner', '=', ref.owner)
    .where('mode', '=', ref.mode)
    .where('key', '=', ref.key)
    .where('locked_at', '=', lockedAt)
    .where('response_status', 'is', null)
    .execute();
}

export async function purgeExpired(db: Executor, now: number): Promise<number> {
  const res = await db.deleteFrom('idempotency_keys').where('expires_at', '<=', now).executeTakeFirst();
  return Number(res.numDeletedRows);
}
