import { describe, expect, it } from 'vitest';
import { IdSequence, newId, newTrackingCode, normalizeTrackingCode, randomToken } from '../src/shared/ids.js';

const ID = /^ord_[0-9A-HJKMNP-TV-Z]{26}$/;

describe('ids', () => {
  it('are 26 Crockford characters after the prefix, time first', () => {
    // Its own sequence: the process's may already be past 2025 (another test, run first), and then borrows.
    const id = newId('ord', Date.UTC(2025, 0, 1), new IdSequence());
    expect(id).toMatch(ID);
    expect(id.slice(4, 14)).toBe('01JGFJJZ00');
  });

  it('are strictly increasing within one millisecond, far past the old 32-per-ms counter', () => {
    const now = Date.now() + 60_000;
    const ids = Array.from({ length: 5000 }, () => newId('ord', now));
    for (let i = 1; i < ids.length; i++) expect(ids[i] > ids[i - 1]).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.every((id) => id.slice(4, 14) === ids[0].slice(4, 14))).toBe(true);
  });

  it('stay increasing when the clock steps back', () => {
    const now = Date.now() + 120_000;
    const a = newId('evt', now);
    const b = newId('evt', now - 5000);
    expect(b > a).toBe(true);
  });

  it('differ in their random part', () => {
    const ids = new Set(Array.from({ length: 2000 }, () => newId('ord', Date.now()).slice(18)));
    expect(ids.size).toBe(2000);
  });

  it('an injected sequence starts from a known state and is independent of the process one', () => {
    const at = Date.UTC(2025, 0, 1);
    const seq = new IdSequence();
    const a = newId('ord', at, seq);
    const b = newId('ord', at, seq);
    expect(a.slice(4, 18)).toBe('01JGFJJZ000000');
    expect(b.slice(4, 18)).toBe('01JGFJJZ000001');
    // The process's sequence is elsewhere (far ahead, after the tests above); a new one starts at 0 again.
    expect(newId('ord', at, new IdSequence()).slice(4, 18)).toBe('01JGFJJZ000000');
    expect(newId('ord', at + 1, seq).slice(4, 18)).toBe('01JGFJJZ010000');
  });

  it('a step back borrows the last millisecond; a full counter borrows the next one', () => {
    const at = Date.UTC(2025, 0, 1);
    const seq = new IdSequence();
    const first = seq.next(at);
    expect(seq.next(at - 5000)).toBe(`${first.slice(0, 10)}0001`);
    for (let i = 2; i < 2 ** 20 - 1; i++) seq.next(at);
    expect(seq.next(at).slice(10)).toBe('ZZZZ');
    const borrowed = seq.next(at);
    expect(borrowed).toBe(new IdSequence().next(at + 1));
    expect(borrowed > first).toBe(true);
  });

  it('tracking codes are 12 normalised Crockford characters, unique', () => {
    const codes = Array.from({ length: 2000 }, newTrackingCode);
    for (const c of codes) expect(normalizeTrackingCode(c)).toBe(c);
    expect(new Set(codes).size).toBe(codes.length);
    // Every character position varies (no constant bits leak into the code).
    for (let i = 0; i < 12; i++) expect(new Set(codes.map((c) => c[i])).size).toBeGreaterThan(20);
  });

  it('tokens are base62 of the asked length', () => {
    const t = randomToken(32);
    expect(t).toMatch(/^[0-9A-Za-z]{32}$/);
    expect(randomToken(32)).not.toBe(t);
  });
});
