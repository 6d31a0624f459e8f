import type { FastifyRequest } from 'fastify';
import { courierRefused, isCarrier, type Principal, principalOf, type Scope } from './auth.js';
import { ApiError, noSuchAccount } from './errors.js';

/**
 * Who may drive deliveries (lifecycle moves, couriers, routes, proof files): the carrier (operator
 * keys, admins, dispatchers) across every account of their environment, and merchants in test
 * mode on their own data (the sandbox). Live merchants get 403: in production only the carrier
 * moves parcels. A courier session only where the route says so (`courier: true`), and then only
 * on what is assigned to it (the scope carries its id).
 */
export function requireMover(req: FastifyRequest, opts: { courier?: boolean } = {}): Scope {
  const p = principalOf(req);
  if (p.role === 'courier') {
    if (!opts.courier || !p.courierId) throw courierRefused();
    return { mode: p.mode, accountId: p.accountId, courierId: p.courierId };
  }
  if (isCarrier(p)) return { mode: p.mode, accountId: null };
  if (p.mode === 'test' && p.accountId) return { mode: 'test', accountId: p.accountId };
  throw new ApiError(
    'permission_denied',
    'Live secret keys cannot drive deliveries; use an operator key, or a test key to simulate one in the sandbox.',
  );
}

/**
 * The carrier only: operator keys, admins, dispatchers (e.g. issuing a courier's sign-in code). A
 * courier session only where the route says so (`courier: true`, e.g. its own cash), and then only
 * on what is its own (the scope carries its id); a merchant never.
 */
export function requireCarrier(req: FastifyRequest, opts: { courier?: boolean } = {}): Scope {
  const p = principalOf(req);
  if (p.role === 'courier') {
    if (!opts.courier || !p.courierId) throw courierRefused();
    return { mode: p.mode, accountId: p.accountId, courierId: p.courierId };
  }
  if (!isCarrier(p))
    throw new ApiError('permission_denied', 'Only the carrier (operator keys, admins, dispatchers) may do this.');
  return { mode: p.mode, accountId: null };
}

/** A signed-in person (not a key, not a courier's phone). */
export function requireUser(req: FastifyRequest): Principal & { userId: string } {
  const p = principalOf(req);
  if (p.kind !== 'user' || !p.userId) {
    throw new ApiError('permission_denied', 'This needs a signed-in user (POST /v1/session); API keys cannot do it.');
  }
  return p as Principal & { userId: string };
}

/** Admins only: users, invitations, accounts and their pricing, operator keys. */
export function requireAdmin(req: FastifyRequest): Principal & { userId: string } {
  const p = requireUser(req);
  if (p.role !== 'admin') throw new ApiError('permission_denied', 'Only an admin may do this.');
  return p;
}

/**
 * `?account=` as a merchant sends it (its secret key or a merchant user's session), one rule for
 * every endpoint that takes it (docs/api.md, "Naming an account"): its own account is the same as
 * leaving `account` out, so undefined is returned; any other is 403 naming `account`, the same
 * answer whether that account exists or not, so it tells nothing about other accounts (as Stripe's
 * 403 for an account a key cannot act for: "… (or that account does not exist)"). Anyone else gets
 * the value back as it came: the carrier's rule (a filter, or the account a request acts for) is
 * the endpoint's, and a courier's answer its route's. A malformed id never gets here: the schema
 * refuses it first (422 naming `account`, for every caller).
 */
export function accountNamed(p: Principal, account: string | undefined): string | undefined {
  if (p.role !== 'merchant' || !p.accountId) return account;
  if (account !== undefined && account !== p.accountId) {
    throw new ApiError(
      'permission_denied',
      `A merchant's key or user acts for its own account only (${p.accountId}); leave out account.`,
      'account',
    );
  }
  return undefined;
}

/** A route's query as its endpoint should see it: `account` through accountNamed (a merchant's own is left out). */
export function withAccountNamed<Q extends { account?: string }>(req: FastifyRequest, query: Q): Q {
  return { ...query, account: accountNamed(principalOf(req), query.account) };
}

/**
 * Whose account settings the caller works on (customer messages, proof settings): a merchant its
 * own account's (naming another in `account` is 403, accountNamed); the carrier (operator keys,
 * admins and dispatchers, whose sessions answer as the operator key they stand for) the merchant
 * named by `account`, which must exist, or without it the defaults every account without its own
 * uses (`null`). Couriers none. `exists` is the accounts feature's lookup
 * (shared/ imports no feature).
 */
export async function settingsOwner(
  req: FastifyRequest,
  what: string,
  account: string | undefined,
  exists: (accountId: string) => Promise<boolean>,
): Promise<string | null> {
  const p = principalOf(req);
  if (p.role === 'merchant' && p.accountId) {
    accountNamed(p, account);
    return p.accountId;
  }
  if (!isCarrier(p)) {
    throw new ApiError(
      'permission_denied',
      p.role === 'courier'
        ? `A courier session cannot see ${what}.`
        : `Only a merchant (its own settings) or the carrier may see or change ${what}.`,
    );
  }
  if (account === undefined) return null;
  if (!(await exists(account))) throw noSuchAccount(account);
  return account;
}
