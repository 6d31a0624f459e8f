import { accountNamed } from '../../shared/access.js';
import type { Principal } from '../../shared/auth.js';
import type { Config } from '../../shared/config.js';
import type { AppContext } from '../../shared/context.js';
import type { Mode } from '../../shared/db/schema.js';
import { ApiError, noSuchAccount, notFound } from '../../shared/errors.js';
import { isTimezone } from '../../shared/local-time.js';
import { iso } from '../../shared/time.js';
import * as accounts from './repo.js';
import type { Account, AccountCreate, AccountUpdate, ApiKey, CreatedAccount, CreatedApiKey } from './schemas.js';
import { createAccount as createAccountWithKeys, createKey, forgetAccount, revoke } from './service.js';
import { zoneOfAccount } from './zone.js';

/** A rolled key keeps working this long, so the merchant can deploy its successor (DESIGN §8). */
export const ROLL_OVERLAP_MS = 24 * 60 * 60 * 1000;

export function presentAccount(a: accounts.AccountRow, config: Config): Account {
  return {
    id: a.id,
    object: 'account',
    name: a.name,
    currency: a.currency,
    origin: a.origin_lat === null || a.origin_lng === null ? null : { lat: a.origin_lat, lng: a.origin_lng },
    pricing: a.pricing,
    timezone: a.timezone,
    depot: a.depot_id,
    branding: { display_name: a.brand_name, color: a.brand_color, logo_file: a.brand_logo_file },
    effective_timezone: zoneOfAccount(a, config),
    created_at: iso(a.created_at),
  };
}

/** A zone and a depot an account may name: a zone Intl knows, a depot of either environment. */
async function checkZone(ctx: AppContext, body: Pick<AccountUpdate, 'timezone' | 'depot'>): Promise<void> {
  if (body.timezone != null && !isTimezone(body.timezone)) {
    throw new ApiError(
      'parameter_invalid',
      `Invalid timezone: '${body.timezone}' is not an IANA time zone (e.g. America/Lima).`,
      'timezone',
    );
  }
  if (body.depot != null && (await accounts.depotZone(ctx.db, body.depot)) === undefined) {
    throw new ApiError('parameter_invalid', `Invalid depot: no such depot '${body.depot}'.`, 'depot');
  }
}

export async function listAccounts(ctx: AppContext) {
  // A carrier serves tens of merchants, not thousands: one page.
  const rows = await accounts.listAccounts(ctx.db);
  return { object: 'list' as const, data: rows.map((a) => presentAccount(a, ctx.config)), has_more: false };
}

export async function getAccount(ctx: AppContext, id: string): Promise<Account> {
  const a = await accounts.findAccount(ctx.db, id);
  if (!a) throw notFound('account', id);
  return presentAccount(a, ctx.config);
}

/**
 * What `ruta accounts create` does, over the API: the account and its first two secret keys (test
 * and live), in one transaction. The keys are in this answer only; only their hashes are kept.
 */
export async function createAccount(ctx: AppContext, body: AccountCreate): Promise<CreatedAccount> {
  const name = body.name.trim();
  if (name === '') throw new ApiError('parameter_invalid', 'Invalid name: it is blank.', 'name');
  await checkZone(ctx, body);
  const { account, keys } = await createAccountWithKeys(ctx, {
    name,
    currency: body.currency,
    originLat: body.origin?.lat,
    originLng: body.origin?.lng,
    pricing: body.pricing ?? null,
    timezone: body.timezone ?? null,
    depotId: body.depot ?? null,
  });
  return { ...presentAccount(account, ctx.config), keys };
}

export async function updateAccount(ctx: AppContext, id: string, body: AccountUpdate): Promise<Account> {
  if (!(await accounts.findAccount(ctx.db, id))) throw notFound('account', id);
  if (body.name !== undefined && body.name.trim() === '') {
    throw new ApiError('parameter_invalid', 'Invalid name: it is blank.', 'name');
  }
  await checkZone(ctx, body);
  const b = body.branding;
  if (b?.logo_file != null && !(await accounts.isLogo(ctx.db, b.logo_file, id))) {
    throw new ApiError('parameter_invalid', `Invalid logo_file: no logo file '${b.logo_file}'.`, 'branding.logo_file');
  }
  const row = await accounts.updateAccount(ctx.db, id, {
    ...(b?.display_name === undefined ? {} : { brand_name: b.display_name?.trim() || null }),
    ...(b?.color === undefined ? {} : { brand_color: b.color }),
    ...(b?.logo_file === undefined ? {} : { brand_logo_file: b.logo_file }),
    ...(body.name === undefined ? {} : { name: body.name.trim() }),
    ...(body.currency === undefined ? {} : { currency: body.currency }),
    ...(body.origin === undefined
      ? {}
      : { origin_lat: body.origin?.lat ?? null, origin_lng: body.origin?.lng ?? null }),
    ...(body.pricing === undefined ? {} : { pricing: body.pricing }),
    ...(body.timezone === undefined ? {} : { timezone: body.timezone }),
    ...(body.depot === undefined ? {} : { depot_id: body.depot }),
  });
  if (!row) throw notFound('account', id);
  // Quotes and new orders on this instance use the new pricing and zone at once (others within
  // the cache TTL); orders already created keep the zone they were created with.
  forgetAccount(ctx, id);
  return presentAccount(row, ctx.config);
}

export function presentKey(k: accounts.KeyListing): ApiKey {
  return {
    id: k.id,
    object: 'api_key',
    account: k.account_id,
    role: k.role,
    mode: k.mode,
    display: k.display,
    created_at: iso(k.created_at),
    revoked_at: k.revoked_at === null ? null : iso(k.revoked_at),
    expires_at: k.expires_at === null ? null : iso(k.expires_at),
  };
}

/**
 * Which keys a signed-in user manages: an admin any account's and the operator keys; a merchant
 * user its own account's (another, in `?account=` or the body, is 403: accountNamed). `account`
 * null means the operator keys. Keys themselves never manage keys (requireUser refuses them): a
 * leaked key must not mint more keys or roll its owner's away.
 */
function keyAccount(user: Principal, requested: string | undefined): string | null {
  if (user.role === 'admin') return requested ?? null;
  if (user.role === 'merchant' && user.accountId) {
    accountNamed(user, requested);
    return user.accountId;
  }
  throw new ApiError('permission_denied', 'Only admins and merchant users manage API keys.');
}

export async function listKeys(ctx: AppContext, user: Principal, account: string | undefined) {
  const accountId = keyAccount(user, account);
  if (accountId !== null && !(await accounts.findAccount(ctx.db, accountId))) throw noSuchAccount(accountId);
  const rows = await accounts.keysOf(ctx.db, accountId);
  return { object: 'list' as const, data: rows.map(presentKey), has_more: false };
}

async function keyInReach(ctx: AppContext, user: Principal, id: string) {
  const key = await accounts.findKey(ctx.db, id);
  // Another account's key is 404, as everywhere: nothing says it exists.
  if (!key || (user.role !== 'admin' && (user.role !== 'merchant' || key.account_id !== user.accountId))) {
    throw notFound('api_key', id);
  }
  return key;
}

async function created(ctx: AppContext, role: 'merchant' | 'operator', mode: Mode, accountId: string | null) {
  const made = await createKey(ctx, { role, mode, accountId });
  const row = await accounts.findKey(ctx.db, made.id);
  if (!row) throw new Error('key vanished after insert');
  return { ...presentKey(row), secret: made.secret } satisfies CreatedApiKey;
}

export async function createApiKey(ctx: AppContext, user: Principal, body: { mode: Mode; account?: string }) {
  const accountId = keyAccount(user, body.account);
  if (accountId !== null && !(await accounts.findAccount(ctx.db, accountId))) {
    throw new ApiError('parameter_invalid', `Invalid account: no such account '${accountId}'.`, 'account');
  }
  return created(ctx, accountId === null ? 'operator' : 'merchant', body.mode, accountId);
}

/** A new key of the same kind; the old one keeps working for ROLL_OVERLAP_MS (or less, if it already expires sooner). */
export async function rollApiKey(ctx: AppContext, user: Principal, id: string) {
  const old = await keyInReach(ctx, user, id);
  const now = ctx.clock();
  if (old.revoked_at !== null || (old.expires_at !== null && old.expires_at <= now)) {
    throw new ApiError('parameter_invalid', `Key ${id} no longer works; create a new key instead.`, 'id');
  }
  const fresh = await created(ctx, old.role, old.mode, old.account_id);
  const until = Math.min(old.expires_at ?? Number.POSITIVE_INFINITY, now + ROLL_OVERLAP_MS);
  await accounts.expireKey(ctx.db, old.id, until);
  return fresh;
}

export async function revokeApiKey(ctx: AppContext, user: Principal, id: string): Promise<ApiKey> {
  await keyInReach(ctx, user, id);
  await revoke(ctx, id);
  const row = await accounts.findKey(ctx.db, id);
  if (!row) throw notFound('api_key', id);
  return presentKey(row);
}
