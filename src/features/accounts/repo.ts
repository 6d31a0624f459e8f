import type { Executor } from '../../shared/db/index.js';
import type { AccountsTable, ApiKeysTable } from '../../shared/db/schema.js';

export async function insertAccount(db: Executor, row: AccountsTable): Promise<void> {
  await db.insertInto('accounts').values(row).execute();
}

export async function findAccount(db: Executor, id: string): Promise<AccountsTable | undefined> {
  return db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function insertKey(db: Executor, row: ApiKeysTable): Promise<void> {
  await db.insertInto('api_keys').values(row).execute();
}

export async function findKeyByHash(db: Executor, hash: string): Promise<ApiKeysTable | undefined> {
  return db.selectFrom('api_keys').selectAll().where('key_hash', '=', hash).executeTakeFirst();
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
