import type { Scope } from '../../shared/auth.js';
import type { Audience } from '../../shared/live.js';

/**
 * Whether a caller of `scope` may receive a message meant for `audience`: the one rule every
 * stream message passes, the same as the REST routes' WHERE (DESIGN §1). One environment; a
 * merchant's own account only, an operator every account of its environment; and, for a principal
 * bound to one courier (a courier session), only that courier's messages.
 */
export function visibleTo(scope: Scope, audience: Audience): boolean {
  if (audience.mode !== scope.mode) return false;
  if (scope.courierId !== undefined && audience.courierId !== scope.courierId) return false;
  return scope.accountId === null || audience.accountId === scope.accountId;
}
