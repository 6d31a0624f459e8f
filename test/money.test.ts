import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  add,
  applyRate,
  CurrencyMismatch,
  formatMoney,
  fromMajor,
  money,
  roundHalfAway,
  split,
  subtract,
  Totals,
  toMajor,
  totalsOf,
} from '../src/shared/money.js';

const amount = fc.integer({ min: -1_000_000_000, max: 1_000_000_000 });
const currency = fc.constantFrom('PEN', 'USD', 'EUR');

describe('money (property-based)', () => {
  it('split: the parts are whole and add up to the amount exactly, each within one unit of its share', () => {
    fc.assert(
      fc.property(amount, fc.array(fc.integer({ min: 0, max: 1000 }), { minLength: 1, maxLength: 20 }), (a, ws) => {
        fc.pre(ws.some((w) => w > 0));
        const parts = split(money(a, 'PEN'), ws);
        const total = ws.reduce((s, w) => s + w, 0);
        expect(parts.reduce((s, p) => s + p.amount, 0)).toBe(a);
        parts.forEach((p, i) => {
          expect(Number.isInteger(p.amount)).toBe(true);
          expect(Math.abs(p.amount - (a * ws[i]) / total)).toBeLessThan(1);
          if (ws[i] === 0) expect(p.amount).toBe(0);
        });
      }),
    );
  });

  it('Totals: per currency, the sum of every item of that currency, in any order', () => {
    const item = fc.record({ amount, currency });
    fc.assert(
      fc.property(fc.array(item, { maxLength: 50 }), (items) => {
        const forward = totalsOf(items, (m) => m);
        const backward = totalsOf([...items].reverse(), (m) => m);
        expect(backward).toEqual(forward);
        for (const t of forward) {
          const expected = items.filter((m) => m.currency === t.currency).reduce((s, m) => s + m.amount, 0);
          expect(t.amount).toBe(expected);
        }
        expect(forward.map((t) => t.currency)).toEqual([...new Set(items.map((m) => m.currency))].sort());
      }),
    );
  });

  it('add and subtract are exact inverses within one currency; across currencies they refuse', () => {
    fc.assert(
      fc.property(amount, amount, (a, b) => {
        expect(subtract(add(money(a, 'USD'), money(b, 'USD')), money(b, 'USD'))).toEqual(money(a, 'USD'));
        expect(() => add(money(a, 'USD'), money(b, 'PEN'))).toThrow(CurrencyMismatch);
      }),
    );
  });

  it('fromMajor/toMajor round-trip every amount with at most 2 decimals, and refuse a third', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 99_999_999_999 }), (minor) => {
        expect(fromMajor(toMajor(minor))).toBe(minor);
      }),
    );
    expect(fromMajor(1.005)).toBeUndefined();
    expect(fromMajor(0.1 + 0.2)).toBe(30);
  });

  it('applyRate rounds once, half away from zero, and is symmetric in sign', () => {
    expect(roundHalfAway(0.5)).toBe(1);
    expect(roundHalfAway(-0.5)).toBe(-1);
    expect(roundHalfAway(2.5)).toBe(3);
    expect(Object.is(roundHalfAway(-0.2), 0)).toBe(true);
    expect(applyRate(money(150, 'PEN'), 0.01)).toEqual(money(2, 'PEN'));
    fc.assert(
      fc.property(amount, fc.double({ min: 0, max: 1, noNaN: true }), (a, r) => {
        expect(applyRate(money(-a, 'PEN'), r).amount).toBe(-applyRate(money(a, 'PEN'), r).amount || 0);
      }),
    );
  });

  it('formatMoney writes the code, grouped major units and two decimals, and reads back as the amount', () => {
    expect(formatMoney(money(12050, 'PEN'))).toBe('PEN 120.50');
    expect(formatMoney(money(5, 'USD'))).toBe('USD 0.05');
    expect(formatMoney(money(123456789, 'PEN'))).toBe('PEN 1,234,567.89');
    expect(formatMoney(money(-100000, 'EUR'))).toBe('EUR -1,000.00');
    fc.assert(
      fc.property(amount, currency, (a, c) => {
        const [code, text] = formatMoney(money(a, c)).split(' ');
        expect(code).toBe(c);
        expect(fromMajor(Number(text?.replace(/,/g, '')))).toBe(a);
      }),
    );
  });

  it('refuses fractions of a minor unit and nonsense weights', () => {
    expect(() => money(1.5, 'PEN')).toThrow(RangeError);
    expect(() => new Totals().add({ amount: Number.NaN, currency: 'PEN' })).toThrow(RangeError);
    expect(() => split(money(10, 'PEN'), [0, 0])).toThrow(RangeError);
    expect(() => split(money(10, 'PEN'), [])).toThrow(RangeError);
  });
});
