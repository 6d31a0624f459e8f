import type { AppContext } from '../../shared/context.js';
import { ApiError } from '../../shared/errors.js';
import * as repo from './repo.js';

/** DESIGN §8: after 5 failures for one email or one address in 15 min, further tries get 429. */
export const MAX_FAILURES = 5;
export const LOCKOUT_WINDOW_MS = 15 * 60 * 1000;

/**
 * Refuses the attempt while any of its buckets is locked, with Retry-After set to when the oldest
 * failure that keeps it locked leaves the window. Checked before the password is looked at, so a
 * locked-out guesser learns nothing even when the guess is right.
 */
export async function assertNotLocked(ctx: AppContext, buckets: string[]): Promise<void> {
  const now = ctx.clock();
  let until = 0;
  for (const bucket of buckets) {
    const times = await repo.failuresSince(ctx.db, bucket, now - LOCKOUT_WINDOW_MS);
    if (times.length >= MAX_FAILURES) {
      // The lock lifts when the count falls below the limit: when failure number (n − 5) expires.
      const keeping = times[times.length - MAX_FAILURES] ?? now;
      until = Math.max(until, keeping + LOCKOUT_WINDOW_MS);
    }
  }
  if (until > now) {
    const seconds = String(Math.max(1, Math.ceil((until - now) / 1000)));
    throw new ApiError('rate_limited', `Too many failed attempts. Retry after ${seconds} seconds.`, undefined, {
      'Retry-After': seconds,
    });
  }
}

export async function recordFailure(ctx: AppContext, buckets: string[]): Promise<void> {
  const now = ctx.clock();
  await repo.recordFailures(ctx.db, buckets, now, now - LOCKOUT_WINDOW_MS);
}
