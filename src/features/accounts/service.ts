import type { Principal } from '../../shared/auth.js';
import type { AppContext } from '../../shared/context.js';
import { isCurrency } from '../../shared/currency.js';
import type { Db, Executor } from '../../shared/db/index.js';
import type { Mode, Role } from '../../shared/db/schema.js';
import { newId, randomToken, sha256Hex } from '../../shared/ids.js';
import { instanceKey } from '../../shared/instance.js';
import { isTimezone } from '../../shared/local-time.js';
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

export function createKey(
  ctx: AppContext,
  opts: { role: Role; mode: Mode; accountId: string | null },
): Promise<CreatedKey> {
  return insertNewKey(ctx.db, ctx.clock(), opts);
}

/** A new key written through `db` (the caller's transaction when the account is new too). */
async function insertNewKey(
  db: Executor,
  now: number,
  opts: { role: Role; mode: Mode; accountId: string | null },
): Promise<CreatedKey> {
  const prefix = opts.role === 'operator' ? 'ok' : 'sk';
  const secret = `${prefix}_${opts.mode}_${randomToken(32)}`;
  const id = newId('key', now);
  await repo.insertKey(db, {
    id,
    account_id: opts.accountId,
    role: opts.role,
    mode: opts.mode,
    key_hash: hashKey(secret),
    display: `${secret.slice(0, 12)}…${secret.slice(-4)}`,
    created_at: now,
    revoked_at: null,
    expires_at: null,
  });
  return { id, secret, mode: opts.mode, role: opts.role };
}

export async function createAccount(
  ctx: AppContext,
  opts: {
    name: string;
    currency?: string;
    originLat?: number;
    originLng?: number;
    /** Overrides of the configured default pricing; absent or null: the defaults. */
    pricing?: repo.AccountRow['pricing'];
    /** IANA zone of the account's days; absent or null: the carrier's. */
    timezone?: string | null;
    /** The depot its parcels leave from; its zone wins over `timezone`. */
    depotId?: string | null;
  },
): Promise<{ account: repo.AccountRow; keys: { test: string; live: string } }> {
  const currency = (opts.currency ?? ctx.config.defaultCurrency).toUpperCase();
  if (!isCurrency(currency)) throw new Error(`currency must be an ISO 4217 code, got "${currency}"`);
  if (opts.name.trim() === '') throw new Error('name must not be empty');
  if (opts.timezone != null && !isTimezone(opts.timezone)) {
    throw new Error(`timezone must be an IANA time zone such as America/Lima, got "${opts.timezone}"`);
  }
  const depotTimezone = opts.depotId == null ? null : await repo.depotZone(ctx.db, opts.depotId);
  if (depotTimezone === undefined) throw new Error(`no such depot '${opts.depotId}'`);
  const now = ctx.clock();
  const account: repo.AccountRow = {
    id: newId('acct', now),
    name: opts.name,
    currency,
    pricing: opts.pricing ?? null,
    origin_lat: opts.originLat ?? null,
    origin_lng: opts.originLng ?? null,
    created_at: now,
    timezone: opts.timezone ?? null,
    depot_id: opts.depotId ?? null,
    depot_timezone: depotTimezone,
    brand_name: null,
    brand_color: null,
    brand_logo_file: null,
  };
  return ctx.db.transaction().execute(async (trx) => {
    await repo.insertAccount(trx, account);
    const test = await insertNewKey(trx, now, { role: 'merchant', mode: 'test', accountId: account.id });
    const live = await insertNewKey(trx, now, { role: 'merchant', mode: 'live', accountId: account.id });
    return { account, keys: { test: test.secret, live: live.secret } };
  });
}

/** Resolves a bearer secret to its principal; undefined for malformed, unknown or revoked keys. */
export async function authenticate(db: Db, secret: string, now: number): Promise<Principal | undefined> {
  if (!KEY_PATTERN.test(secret)) return undefined;
  const key = await repo.findKeyByHash(db, hashKey(secret));
  if (!key || key.revoked_at !== null) return undefined;
  // A rolled key keeps working until its expiry (24 h after the roll).
  if (key.expires_at !== null && key.expires_at <= now) return undefined;
  return { kind: 'key', keyId: key.id, role: key.role, mode: key.mode, accountId: key.account_id };
}

/** Forgets the cached row after an edit, so new pricing applies at once on this instance. */
/** Drops the cached row after an edit, so this instance answers with the new one at once. */
export function forgetAccount(ctx: AppContext, id: string): void {
  ctx.instance.peek(ACCOUNT_CACHE)?.delete(id);
}

export async function revoke(ctx: AppContext, id: string): Promise<boolean> {
  return repo.revokeKey(ctx.db, id, ctx.clock());
}

/** How long an account row (currency, pricing, origin, zone) is reused before it is read again. */
export const ACCOUNT_CACHE_TTL_MS = 30_000;
const ACCOUNT_CACHE_MAX = 1000;

/**
 * Accounts are read on every create and quote and change rarely (an admin's edit), so each app
 * instance keeps the row for ACCOUNT_CACHE_TTL_MS: an edit applies at once on the instance that made
 * it (`forgetAccount`) and within that time on the others. Bounded: the oldest entry goes first (a
 * Map keeps insertion order). API keys are deliberately not cached: a revocation applies at once.
 */
class AccountCache extends Map<string, { row: repo.AccountRow; until: number }> {
  close(): void {
    this.clear();
  }
}
const ACCOUNT_CACHE = instanceKey('accounts:cache', () => new AccountCache());

export async function accountById(ctx: AppContext, id: string): Promise<repo.AccountRow | undefined> {
  const cache = ctx.instance.get(ACCOUNT_CACHE);
  const now = ctx.clock();
  const hit = cache.get(id);
  if (hit && hit.until > now) return hit.row;
  const row = await repo.findAccount(ctx.db, id);
  cache.delete(id);
  if (row) {
    if (cache.size >= ACCOUNT_CACHE_MAX) cache.delete(cache.keys().next().value as string);
    cache.set(id, { row, until: now + ACCOUNT_CACHE_TTL_MS });
  }
  return row;
}
