import type { Config } from '../../shared/config.js';
import type { AppContext } from '../../shared/context.js';
import type { AccountRow } from './repo.js';
import { accountById } from './service.js';

/**
 * Which zone an order's days are read in (docs/api.md "Dates and time zones"): the zone of the
 * depot its account's parcels leave from, else the account's own, else the carrier's
 * (RUTA_DEFAULT_TIMEZONE). Fixed on the order when it is created.
 */
export function zoneOfAccount(account: Pick<AccountRow, 'timezone' | 'depot_timezone'>, config: Config): string {
  return account.depot_timezone ?? account.timezone ?? config.defaultTimezone;
}

/** The zone of a caller's days: its account's, or, for the carrier (no account), the carrier's. */
export async function zoneOfScope(ctx: AppContext, accountId: string | null): Promise<string> {
  const account = accountId === null ? undefined : await accountById(ctx, accountId);
  return account ? zoneOfAccount(account, ctx.config) : ctx.config.defaultTimezone;
}
