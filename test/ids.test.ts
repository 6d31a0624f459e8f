import { describe, expect, it } from 'vitest';
import { newId, newTrackingCode, normalizeTrackingCode, randomToken } from '../src/shared/ids.js';

const ID = /^ord_[0-9A-HJKMNP-TV-Z]{26}$/;

describe('ids', () => {
  it('are 26 Crockford characters after the prefix, time first', () => {
    const id = newId('ord', Date.UTC(2025, 0, 1));
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
    const ids = new Set(Array.from({ length: 2000 }, () => newId('ord').slice(18)));
    expect(ids.size).toBe(2000);
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
