import type { AppContext } from '../../shared/context.js';
import { ApiError } from '../../shared/errors.js';
import { randomToken } from '../../shared/ids.js';
import * as repo from './lockout-repo.js';

/** Every lock-out counts the attempts of the last 15 minutes (a sliding window). */
export const LOCKOUT_WINDOW_MS = 15 * 60 * 1000;

/**
 * How many attempts each bucket lets through per window (docs/console-auth.md, "Lock-out"). A
 * "client" is an IPv4 address or an IPv6 /64 (`clientOf`, the rate limiter's).
 */
export const LIMITS = {
  /** One email from one client, in a browser not known for it: the guesser at one address. */
  pair: 5,
  /** One client, whatever the emails: spraying many accounts from one address. */
  address: 20,
  /**
   * One email from every browser not known for it, wherever they are: the account is slowed to
   * 20 guesses per 15 minutes for the whole internet, rather than locked by 5 of them.
   */
  account: 20,
  /** One known browser of the email (a stolen device cookie guesses no faster than an address). */
  device: 5,
  /**
   * One email, every attempt of every browser, known ones included. Browsers that are not known
   * stop adding at `account`, so only known browsers' own failures can reach it.
   */
  accountCeiling: 100,
  /** Courier sign-in codes from one client. */
  code: 5,
  /** Wrong current passwords of one signed-in user (changing the password). */
  change: 5,
} as const;

export interface Bucket {
  key: string;
  limit: number;
}

export interface Attempt {
  /** The credential was wrong: the attempt stays counted in every bucket. */
  failed(): Promise<void>;
  /** The credential was right: the attempt is taken back, and the failures of `clear` forgotten. */
  succeeded(clear?: string[]): Promise<void>;
}

function tooMany(seconds: number): ApiError {
  const s = String(Math.max(1, Math.ceil(seconds)));
  return new ApiError('rate_limited', `Too many failed attempts. Retry after ${s} seconds.`, undefined, {
    'Retry-After': s,
  });
}

/**
 * Counts the attempt before the credential is checked (issue #18: checking first let 50 guesses
 * sent at once all through). The attempt is written to each bucket, then each bucket is counted
 * with it; over any limit it is taken back and refused with 429, with Retry-After set to when the
 * oldest attempt that keeps the bucket full leaves the window. Checked before the credential is
 * looked at, so a refused guesser learns nothing even when the guess is right.
 */
export async function beginAttempt(ctx: AppContext, buckets: Bucket[]): Promise<Attempt> {
  const now = ctx.clock();
  const id = randomToken(20);
  const keys = buckets.map((b) => b.key);
  await repo.insertAttempt(ctx.db, id, keys, now);
  const rows = await repo.attemptsSince(ctx.db, keys, now - LOCKOUT_WINDOW_MS);
  let until = 0;
  for (const { key, limit } of buckets) {
    const others = rows.filter((r) => r.bucket === key && r.attemptId !== id);
    if (others.length + 1 <= limit) continue;
    // This attempt fits once the others fall to limit − 1: when others[length − limit] leaves.
    const keeping = others[others.length - limit]?.at ?? now;
    until = Math.max(until, keeping + LOCKOUT_WINDOW_MS);
  }
  if (until > 0) {
    await repo.deleteAttempt(ctx.db, id, keys, now);
    throw tooMany((until - now) / 1000);
  }
  return {
    failed: () => repo.purgeAttempts(ctx.db, now - LOCKOUT_WINDOW_MS),
    succeeded: async (clear = []) => {
      await repo.deleteAttempt(ctx.db, id, keys, now);
      await repo.clearBuckets(ctx.db, clear);
    },
  };
}
