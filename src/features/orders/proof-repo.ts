import { precompiled } from '../../shared/db/compiled.js';
import type { Executor } from '../../shared/db/index.js';
import type { ProofLevels } from '../../shared/db/tables/proof_settings.js';

/** The carrier's defaults live under this account id (as message_settings'). */
export const CARRIER = '*';

/** Precompiled: every create reads them. */
const settingsOf = precompiled((db, accountIds: readonly string[]) =>
  db
    .selectFrom('proof_settings')
    .select(['account_id', 'signature', 'photo', 'pin', 'id_check', 'age_check'])
    .where('account_id', 'in', accountIds),
);

export async function proofSettingsOf(db: Executor, accountIds: string[]): Promise<Map<string, ProofLevels>> {
  const rows = await settingsOf(db, accountIds);
  return new Map(rows.map(({ account_id, ...levels }) => [account_id, levels]));
}

export async function putProofSettings(db: Executor, accountId: string, levels: ProofLevels, now: number) {
  await db
    .insertInto('proof_settings')
    .values({ account_id: accountId, ...levels, updated_at: now })
    .onConflict((oc) => oc.column('account_id').doUpdateSet({ ...levels, updated_at: now }))
    .execute();
}
