import type { FastifyRequest } from 'fastify';
import { principalOf, type Scope } from '../../shared/auth.js';
import { ApiError } from '../../shared/errors.js';

/**
 * Who may drive deliveries (lifecycle moves, couriers, routes, proof files): operator keys across
 * every account of their environment, and merchant test keys on their own data (the sandbox).
 * Live merchant keys get 403: in production only the carrier moves parcels.
 */
export function requireMover(req: FastifyRequest): Scope {
  const p = principalOf(req);
  if (p.role === 'operator') return { mode: p.mode, accountId: null };
  if (p.mode === 'test' && p.accountId) return { mode: 'test', accountId: p.accountId };
  throw new ApiError(
    'permission_denied',
    'Live secret keys cannot drive deliveries; use an operator key, or a test key to simulate one in the sandbox.',
  );
}
