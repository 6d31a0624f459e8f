import { describe, expect, it } from 'vitest';
import { normalizeTrackingCode, typedTrackingCode } from '../src/shared/tracking-code.js';

/**
 * One reading of a tracking code for the API, the public page and the courier app's scan sheet
 * (a code typed off a torn label, or over http where there is no camera: driven for real in
 * courier-plain-http.browser.test.ts).
 */
describe('reading a tracking code', () => {
  const code = 'J28T1B45YRAW';

  it('is forgiving as Crockford is: lower case, I and L for 1, O for 0', () => {
    expect(normalizeTrackingCode('j28t1b45yraw')).toBe(code);
    expect(normalizeTrackingCode('J28TIB45YRAW')).toBe(code);
    expect(normalizeTrackingCode('J28TlB45YRAW')).toBe(code);
    expect(normalizeTrackingCode('7KQ2M9XD4TOB')).toBe('7KQ2M9XD4T0B');
    for (const bad of ['', 'J28T1B45YRA', 'J28T1B45YRAWX', 'J28T1B45YRAU', 'J28T 1B45 YRAW']) {
      expect(normalizeTrackingCode(bad), bad).toBeUndefined();
    }
  });

  it('as typed, ignores the spaces and hyphens people put between groups', () => {
    for (const typed of ['J28T 1B45 YRAW', 'j28t-1b45-yraw', ' J28T1B45YRAW ', 'J28T\t1B45 - YRAW']) {
      expect(typedTrackingCode(typed), typed).toBe(code);
    }
    for (const bad of ['J28T 1B45 YRA', 'J28T_1B45_YRAW', 'J28T.1B45.YRAW']) {
      expect(typedTrackingCode(bad), bad).toBeUndefined();
    }
  });
});
