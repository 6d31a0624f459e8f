import type { FastifyInstance, FastifyRequest } from 'fastify';
import { authenticate, type Principal } from '../features/accounts/service.js';
import type { Db } from './db/index.js';
import type { Mode } from './db/schema.js';
import { ApiError } from './errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
}

export type { Principal };

/** What a principal may see: one environment, and one account unless it is an operator. */
export interface Scope {
  mode: Mode;
  accountId: string | null;
}

/** Adds the bearer-key check to every route of `scope` (an encapsulated plugin: /v1 minus the public routes). */
export function installAuth(scope: FastifyInstance, db: Db): void {
  scope.addHook('onRequest', async (request) => {
    const header = request.headers.authorization;
    if (!header) {
      throw new ApiError('api_key_missing', 'No API key provided. Send it as "Authorization: Bearer <API_KEY>".');
    }
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    const principal = match ? await authenticate(db, match[1]) : undefined;
    if (!principal) throw new ApiError('api_key_invalid', 'Invalid API key provided.');
    request.principal = principal;
  });
}

export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new Error('route is not authenticated');
  return request.principal;
}

export function scopeOf(request: FastifyRequest): Scope {
  const p = principalOf(request);
  return { mode: p.mode, accountId: p.role === 'operator' ? null : p.accountId };
}

/** A merchant account in one environment: who owns webhook endpoints and events. */
export interface Owner {
  accountId: string;
  mode: Mode;
}

/** Merchant-only actions (creating orders and webhook endpoints); returns the merchant's account. */
export function requireMerchant(request: FastifyRequest): Owner {
  const p = principalOf(request);
  if (p.role !== 'merchant' || !p.accountId) {
    throw new ApiError(
      'permission_denied',
      'Operator keys cannot perform this action; use the merchant\u2019s secret key.',
    );
  }
  return { accountId: p.accountId, mode: p.mode };
}
