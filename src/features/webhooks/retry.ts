const DAY_MS = 24 * 3600_000;

/**
 * When attempt `attempt + 1` is due after attempt `attempt` (1-based) failed, or null when the
 * schedule is exhausted. Jitter (up to +10%) and Retry-After (clamped to [delay, 2 × delay]) only
 * ever delay a retry, and never past 24 h after the first attempt.
 */
export function nextAttemptAt(
  schedule: number[],
  attempt: number,
  firstAttemptAt: number,
  now: number,
  retryAfterMs: number | null,
  random: () => number = Math.random,
): number | null {
  if (attempt > schedule.length) return null;
  const delay = schedule[attempt - 1] * 1000;
  const extra =
    retryAfterMs === null ? delay * 0.1 * random() : Math.min(Math.max(retryAfterMs, delay), 2 * delay) - delay;
  const earliest = now + delay;
  const room = Math.max(0, firstAttemptAt + DAY_MS - earliest);
  return Math.round(earliest + Math.min(extra, room));
}
