import type { Executor } from './index.js';

/**
 * A process-wide setting kept in the database so every instance agrees on it. The first writer
 * wins; everyone then reads that value.
 */
export async function getOrCreateSetting(db: Executor, key: string, make: () => string): Promise<string> {
  await db
    .insertInto('settings')
    .values({ key, value: make() })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  const row = await db.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirstOrThrow();
  return row.value;
}
