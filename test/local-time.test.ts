import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addDays,
  atLocalTime,
  dayRange,
  isCalendarDay,
  isTimezone,
  localClock,
  localDay,
  localIso,
  offsetAt,
  startOfDay,
} from '../src/shared/local-time.js';

const H = 3_600_000;
const utc = (s: string) => Date.parse(s);

/**
 * The zone arithmetic every feature uses (src/shared/local-time.ts), west of UTC (Lima, no DST),
 * east of it (Tokyo), and across both of Santiago's 2026 changes, checked against Intl: on
 * 2026-04-04 clocks go back from 24:00 to 23:00 (a 25-hour Saturday); on 2026-09-06 they jump
 * from 00:00 to 01:00 (a 23-hour Sunday with no midnight).
 */
describe('local time', () => {
  it('knows the Santiago transitions the other tests rely on (the runtime tz data, read by Intl)', () => {
    expect(offsetAt(utc('2026-04-05T02:59:59Z'), 'America/Santiago')).toBe(-3 * H);
    expect(offsetAt(utc('2026-04-05T03:00:00Z'), 'America/Santiago')).toBe(-4 * H);
    expect(offsetAt(utc('2026-09-06T03:59:59Z'), 'America/Santiago')).toBe(-4 * H);
    expect(offsetAt(utc('2026-09-06T04:00:00Z'), 'America/Santiago')).toBe(-3 * H);
  });

  it('turns a local day into its instants, west and east of UTC', () => {
    expect(startOfDay('2026-11-25', 'America/Lima')).toBe(utc('2026-11-25T05:00:00Z'));
    expect(startOfDay('2026-11-25', 'Asia/Tokyo')).toBe(utc('2026-11-24T15:00:00Z'));
    expect(startOfDay('2026-11-25', 'UTC')).toBe(utc('2026-11-25T00:00:00Z'));
    expect(dayRange('2026-11-25', 'America/Lima')).toEqual({
      start: utc('2026-11-25T05:00:00Z'),
      end: utc('2026-11-26T05:00:00Z'),
    });
  });

  it('turns an instant into its local day and time', () => {
    // 02:00 UTC on the 25th is still the 24th in Lima and already mid-morning of the 25th in Tokyo.
    const at = utc('2026-11-25T02:00:00Z');
    expect(localDay(at, 'America/Lima')).toBe('2026-11-24');
    expect(localClock(at, 'America/Lima')).toBe('21:00');
    expect(localDay(at, 'Asia/Tokyo')).toBe('2026-11-25');
    expect(localClock(at, 'Asia/Tokyo')).toBe('11:00');
    expect(localIso(at, 'America/Lima')).toBe('2026-11-24T21:00:00-05:00');
    expect(localIso(at, 'Asia/Tokyo')).toBe('2026-11-25T11:00:00+09:00');
    expect(localIso(at, 'UTC')).toBe('2026-11-25T02:00:00Z');
  });

  it('places a time of day on a local day', () => {
    expect(atLocalTime('2026-11-25', '10:00', 'America/Lima')).toBe(utc('2026-11-25T15:00:00Z'));
    expect(atLocalTime('2026-11-25', '10:00', 'Asia/Tokyo')).toBe(utc('2026-11-25T01:00:00Z'));
    expect(atLocalTime('2026-11-25', '24:00', 'America/Lima')).toBe(utc('2026-11-26T05:00:00Z'));
  });

  it('a day whose clocks go back lasts 25 hours, and a repeated time is its first occurrence', () => {
    const tz = 'America/Santiago';
    const { start, end } = dayRange('2026-04-04', tz);
    expect(start).toBe(utc('2026-04-04T03:00:00Z'));
    expect(end).toBe(utc('2026-04-05T04:00:00Z'));
    expect(end - start).toBe(25 * H);
    // 23:30 happens at 02:30Z (-03:00) and again at 03:30Z (-04:00).
    expect(atLocalTime('2026-04-04', '23:30', tz)).toBe(utc('2026-04-05T02:30:00Z'));
    expect(localClock(utc('2026-04-05T03:30:00Z'), tz)).toBe('23:30');
    // The next day is an ordinary day at the new offset.
    expect(atLocalTime('2026-04-05', '10:00', tz)).toBe(utc('2026-04-05T14:00:00Z'));
    expect(localIso(startOfDay('2026-04-05', tz), tz)).toBe('2026-04-05T00:00:00-04:00');
  });

  it('a day whose clocks jump forward lasts 23 hours and starts when its clocks first read it', () => {
    const tz = 'America/Santiago';
    const { start, end } = dayRange('2026-09-06', tz);
    // Midnight never happens: the day starts at 01:00 (-03:00), the first instant dated the 6th.
    expect(start).toBe(utc('2026-09-06T04:00:00Z'));
    expect(localDay(start, tz)).toBe('2026-09-06');
    expect(localDay(start - 1, tz)).toBe('2026-09-05');
    expect(localIso(start, tz)).toBe('2026-09-06T01:00:00-03:00');
    expect(end - start).toBe(23 * H);
    // A time in the gap moves forward by the gap; the others are as the clock says.
    expect(atLocalTime('2026-09-06', '00:30', tz)).toBe(utc('2026-09-06T04:30:00Z'));
    expect(atLocalTime('2026-09-06', '10:00', tz)).toBe(utc('2026-09-06T13:00:00Z'));
    expect(atLocalTime('2026-09-05', '10:00', tz)).toBe(utc('2026-09-05T14:00:00Z'));
  });

  it('round-trips every hour of a year in each zone', () => {
    for (const tz of ['America/Lima', 'Asia/Tokyo', 'America/Santiago']) {
      for (let at = utc('2026-01-01T00:00:00Z'); at < utc('2027-01-01T00:00:00Z'); at += 7 * H) {
        const day = localDay(at, tz);
        const { start, end } = dayRange(day, tz);
        expect(start <= at && at < end, `${tz} ${new Date(at).toISOString()}`).toBe(true);
        expect(Date.parse(localIso(at, tz))).toBe(Math.floor(at / 1000) * 1000);
      }
    }
  });

  it('checks days and zones', () => {
    expect(isCalendarDay('2026-11-25')).toBe(true);
    expect(isCalendarDay('2028-02-29')).toBe(true);
    expect(isCalendarDay('2026-02-29')).toBe(false);
    expect(isCalendarDay('2026-13-01')).toBe(false);
    expect(isCalendarDay('2026-11-25T00:00:00Z')).toBe(false);
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01');
    expect(addDays('2028-03-01', -1)).toBe('2028-02-29');
    expect(isTimezone('America/Lima')).toBe(true);
    expect(isTimezone('UTC')).toBe(true);
    expect(isTimezone('Mars/Olympus')).toBe(false);
    expect(isTimezone('')).toBe(false);
  });

  it('years 0001 to 0099 are those years, not 1901 to 1999 (Date.UTC reads two-digit years as 19xx)', () => {
    expect(isCalendarDay('0001-01-01')).toBe(true);
    expect(isCalendarDay('0099-12-31')).toBe(true);
    expect(isCalendarDay('0000-01-01')).toBe(false);
    expect(startOfDay('0001-01-01', 'UTC')).toBe(Date.parse('0001-01-01T00:00:00Z'));
    expect(localIso(startOfDay('0050-06-01', 'UTC'), 'UTC')).toBe('0050-06-01T00:00:00Z');
    expect(localDay(Date.parse('0050-06-01T10:00:00+05:00'), 'UTC')).toBe('0050-06-01');
    expect(addDays('0099-12-31', 1)).toBe('0100-01-01');
  });
});

/**
 * partsOf reads a zone's offset once per quarter hour (checked at both ends) and adds it; this
 * compares what it gives with Intl's own reading of each instant, in an order that leaves the memo
 * holding a neighbouring quarter or another zone's, around DST changes, half-hour (Lord Howe) and
 * 45-minute (Kathmandu) offsets, and far from now.
 */
describe('local time: the quarter-hour offset memo agrees with Intl', () => {
  const intl = (ms: number, tz: string) => {
    const p = Object.fromEntries(
      new Intl.DateTimeFormat('en-US', {
        timeZone: tz,
        hourCycle: 'h23',
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
      })
        .formatToParts(ms)
        .map((x) => [x.type, x.value]),
    );
    return { day: `${p.year}-${p.month}-${p.day}`, clock: `${p.hour}:${p.minute}` };
  };
  const transitions: [string, string][] = [
    ['America/Santiago', '2026-04-05T03:00:00Z'],
    ['America/Santiago', '2026-09-06T04:00:00Z'],
    ['Europe/Berlin', '2026-03-29T01:00:00Z'],
    ['Europe/Berlin', '2026-10-25T01:00:00Z'],
    ['America/New_York', '2026-11-01T06:00:00Z'],
    ['Australia/Lord_Howe', '2026-04-04T15:00:00Z'],
    ['Australia/Lord_Howe', '2026-10-03T15:30:00Z'],
    ['Asia/Kathmandu', '2026-11-25T10:07:00Z'],
    ['America/Lima', '1908-07-28T05:08:00Z'],
  ];

  it('for every minute and some odd seconds around each change, in a shuffled order', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...transitions),
        fc.integer({ min: -90 * 60, max: 90 * 60 }),
        fc.constantFrom('America/Lima', 'Asia/Tokyo', 'UTC', 'America/Santiago'),
        ([tz, at], seconds, other) => {
          const ms = utc(at) + seconds * 1000;
          // Another zone's reading in between must not disturb this one's.
          localClock(ms + 7 * 60_000, other);
          const want = intl(ms, tz);
          expect(localDay(ms, tz)).toBe(want.day);
          expect(localClock(ms, tz)).toBe(want.clock);
        },
      ),
      { numRuns: 3000 },
    );
  });
});
