const DAY_MS = 24 * 3600_000;

/**
 * When attempt `attempt + 1` is due after attempt `attempt` (1-based) failed, or null when the
 * schedule is exhausted. Jitter (up to +10%) and Retry-After (clamped to [delay, 2 × delay]) only
 * ever delay a retry, and only by as much as still lets the rest of the schedule (its delays plus
 * `attemptBudgetMs` per remaining attempt) start within 24 h of the first attempt.
 */
export function nextAttemptAt(
  schedule: number[],
  attempt: number,
  firstAttemptAt: number,
  now: number,
  retryAfterMs: number | null,
  random: () => number = Math.random,
  attemptBudgetMs = 5000,
): number | null {
  const seconds = schedule[attempt - 1];
  if (seconds === undefined) return null;
  const delay = seconds * 1000;
  const extra =
    retryAfterMs === null ? delay * 0.1 * random() : Math.min(Math.max(retryAfterMs, delay), 2 * delay) - delay;
  const earliest = now + delay;
  const rest = schedule.slice(attempt).reduce((s, x) => s + x * 1000 + attemptBudgetMs, 0);
  const room = Math.max(0, firstAttemptAt + DAY_MS - earliest - rest);
  return Math.round(earliest + Math.min(extra, room));
}
