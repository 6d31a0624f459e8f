import { isCalendarDay, localDay, localIso, startOfDay } from '../../shared/local-time.js';
import { parseInstant } from '../../shared/time.js';

/**
 * A requested date as stored: a date-time is the instant it names, kept as sent; a plain day
 * (`2026-11-25`) is that calendar day in `tz`, stored as the day's first instant written with the
 * zone's offset (`2026-11-25T00:00:00-05:00`), which reads as the day and parses as the instant.
 * The input passed the schema: a `date` or a `date-time`.
 */
export function requestedDate(value: string, tz: string): string {
  return isCalendarDay(value) ? localIso(startOfDay(value, tz), tz) : value;
}

/** The local day of a stored requested date, in the order's zone. */
export function requestedDay(stored: string | null, tz: string): string | null {
  return stored === null ? null : localDay(parseInstant(stored), tz);
}
