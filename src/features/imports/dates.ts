import { ApiError } from '../../shared/errors.js';
import { DATE_FORMAT_HINT } from '../../shared/import-messages.js';
import { atLocalTime, isCalendarDay, localIso } from '../../shared/local-time.js';
import type { Cell } from './parse.js';
import type { DateFormat } from './schemas.js';

/**
 * Reading a spreadsheet's dates and times as the API's values (cell-reading.ts uses them per column
 * kind): Excel serials and Date cells, slashed dates in the order the header or the upload names,
 * wall-clock times in the order's zone.
 */

const pad = (n: number) => String(n).padStart(2, '0');
const DAY_MS = 86_400_000;
/** Excel's last date, 9999-12-31. */
const MAX_EXCEL_SERIAL = 2_958_465;

/**
 * A wall-clock reading (its UTC fields are what the cell shows, as Excel's dates and the parsers'
 * Date cells hold them) in the order's zone `tz`: midnight is a calendar day (`2026-11-25`, the
 * API's plain date), any other time that time on that day in `tz`, with the zone's offset.
 */
function wallClock(ms: number, tz: string): string {
  const d = new Date(ms);
  const day = d.toISOString().slice(0, 10);
  const seconds = d.getUTCSeconds() * 1000 + d.getUTCMilliseconds();
  if (d.getUTCHours() === 0 && d.getUTCMinutes() === 0 && seconds === 0) return day;
  const at = atLocalTime(day, `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}`, tz) + seconds;
  return localIso(at, tz);
}

/**
 * An Excel serial date (the 1900 date system; a fraction is the time of day): 1 is 1900-01-01.
 * Excel counts a 29 February 1900 that never was (Lotus 1-2-3's bug, kept for compatibility):
 * serial 60 is that day and no date, and from 61 on a serial is one more than the days since
 * 1899-12-31. Outside Excel's own range (1 to 2958465, 9999-12-31) a number is no date. A whole
 * number is a calendar day; a fraction is a time of day in the order's zone `tz`.
 */
export function fromExcelSerial(n: number, tz: string): string {
  if (!Number.isFinite(n) || n < 1 || n >= MAX_EXCEL_SERIAL + 1 || Math.floor(n) === 60) {
    throw new ApiError(
      'parameter_invalid',
      `Invalid requested_date: ${n} is not a date. A number is read as an Excel serial date, from 1 (1900-01-01) to ${MAX_EXCEL_SERIAL} (9999-12-31), and 60 is Excel's 29 February 1900, which never was.`,
      'requested_date',
    );
  }
  const epoch = n < 60 ? Date.UTC(1899, 11, 31) : Date.UTC(1899, 11, 30);
  return wallClock(epoch + Math.round(n * DAY_MS), tz);
}

export function time(v: Cell): unknown {
  // Time cells arrive as a Date on 1899-12-30, or as a fraction of a day.
  if (v instanceof Date) return `${pad(v.getUTCHours())}:${pad(v.getUTCMinutes())}`;
  if (typeof v === 'number' && v >= 0 && v < 1) {
    const minutes = Math.round(v * 1440);
    return `${pad(Math.floor(minutes / 60) % 24)}:${pad(minutes % 60)}`;
  }
  if (typeof v !== 'string') return typeof v === 'number' ? String(v) : v;
  const m = /^(\d{1,2})[:.h](\d{2})(?::\d{2})?$/.exec(v.trim());
  return m ? `${pad(Number(m[1]))}:${m[2]}` : v.trim();
}

/**
 * A date cell as the API's requested_date: a day alone stays a calendar day (`2026-11-25`, read in
 * the order's zone by the orders service, docs/api.md); a date and time without an offset is that
 * wall-clock time in the order's zone `tz`; a value with an offset is the instant it says.
 */
export function date(v: Cell, format: DateFormat | null, tz: string): unknown {
  if (v instanceof Date) return wallClock(v.getTime(), tz);
  if (typeof v === 'number') return fromExcelSerial(v, tz);
  if (typeof v !== 'string') return v;
  const s = v.trim();
  const local = /^(\d{4}-\d{2}-\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?)?$/.exec(s);
  if (local) {
    const [, day, h, mi, sec, frac] = local as unknown as [string, string, string?, string?, string?, string?];
    if (!isCalendarDay(day)) return s; // 2026-02-30: the schema says it is not a date
    if (h === undefined) return day;
    const ms = Date.parse(`${day}T${h}:${mi}:${sec ?? '00'}${frac ?? ''}Z`);
    return Number.isNaN(ms) ? s : wallClock(ms, tz);
  }
  if (/^\d+(\.\d+)?$/.test(s)) return fromExcelSerial(Number(s), tz);
  const slash = /^(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})(?:\s+(\d{1,2}):(\d{2}))?$/.exec(s);
  if (!slash || format === 'ISO') return s; // the schema rejects it as a date-time
  const [a, b] = [Number(slash[1]), Number(slash[2])];
  let order: 'DMY' | 'MDY';
  if (format) order = format;
  else if (a > 12 && b <= 12) order = 'DMY';
  else if (b > 12 && a <= 12) order = 'MDY';
  else {
    throw new ApiError(
      'parameter_invalid',
      `Invalid requested_date: "${s}" could be day/month or month/day; name the order in the header, as "requested_date (DD/MM/YYYY)", or ${DATE_FORMAT_HINT}`,
      'requested_date',
    );
  }
  const [day, month] = order === 'DMY' ? [a, b] : [b, a];
  const year = Number(slash[3]);
  const ms = Date.UTC(year, month - 1, day, Number(slash[4] ?? 0), Number(slash[5] ?? 0));
  const d = new Date(ms);
  if (Number(slash[4] ?? 0) > 23) return s; // 25:00: the schema says it is not a date-time
  if (d.getUTCDate() !== day || d.getUTCMonth() !== month - 1) {
    // 31/02: say so in the order it was read, not the schema's "must be a date" for a value that looks like one.
    const read = order === 'DMY' ? 'day/month/year' : 'month/day/year';
    throw new ApiError(
      'parameter_invalid',
      `Invalid requested_date: "${s}", read as ${read}, is no day of the calendar.`,
      'requested_date',
    );
  }
  return wallClock(ms, tz);
}
