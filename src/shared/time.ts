/** Epoch milliseconds as the API shows every instant: RFC 3339 in UTC with milliseconds. */
export const iso = (ms: number): string => new Date(ms).toISOString();

/**
 * The instant a validated `date-time` input names, in epoch milliseconds. Every date-time input
 * goes through the `date-time` format of `validation.ts`, which accepts only strings this returns
 * a finite number for: RFC 3339 also allows what `Date` cannot hold (a leap second, `23:59:60`;
 * an offset without minutes, `+05`), and NaN reaching SQL is a 500 on PostgreSQL and a silently
 * empty result on SQLite.
 */
export function parseInstant(value: string): number {
  const ms = Date.parse(value);
  if (!Number.isFinite(ms)) throw new Error(`not a date-time the validator accepts: ${value}`);
  return ms;
}

/** For the validator: whether `parseInstant` can read the value. */
export const isParsableInstant = (value: string): boolean => Number.isFinite(Date.parse(value));
