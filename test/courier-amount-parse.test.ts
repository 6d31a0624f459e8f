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
});
