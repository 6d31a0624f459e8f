import type { Scope } from '../../shared/auth.js';
import type { Mode } from '../../shared/db/schema.js';
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

/**
 * An order event is its account's, in its environment, and concerns no one courier: the envelope
 * is the merchant's webhook (customer, addresses, every status), and an event row records no
 * courier, so "the courier it was assigned to then" could not be answered for the row anyway. A
 * courier's phone therefore gets no order events, live or replayed; it reads its orders with GET,
 * which shows it only its unfinished ones (so an order reassigned away from it disappears there).
 */
export function orderAudience(e: { mode: Mode; account_id: string }): Audience {
  return { mode: e.mode, accountId: e.account_id, courierId: null };
}

/** `visibleTo(scope, orderAudience(row))` as a WHERE on the events table (`stream/repo.ts`). */
export interface OrderEventFilter {
  mode: Mode;
  /** null: every account of the environment. */
  accountId: string | null;
}

/**
 * The order events `scope` may see, as the replay's SQL filter: exactly the rows for which
 * `visibleTo(scope, orderAudience(row))` holds, or null when there are none (a courier session).
 * test/stream-replay.test.ts checks the two agree for every kind of scope, and the replay still
 * passes each row it reads through `visibleTo`, so the SQL can only narrow what the rule allows.
 */
export function orderEventFilter(scope: Scope): OrderEventFilter | null {
  if (scope.courierId !== undefined) return null;
  return { mode: scope.mode, accountId: scope.accountId };
}
