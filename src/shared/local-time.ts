/**
 * Local time: calendar days and times of day in an IANA zone, the one module that does zone
 * arithmetic (DESIGN §10, §15; docs/api.md "Dates and time zones"). A date without a time is a
 * calendar day in a zone; these turn days and `HH:mm` on a day into instants and instants back
 * into days and times, through Intl only (the runtime's tz data, no copy of our own), so DST days
 * are right: a day may last 23 or 25 hours, and may not start at 00:00.
 *
 * Pure functions, also imported by the web console (it imports nothing else from src/shared).
 */

const DAY_MS = 86_400_000;
const CALENDAR_DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const HHMM = /^(\d{2}):(\d{2})$/;

/**
 * Formatters are costly to build (tens of µs) and a bulk import converts thousands of dates, so
 * each zone's is built once. A memo of immutable objects keyed by zone name: no state anything
 * depends on, and bounded by the number of zones there are.
 */
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(tz, f);
  }
  return f;
}

/** Whether `name` is a time zone this runtime knows (an IANA name such as America/Lima, or UTC). */
export function isTimezone(name: string): boolean {
  if (name.trim() === '') return false;
  try {
    formatter(name);
    return true;
  } catch {
    return false;
  }
}

interface Parts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/** What `formatter(tz).format` writes: `11/25/2026, 00:00:00` (en-US, 24-hour). */
const FORMATTED = /^(\d{1,2})\/(\d{1,2})\/(\d+),? (\d{2}):(\d{2}):(\d{2})$/;

/**
 * The wall clock of instant `ms` in `tz`. `format` and a regular expression, not `formatToParts`,
 * which costs about three times as much (a bulk import reads thousands of dates); the parts are
 * the fallback for a string the expression does not read.
 */
function formattedParts(ms: number, tz: string): Parts {
  const f = formatter(tz);
  const m = FORMATTED.exec(f.format(ms));
  if (m) {
    const [mo, d, y, h, mi, sec] = m.slice(1).map(Number) as [number, number, number, number, number, number];
    return { year: y, month: mo, day: d, hour: h, minute: mi, second: sec };
  }
  const out: Record<string, number> = {};
  for (const p of f.formatToParts(ms)) if (p.type !== 'literal') out[p.type] = Number(p.value);
  return out as unknown as Parts;
}

const QUARTER_MS = 15 * 60_000;

/**
 * Each zone's offset over the quarter hours asked about lately. Even `format` costs a few µs, and
 * a create reads its local day and a message's local times (now, and hours ahead) several times
 * over, within the same few quarters: a quarter's offset is read at both its ends and kept only
 * when they agree (no zone changes its offset twice within 15 minutes, so then none changes inside
 * it). A memo of facts about the zones, like `formatters`: nothing depends on what it holds, and it
 * keeps at most QUARTERS_KEPT quarters per zone.
 */
const quarterOffsets = new Map<string, Map<number, number>>();
const QUARTERS_KEPT = 64;

function quarterOffset(ms: number, tz: string): number | undefined {
  const quarter = Math.floor(ms / QUARTER_MS);
  let known = quarterOffsets.get(tz);
  const offset = known?.get(quarter);
  if (offset !== undefined) return offset;
  const start = quarter * QUARTER_MS;
  const end = start + QUARTER_MS - 1000;
  const found = offsetOf(formattedParts(start, tz), start);
  if (offsetOf(formattedParts(end, tz), end) !== found) return undefined;
  if (!known) {
    known = new Map();
    quarterOffsets.set(tz, known);
  }
  // The oldest quarter asked about goes first (a Map iterates in insertion order).
  if (known.size >= QUARTERS_KEPT) known.delete(known.keys().next().value as number);
  known.set(quarter, found);
  return found;
}

/** The wall clock of instant `ms` in `tz`, to the second. */
function partsOf(ms: number, tz: string): Parts {
  const offset = quarterOffset(ms, tz);
  if (offset === undefined) return formattedParts(ms, tz);
  const wall = new Date(Math.floor(ms / 1000) * 1000 + offset);
  return {
    year: wall.getUTCFullYear(),
    month: wall.getUTCMonth() + 1,
    day: wall.getUTCDate(),
    hour: wall.getUTCHours(),
    minute: wall.getUTCMinutes(),
    second: wall.getUTCSeconds(),
  };
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/**
 * `Date.UTC` without its two-digit-year rule: `Date.UTC(1, 0, 1)` is 1901-01-01, not 0001-01-01,
 * so every year from 0 to 99 would silently become 1900–1999. Month from 0, like `Date.UTC`.
 */
function utc(year: number, month: number, day: number, hour = 0, minute = 0, second = 0): number {
  if (year >= 100) return Date.UTC(year, month, day, hour, minute, second);
  const at = new Date(0);
  at.setUTCFullYear(year, month, day);
  at.setUTCHours(hour, minute, second, 0);
  return at.getTime();
}

/** Milliseconds `tz` is ahead of UTC at instant `ms` (Lima: -5 h; Tokyo: +9 h). */
export function offsetAt(ms: number, tz: string): number {
  return offsetOf(partsOf(ms, tz), ms);
}

/** The offset that wall clock `p` of instant `ms` shows. */
function offsetOf(p: Parts, ms: number): number {
  return utc(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - Math.floor(ms / 1000) * 1000;
}

/** `YYYY-MM-DD` naming a day that exists (2026-02-29 does not). */
export function isCalendarDay(value: string): boolean {
  const m = CALENDAR_DAY.exec(value);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const at = new Date(utc(y, mo - 1, d));
  return at.getUTCFullYear() === y && at.getUTCMonth() === mo - 1 && at.getUTCDate() === d && y >= 1;
}

function dayNumbers(day: string): [number, number, number] {
  const m = CALENDAR_DAY.exec(day);
  if (!m) throw new Error(`not a calendar day: ${day}`);
  return [Number(m[1]), Number(m[2]), Number(m[3])];
}

/** The calendar day `n` days after `day` (before, when negative): no zone involved. */
export function addDays(day: string, n: number): string {
  const [y, m, d] = dayNumbers(day);
  const at = new Date(utc(y, m - 1, d) + n * DAY_MS);
  return `${pad(at.getUTCFullYear(), 4)}-${pad(at.getUTCMonth() + 1)}-${pad(at.getUTCDate())}`;
}

/** The local day (`YYYY-MM-DD`) of instant `ms` in `tz`. */
export function localDay(ms: number, tz: string): string {
  const p = partsOf(ms, tz);
  return `${pad(p.year, 4)}-${pad(p.month)}-${pad(p.day)}`;
}

/** The local time of day (`HH:mm`) of instant `ms` in `tz`. */
export function localClock(ms: number, tz: string): string {
  const p = partsOf(ms, tz);
  return `${pad(p.hour)}:${pad(p.minute)}`;
}

/**
 * The instant of wall-clock `hhmm` (`HH:mm`; `24:00` is the start of the next day) on local `day`
 * in `tz`. A time that happens twice (clocks turned back) is its first occurrence; a time that
 * never happens (clocks turned forward) is moved forward by the gap, so 00:30 on a day whose
 * clocks jump from 00:00 to 01:00 is 01:30. These are the choices of JavaScript's Temporal
 * ("compatible"), and they make `startOfDay` the first instant of the day.
 */
export function atLocalTime(day: string, hhmm: string, tz: string): number {
  const t = HHMM.exec(hhmm);
  if (!t) throw new Error(`not a time of day: ${hhmm}`);
  const [h, mi] = [Number(t[1]), Number(t[2])];
  if (h === 24 && mi === 0) return startOfDay(addDays(day, 1), tz);
  const [y, m, d] = dayNumbers(day);
  const wall = utc(y, m - 1, d, h, mi);
  // The offsets a day either side: a wall time has at most these two readings.
  const before = wall - offsetAt(wall - DAY_MS, tz);
  const after = wall - offsetAt(wall + DAY_MS, tz);
  // No change of offset near this day (nearly always): the one reading.
  if (before === after) return before;
  const reads = (ms: number) => offsetAt(ms, tz) + ms === wall;
  const fits = [before, after].filter(reads);
  if (fits.length > 0) return Math.min(...fits);
  // In a gap: read with the offset from before the change, which lands past it by the gap's length.
  return before;
}

/** The first instant of local `day` in `tz` (usually 00:00; 01:00 where clocks skip midnight). */
export function startOfDay(day: string, tz: string): number {
  return atLocalTime(day, '00:00', tz);
}

/** The instants of local `day` in `tz`, [start, end): 23, 24 or 25 hours. */
export function dayRange(day: string, tz: string): { start: number; end: number } {
  return { start: startOfDay(day, tz), end: startOfDay(addDays(day, 1), tz) };
}

/**
 * Instant `ms` as RFC 3339 with the zone's offset at that instant, e.g. `2026-11-25T00:00:00-05:00`:
 * an instant that also reads as the local day and time it is.
 */
export function localIso(ms: number, tz: string): string {
  const p = partsOf(ms, tz);
  const offMin = Math.round(offsetOf(p, ms) / 60_000);
  const sign = offMin < 0 ? '-' : '+';
  const abs = Math.abs(offMin);
  const offset = offMin === 0 ? 'Z' : `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
  return `${pad(p.year, 4)}-${pad(p.month)}-${pad(p.day)}T${pad(p.hour)}:${pad(p.minute)}:${pad(p.second)}${offset}`;
}
