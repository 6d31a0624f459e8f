import type { FastifyRequest } from 'fastify';
import { accountNamed } from '../../shared/access.js';
import { isCarrier, type Owner, principalOf } from '../../shared/auth.js';
import type { AppContext } from '../../shared/context.js';
import { ApiError, noSuchAccount } from '../../shared/errors.js';
import { accountById } from '../accounts/service.js';

/**
 * Whose imports a request works on. A merchant: its own account (naming another in `account` is
 * 403, shared/access.ts accountNamed). The carrier (operator keys, admins, dispatchers) imports on
 * behalf of the merchant named by `account`, in the caller's environment: the set-up of a new
 * merchant is often the carrier's job. A courier's phone: never.
 */
export async function importOwner(ctx: AppContext, req: FastifyRequest, account: string | undefined): Promise<Owner> {
  const p = principalOf(req);
  if (p.role === 'merchant' && p.accountId) {
    accountNamed(p, account);
    return { accountId: p.accountId, mode: p.mode };
  }
  if (!isCarrier(p)) throw new ApiError('permission_denied', 'A courier session cannot perform this action.');
  if (account === undefined) {
    throw new ApiError(
      'parameter_missing',
      'Missing required parameter: account (the merchant account the orders are for).',
      'account',
    );
  }
  if (!(await accountById(ctx, account))) throw noSuchAccount(account);
  return { accountId: account, mode: p.mode };
}

/** onRequest: merchants and the carrier, before a 10 MiB body is read; which account is checked in the handler. */
export async function notCourier(req: FastifyRequest): Promise<void> {
  const p = principalOf(req);
  if (!(p.role === 'merchant' && p.accountId) && !isCarrier(p)) {
    throw new ApiError('permission_denied', 'A courier session cannot perform this action.');
  }
}
