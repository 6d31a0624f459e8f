import { afterAll, beforeAll, expect, it } from 'vitest';
import { findKeyByHash } from '../src/features/accounts/repo.js';
import { proofSettingsOf, putProofSettings } from '../src/features/orders/proof-repo.js';
import { precompiled } from '../src/shared/db/compiled.js';
import { type Database, openDatabase } from '../src/shared/db/index.js';
import { migrate } from '../src/shared/db/migrate.js';
import { describeEach, freshDatabaseUrl, type TestDb } from './helpers.js';

const LEVELS = { signature: 'required', photo: 'optional', pin: 'off', id_check: 'off', age_check: 'off' } as const;

/** db/compiled.ts: queries compiled once and, on SQLite, run on the connection without Kysely's driver. */
describeEach('precompiled queries', (engine) => {
  let tdb: TestDb;
  let database: Database;

  beforeAll(async () => {
    tdb = await freshDatabaseUrl(engine);
    database = openDatabase(tdb.url);
    await migrate(database);
  });
  afterAll(async () => {
    await database?.close();
    await tdb?.drop();
  });

  it('answers as the Kysely query would, for each list length and argument', async () => {
    const { db } = database;
    await putProofSettings(db, 'acct_a', LEVELS, 1);
    await putProofSettings(db, 'acct_b', { ...LEVELS, photo: 'required' }, 2);
    const built = (ids: string[]) =>
      db
        .selectFrom('proof_settings')
        .select(['account_id', 'signature', 'photo', 'pin', 'id_check', 'age_check'])
        .where('account_id', 'in', ids)
        .orderBy('account_id')
        .execute();
    const pre = precompiled((d, ids: readonly string[], photo: string) =>
      d
        .selectFrom('proof_settings')
        .select(['account_id', 'signature', 'photo', 'pin', 'id_check', 'age_check'])
        .where('account_id', 'in', ids)
        .where('photo', '!=', photo as never)
        .where('pin', '=', 'off')
        .orderBy('account_id'),
    );
    for (const ids of [['acct_a'], ['acct_a', 'acct_b'], ['acct_b', 'acct_x', 'acct_a'], ['acct_x']]) {
      expect(await pre(db, ids, 'none')).toEqual(await built(ids));
    }
    // The same compiled text with other arguments: nothing of the first call is kept.
    expect((await pre(db, ['acct_a', 'acct_b'], 'required')).map((r) => r.account_id)).toEqual(['acct_a']);
    expect([...(await proofSettingsOf(db, ['acct_b', '*'])).keys()]).toEqual(['acct_b']);
    expect(await findKeyByHash(db, 'no such hash')).toBeUndefined();
  });

  // SQLite's one connection is what the direct path shares (PostgreSQL's reads go through Kysely and the pool).
  it.runIf(engine === 'sqlite')(
    'never reads inside another caller’s open transaction: it waits for the commit',
    async () => {
      const { db } = database;
      let reads: (string | undefined)[] = [];
      await db
        .transaction()
        .execute(async (trx) => {
          await putProofSettings(trx, 'acct_t', LEVELS, 3);
          // Started while the transaction is open (and, on SQLite, holds the only connection).
          const outside = proofSettingsOf(db, ['acct_t']).then((m) => m.get('acct_t')?.signature);
          // Inside the transaction, its own write is visible.
          const inside = (await proofSettingsOf(trx, ['acct_t'])).get('acct_t')?.signature;
          await new Promise((r) => setTimeout(r, 20));
          reads = [
            inside,
            await Promise.race([outside, new Promise<string>((r) => setTimeout(() => r('waiting'), 0))]),
          ];
          // Handed out in a box: returning the promise itself would make the transaction wait for it.
          return { outside };
        })
        .then(async ({ outside }) => reads.push(await outside));
      // SQLite: the outside read waited for the commit and then saw it; PostgreSQL: it ran at once on
      // another connection and saw nothing uncommitted.
      expect(reads).toEqual(
        engine === 'sqlite' ? ['required', 'waiting', 'required'] : ['required', undefined, undefined],
      );
    },
  );
});
