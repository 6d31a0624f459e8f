import type { Principal } from '../../shared/auth.js';
import type { Config } from '../../shared/config.js';
import type { Db, Executor } from '../../shared/db/index.js';
import type { Mode, Role } from '../../shared/db/schema.js';
import { newId, randomToken, sha256Hex } from '../../shared/ids.js';
import * as repo from './repo.js';

export interface CreatedKey {
  id: string;
  secret: string;
  mode: Mode;
  role: Role;
}

const KEY_PATTERN = /^(sk|ok)_(test|live)_[0-9A-Za-z]{32}$/;

/** Keys carry 190 random bits, so a fast hash is enough: nothing to brute-force, no salt needed. */
export const hashKey = (secret: string): string => sha256Hex(secret);

export async function createKey(
  db: Executor,
  opts: { role: Role; mode: Mode; accountId: string | null },
): Promise<CreatedKey> {
  const prefix = opts.role === 'operator' ? 'ok' : 'sk';
  const secret = `${prefix}_${opts.mode}_${randomToken(32)}`;
  const id = newId('key');
  await repo.insertKey(db, {
    id,
    account_id: opts.accountId,
    role: opts.role,
    mode: opts.mode,
    key_hash: hashKey(secret),
    display: `${secret.slice(0, 12)}…${secret.slice(-4)}`,
    created_at: Date.now(),
    revoked_at: null,
    expires_at: null,
  });
  return { id, secret, mode: opts.mode, role: opts.role };
}

export async function createAccount(
  db: Db,
  config: Config,
  opts: {
    name: string;
    currency?: string;
    originLat?: number;
    originLng?: number;
    /** Overrides of the configured default pricing; absent or null: the defaults. */
    pricing?: repo.AccountRow['pricing'];
  },
): Promise<{ account: repo.AccountRow; keys: { test: string; live: string } }> {
  const currency = (opts.currency ?? config.defaultCurrency).toUpperCase();
  if (!/^[A-Z]{3}$/.test(currency)) throw new Error(`currency must be an ISO 4217 code, got "${currency}"`);
  if (opts.name.trim() === '') throw new Error('name must not be empty');
  const account: repo.AccountRow = {
    id: newId('acct'),
    name: opts.name,
    currency,
    pricing: opts.pricing ?? null,
    origin_lat: opts.originLat ?? null,
    origin_lng: opts.originLng ?? null,
    created_at: Date.now(),
  };
  return db.transaction().execute(async (trx) => {
    await repo.insertAccount(trx, account);
    const test = await createKey(trx, { role: 'merchant', mode: 'test', accountId: account.id });
    const live = await createKey(trx, { role: 'merchant', mode: 'live', accountId: account.id });
    return { account, keys: { test: test.secret, live: live.secret } };
  });
}

/** Resolves a bearer secret to its principal; undefined for malformed, unknown or revoked keys. */
export async function authenticate(db: Db, secret: string, now = Date.now()): Promise<Principal | undefined> {
  if (!KEY_PATTERN.test(secret)) return undefined;
  const key = await repo.findKeyByHash(db, hashKey(secret));
  if (!key || key.revoked_at !== null) return undefined;
  // A rolled key keeps working until its expiry (24 h after the roll).
  if (key.expires_at !== null && key.expires_at <= now) return undefined;
  return { kind: 'key', keyId: key.id, role: key.role, mode: key.mode, accountId: key.account_id };
}

/** Forgets the cached row after an edit, so new pricing applies at once on this instance. */
export function forgetAccount(db: Executor, id: string): void {
  accountCache.get(db)?.delete(id);
}

export async function revoke(db: Db, id: string): Promise<boolean> {
  return repo.revokeKey(db, id, Date.now());
}

/** How long an account row (currency, pricing, origin) is reused in-process before it is read again. */
export const ACCOUNT_CACHE_TTL_MS = 30_000;
const ACCOUNT_CACHE_MAX = 1000;
const accountCache = new WeakMap<Executor, Map<string, { row: repo.AccountRow; until: number }>>();

/**
 * Accounts are read on every create and quote but never change through the API (only by editing
 * the database), so the row is kept for ACCOUNT_CACHE_TTL_MS: a pricing edit takes up to that long
 * to apply. API keys are deliberately not cached here: a revocation applies at once.
 */
export async function accountById(db: Executor, id: string, now = Date.now()): Promise<repo.AccountRow | undefined> {
  let cache = accountCache.get(db);
  if (!cache) {
    cache = new Map();
    accountCache.set(db, cache);
  }
  const hit = cache.get(id);
  if (hit && hit.until > now) return hit.row;
  const row = await repo.findAccount(db, id);
  cache.delete(id);
  if (row) {
    // Bounded: the oldest entry goes first (Map keeps insertion order).
    if (cache.size >= ACCOUNT_CACHE_MAX) cache.delete(cache.keys().next().value as string);
    cache.set(id, { row, until: now + ACCOUNT_CACHE_TTL_MS });
  }
  return row;
}
