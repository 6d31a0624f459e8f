// How one cell of a typed column is read: a number, a boolean, a date, a time, a phone, a list or
// text, and the error of a cell its column's kind could not read. Pure per-cell helpers, split from
// convert.ts, which resolves the header row and groups the rows into order bodies.
import { ApiError } from '../../shared/errors.js';
import { bodyValidator } from '../../shared/validation.js';
import { RequestedDate, TIME_OF_DAY_RE } from '../orders/schemas.js';
import type { Target } from './columns.js';
import { date, time } from './dates.js';
import type { Cell } from './parse.js';
import { phoneCell } from './phones.js';
import type { DateFormat } from './schemas.js';

function number(v: Cell): unknown {
  if (typeof v !== 'string') return v;
  const s = v.trim();
  if (/^[+-]?(\d+\.?\d*|\.\d+)$/.test(s)) return Number(s);
  // A decimal comma, as spreadsheets in Spanish locales write it (only when there is no dot).
  if (/^[+-]?\d+,\d+$/.test(s)) return Number(s.replace(',', '.'));
  return s; // unreadable: see EXPECTED
}

const TRUE = new Set(['true', 'yes', 'y', 'si', 'sí', 's', '1', 'x', 'verdadero']);
const FALSE = new Set(['false', 'no', 'n', '0', 'falso']);

function boolean(v: Cell): unknown {
  if (typeof v === 'number' && (v === 0 || v === 1)) return v === 1;
  if (typeof v !== 'string') return v;
  const s = v.trim().toLowerCase();
  if (TRUE.has(s)) return true;
  if (FALSE.has(s)) return false;
  return v.trim();
}

export function text(v: Cell): unknown {
  if (v instanceof Date) return v.toISOString();
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return typeof v === 'string' ? v.trim() : v;
}

/** How a sheet's values are read: the date order, the zone of times without an offset, the country of national phone numbers. */
export interface Reading {
  format: DateFormat | null;
  /** The zone of the account's orders: a date and time without an offset is a wall-clock time in it. */
  tz: string;
  /** The account's `default_country` (ISO 3166), or null: phone numbers without a country code stay as written. */
  country: string | null;
}

export function convert(v: Cell, kind: Target['kind'], format: DateFormat | null, { tz, country }: Reading): unknown {
  switch (kind) {
    case 'phone': {
      const t = text(v);
      return typeof t === 'string' ? phoneCell(t, country) : t;
    }
    case 'number':
    case 'integer':
      return number(v);
    case 'boolean':
      return boolean(v);
    case 'date':
      return date(v, format, tz);
    case 'time':
      return time(v);
    case 'list': {
      // `cold, large` or `Cold; Large`: one cell, several values (lower case, as the API writes them).
      const t = text(v);
      if (typeof t !== 'string') return t;
      return t
        .split(/[,;|]/)
        .map((x) => x.trim().toLowerCase())
        .filter((x) => x !== '');
    }
    default:
      return text(v);
  }
}

/** Whether a value passes the API's own check of `schema`, compiled on first use (most files have no bad date). */
function passes(schema: object): (v: unknown) => boolean {
  let check: ((v: unknown) => ApiError | undefined) | undefined;
  return (v) => {
    check ??= bodyValidator(schema);
    return check(v) === undefined;
  };
}

/**
 * What a cell of a typed column must be, in words for the person who filled the spreadsheet, and
 * whether the value it was read as is one. The API's "must be of type number" speaks of JSON types
 * that a spreadsheet does not show; an import says what it could not read instead. Only the words
 * differ: the code (`parameter_invalid`) and the param are those POST /v1/orders gives the same value.
 */
const EXPECTED: Partial<Record<Target['kind'], { words: string; reads: (v: unknown) => boolean }>> = {
  number: { words: 'must be a number', reads: (v) => typeof v === 'number' },
  integer: { words: 'must be a whole number', reads: (v) => Number.isInteger(v) },
  boolean: { words: 'must be true or false', reads: (v) => typeof v === 'boolean' },
  date: { words: 'must be a date like 2026-12-24', reads: passes(RequestedDate) },
  time: { words: 'must be a time like 09:30', reads: (v) => typeof v === 'string' && TIME_OF_DAY_RE.test(v) },
};

/** A cell as the error quotes it: text in quotes (cut at 40 characters), anything else as it reads. */
function quoted(v: Cell): string {
  if (typeof v !== 'string') return v instanceof Date ? v.toISOString() : String(v);
  const s = v.trim();
  return `"${s.length > 40 ? `${s.slice(0, 40)}…` : s}"`;
}

/** The error of a cell its column's kind could not read (`value` is what it was read as), or none. */
export function unreadable(kind: Target['kind'], cell: Cell, value: unknown, param: string): ApiError | undefined {
  const want = EXPECTED[kind];
  if (want === undefined || want.reads(value)) return undefined;
  return new ApiError('parameter_invalid', `Invalid ${param}: ${want.words} (got ${quoted(cell)}).`, param);
}
