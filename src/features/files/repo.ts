import type { Scope } from '../../shared/auth.js';
import type { Executor } from '../../shared/db/index.js';
import type { FilesTable } from '../../shared/db/schema.js';

export async function insertFile(db: Executor, row: FilesTable): Promise<void> {
  await db.insertInto('files').values(row).execute();
}

export async function findFile(db: Executor, id: string): Promise<FilesTable | undefined> {
  return db.selectFrom('files').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findFileInScope(db: Executor, scope: Scope, id: string): Promise<FilesTable | undefined> {
  let q = db.selectFrom('files').selectAll().where('id', '=', id).where('mode', '=', scope.mode);
  if (scope.accountId !== null) q = q.where('account_id', '=', scope.accountId);
  return q.executeTakeFirst();
}

/** One page of every file row in id order, for `ruta files migrate` (resumes from any id). */
export async function listFilesAfter(db: Executor, afterId: string, limit: number): Promise<FilesTable[]> {
  return db.selectFrom('files').selectAll().where('id', '>', afterId).orderBy('id').limit(limit).execute();
}

export async function countFiles(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('files')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}
