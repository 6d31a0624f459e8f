import { describe, expect, it } from 'vitest';
import { parseAmount } from '../web/src/courier/amount.js';

/**
 * The deliver sheet's reading of the cash typed (web/src/courier/amount.ts). The sheet shows the
 * amount to collect as Intl writes it in the order's currency: three decimals for a Kuwaiti dinar
 * ("KWD 1,234.560"), none for a Chilean peso; Ruta keeps hundredths of every currency (DESIGN §2).
 */
describe('parseAmount', () => {
  it('takes zeros past the cents, as a 3-decimal currency is shown', () => {
    expect(parseAmount('1234.560')).toEqual({ amount: 1234.56 });
    expect(parseAmount('1234,500')).toEqual({ amount: 1234.5 });
    expect(parseAmount('12.000')).toEqual({ amount: 12 });
    expect(parseAmount('7,0000')).toEqual({ amount: 7 });
  });

  it('still refuses a third decimal that is not zero: it would be rounded, and amounts never are', () => {
    expect(parseAmount('1234.565')).toHaveProperty('error', expect.stringContaining('At most 2 decimals'));
    expect(parseAmount('60,005')).toHaveProperty('error', expect.stringContaining('At most 2 decimals'));
  });

  it('reads whole amounts and cents as before', () => {
    expect(parseAmount('12345678')).toEqual({ amount: 12_345_678 });
    expect(parseAmount('60,00')).toEqual({ amount: 60 });
    expect(parseAmount('0.5')).toEqual({ amount: 0.5 });
    expect(parseAmount('1.234,50')).toHaveProperty('error', expect.stringContaining('thousands separator'));
  });

  it('refuses a thousands separator in a peso amount with a whole example, and never reads "12.000" as 12', () => {
    // es-CL shows $12.345.678: the dots group thousands, as in any currency they are refused, not
    // guessed; the example is written as a peso is, without the cents CLP does not show.
    for (const typed of ['12.345.678', '12,345,678', '12.000', '1.234', '1.234,50']) {
      const r = parseAmount(typed, 'CLP');
      expect(r, typed).toHaveProperty('error', expect.stringContaining('thousands separator: 1234567.'));
      expect((r as { error: string }).error, typed).not.toMatch(/\d[.,]\d/);
    }
    expect(parseAmount('12a', 'JPY')).toHaveProperty('error', expect.not.stringMatching(/\d[.,]\d/));
    expect(parseAmount('12345678', 'CLP')).toEqual({ amount: 12_345_678 });
    expect(parseAmount('1500,50', 'CLP')).toEqual({ amount: 1500.5 });
    // Other currencies keep their examples with cents.
    expect(parseAmount('1.234,50', 'EUR')).toHaveProperty('error', expect.stringContaining('1234,50'));
    expect(parseAmount('12.000', 'USD')).toEqual({ amount: 12 });
  });
});
