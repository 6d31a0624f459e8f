/**
 * Wall-clock times in a depot's zone. Plans work in minutes since the local midnight that starts
 * the plan's day; these turn `HH:mm` on a date into instants and back, through Intl (no tz data of
 * our own), so DST days are right.
 */

function formatter(tz: string): Intl.DateTimeFormat {
  return new Intl.DateTimeFormat('en-US', {
    timeZone: tz,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  });
}

function parts(ms: number, tz: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const p of formatter(tz).formatToParts(ms)) if (p.type !== 'literal') out[p.type] = Number(p.value);
  return out;
}

/** Milliseconds the zone is ahead of UTC at instant `ms`. */
function offsetAt(ms: number, tz: string): number {
  const p = parts(ms, tz);
  const asUtc = Date.UTC(p.year as number, (p.month as number) - 1, p.day, p.hour, p.minute, p.second);
  return asUtc - Math.floor(ms / 1000) * 1000;
}

/** The instant of local `date` (YYYY-MM-DD) at `hhmm` (HH:mm; "24:00" is the next midnight) in `tz`. */
export function localInstant(date: string, hhmm: string, tz: string): number {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const [h, mi] = hhmm.split(':').map(Number) as [number, number];
  const guess = Date.UTC(y, m - 1, d, h, mi);
  const first = guess - offsetAt(guess, tz);
  // Once more at the corrected instant: the offset may differ across a DST change.
  return guess - offsetAt(first, tz);
}

/** The local date (YYYY-MM-DD) of instant `ms` in `tz`. */
export function localDate(ms: number, tz: string): string {
  const p = parts(ms, tz);
  const pad = (n: number | undefined) => String(n).padStart(2, '0');
  return `${p.year}-${pad(p.month)}-${pad(p.day)}`;
}

/** The local time of day (HH:mm) of instant `ms` in `tz`. */
export function localClock(ms: number, tz: string): string {
  const p = parts(ms, tz);
  const pad = (n: number | undefined) => String(n).padStart(2, '0');
  return `${pad(p.hour)}:${pad(p.minute)}`;
}
