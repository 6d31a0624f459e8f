import type { Scope } from '../../shared/auth.js';
import type { AppContext } from '../../shared/context.js';
import { ApiError } from '../../shared/errors.js';
import { signalJobs } from '../../shared/jobs/job.js';
import { iso } from '../../shared/time.js';
import { ensureSweep } from './job.js';
import * as repo from './repo.js';
import type { DispatchSettings, DispatchSettingsUpdate } from './schemas.js';

/** The carrier's auto-dispatch mode of the caller's environment, and every account's override. */
export async function getSettings(ctx: AppContext, scope: Scope): Promise<DispatchSettings> {
  const rows = await repo.allSettings(ctx.db, scope.mode);
  const carrier = rows.find((r) => r.account_id === repo.CARRIER);
  return {
    object: 'dispatch_settings',
    livemode: scope.mode === 'live',
    auto_dispatch: carrier?.auto_dispatch ?? 'off',
    accounts: rows
      .filter((r) => r.account_id !== repo.CARRIER)
      .map((r) => ({ account: r.account_id, auto_dispatch: r.auto_dispatch, updated_at: iso(r.updated_at) })),
    updated_at: carrier ? iso(carrier.updated_at) : null,
  };
}

/**
 * Changes the carrier's mode and/or accounts' overrides in one transaction. Turning `assign` on
 * starts the environment's sweep in that same transaction; it applies to orders created from then on.
 */
export async function putSettings(
  ctx: AppContext,
  scope: Scope,
  body: DispatchSettingsUpdate,
): Promise<DispatchSettings> {
  for (const [i, a] of (body.accounts ?? []).entries()) {
    if (!(await repo.accountExists(ctx.db, a.account))) {
      throw new ApiError(
        'parameter_invalid',
        `Invalid accounts[${i}].account: no such account '${a.account}'.`,
        `accounts[${i}].account`,
      );
    }
  }
  const now = ctx.clock();
  const started = await ctx.db.transaction().execute(async (trx) => {
    if (body.auto_dispatch !== undefined) {
      await repo.putSetting(trx, {
        mode: scope.mode,
        account_id: repo.CARRIER,
        auto_dispatch: body.auto_dispatch,
        updated_at: now,
      });
    }
    for (const a of body.accounts ?? []) {
      await repo.putSetting(trx, {
        mode: scope.mode,
        account_id: a.account,
        auto_dispatch: a.auto_dispatch,
        updated_at: now,
      });
    }
    return ensureSweep(ctx, trx, scope.mode);
  });
  if (started) signalJobs(ctx);
  return getSettings(ctx, scope);
}
