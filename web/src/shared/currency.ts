/**
 * How many decimals a currency is written with (ISO 4217's exponent, as Intl knows it: 0 for CLP
 * or JPY, 3 for KWD); 2 when Intl does not know the code. The amounts shown (money() in api.ts)
 * and the courier's typed cash (courier/amount.ts) read it here.
 */
export function shownDecimals(currency: string): number {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}
