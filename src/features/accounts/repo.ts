import type { Pricing } from '../../shared/config-pricing.js';
import { precompiled } from '../../shared/db/compiled.js';
import type { Executor } from '../../shared/db/index.js';
import type { AccountsTable, ApiKeysTable } from '../../shared/db/schema.js';

/** An account, its pricing overrides parsed. */
export interface AccountRow extends Omit<AccountsTable, 'pricing'> {
  /** Overrides of the configured default pricing (minor units); null: the defaults. */
  pricing: Partial<Pricing> | null;
  /** The zone of its depot (`depot_id`), read with the account: it decides the zone of its orders' days. */
  depot_timezone: string | null;
}

export async function insertAccount(db: Executor, row: AccountRow): Promise<void> {
  const { depot_timezone: _zone, ...columns } = row;
  await db
    .insertInto('accounts')
    .values({ ...columns, pricing: row.pricing === null ? null : JSON.stringify(row.pricing) })
    .execute();
}

/** Accounts with their depot's zone: one read, so an order's zone costs nothing more than its account. */
function withDepot(db: Executor) {
  return db
    .selectFrom('accounts')
    .leftJoin('depots', 'depots.id', 'accounts.depot_id')
    .selectAll('accounts')
    .select('depots.timezone as depot_timezone');
}

type Joined = AccountsTable & { depot_timezone: string | null };
const parsed = (row: Joined): AccountRow => ({
  ...row,
  pricing: row.pricing === null ? null : JSON.parse(row.pricing),
});

export async function findAccount(db: Executor, id: string): Promise<AccountRow | undefined> {
  const row = await withDepot(db).where('accounts.id', '=', id).executeTakeFirst();
  return row && parsed(row);
}

/** The zone of a depot of any environment (an account's depot may be a test or a live one); undefined when none. */
export async function depotZone(db: Executor, id: string): Promise<string | undefined> {
  const row = await db.selectFrom('depots').select('timezone').where('id', '=', id).executeTakeFirst();
  return row?.timezone;
}

export async function insertKey(db: Executor, row: ApiKeysTable): Promise<void> {
  await db.insertInto('api_keys').values(row).execute();
}

/** Precompiled: every request with an API key reads its key (deliberately uncached: a revocation applies at once). */
const keyByHash = precompiled((db, hash: string) => db.selectFrom('api_keys').selectAll().where('key_hash', '=', hash));

export async function findKeyByHash(db: Executor, hash: string): Promise<ApiKeysTable | undefined> {
  return (await keyByHash(db, hash))[0];
}

export async function revokeKey(db: Executor, id: string, at: number): Promise<boolean> {
  const res = await db
    .updateTable('api_keys')
    .set({ revoked_at: at })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

export async function findKey(db: Executor, id: string): Promise<ApiKeysTable | undefined> {
  return db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Oldest first, as they were created. */
export async function listAccounts(db: Executor): Promise<AccountRow[]> {
  const rows = await withDepot(db).orderBy('accounts.created_at').orderBy('accounts.id').execute();
  return rows.map(parsed);
}

/** The key rows an administrator may see: never the hash. Operator keys have no account. */
export type KeyListing = Omit<ApiKeysTable, 'key_hash'>;

/** Sets when a key stops working (a roll keeps the old key for a while); never shortens a revocation. */
export async function expireKey(db: Executor, id: string, at: number): Promise<void> {
  await db
    .updateTable('api_keys')
    .set({ expires_at: at })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .execute();
}

export async function updateAccount(
  db: Executor,
  id: string,
  set: Partial<
    Pick<
      AccountRow,
      | 'name'
      | 'currency'
      | 'origin_lat'
      | 'origin_lng'
      | 'pricing'
      | 'timezone'
      | 'depot_id'
      | 'brand_name'
      | 'brand_color'
      | 'brand_logo_file'
    >
  >,
): Promise<AccountRow | undefined> {
  const { pricing, ...rest } = set;
  const values = pricing === undefined ? rest : { ...rest, pricing: pricing === null ? null : JSON.stringify(pricing) };
  if (Object.keys(values).length > 0) await db.updateTable('accounts').set(values).where('id', '=', id).execute();
  return findAccount(db, id);
}

/** Keys of one account, or the operator keys (account null). */
export async function keysOf(db: Executor, accountId: string | null): Promise<KeyListing[]> {
  return db
    .selectFrom('api_keys')
    .select(['id', 'account_id', 'role', 'mode', 'display', 'created_at', 'revoked_at', 'expires_at'])
    .where((eb) => (accountId === null ? eb('account_id', 'is', null) : eb('account_id', '=', accountId)))
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export async function listKeys(db: Executor, accountId?: string): Promise<KeyListing[]> {
  let q = db
    .selectFrom('api_keys')
    .select(['id', 'account_id', 'role', 'mode', 'display', 'created_at', 'revoked_at', 'expires_at'])
    .orderBy('created_at')
    .orderBy('id');
  if (accountId !== undefined) q = q.where('account_id', '=', accountId);
  return q.execute();
}

/** A file uploaded as a logo, by this account or by the carrier (operators upload for merchants). */
export async function isLogo(db: Executor, fileId: string, accountId: string): Promise<boolean> {
  const row = await db
    .selectFrom('files')
    .select('id')
    .where('id', '=', fileId)
    .where('purpose', '=', 'logo')
    .where((eb) => eb.or([eb('account_id', '=', accountId), eb('account_id', 'is', null)]))
    .executeTakeFirst();
  return row !== undefined;
}
