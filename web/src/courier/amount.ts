import { MINOR_PER_MAJOR } from '../../../src/shared/money.js';
import { shownDecimals } from '../shared/currency.js';

/**
 * The largest amount the API takes (`MAX_MONEY` in src/features/orders/schemas.ts, which the web
 * bundle does not import: it brings the whole schema library). test/courier-amount-sync.browser.test.ts
 * checks the two agree.
 */
export const MAX_AMOUNT = 99_999_999.99;

/** Decimals of every currency's amounts (DESIGN §2: hundredths of the major unit). */
const DECIMALS = String(MINOR_PER_MAJOR).length - 1;

/**
 * An amount the courier typed, as the deliver move's `collected_amount` (a JSON number): digits with
 * one comma or dot before the cents, since a Spanish or Portuguese keyboard types "60,00". Refused
 * here, with words for the field, is what the server would refuse once the move syncs (the lifecycle's
 * proof check: not negative, at most 2 decimals, at most MAX_AMOUNT), so nothing doomed is queued.
 * A thousands separator is refused rather than guessed: "1.234" may be 1234 or 1.234, and one rule
 * for every currency is one the courier can learn. `currency` only shapes the refusal's example.
 */
export function parseAmount(text: string, currency?: string): { amount: number } | { error: string } {
  const s = text.replace(/[\s\u00a0\u202f]/g, '');
  // A peso or a yen is shown without decimals ("$12.345.678" in es-CL): an example with cents
  // ("1234,50") would name cents the courier never sees, so its examples are whole.
  const whole = currency !== undefined && shownDecimals(currency) === 0;
  const noGrouping = `Type it without a thousands separator: ${whole ? '1234567' : '1234,50 or 1234.50'}.`;
  if (s === '') return { error: 'Enter the amount collected.' };
  if (/^-/.test(s)) return { error: 'The amount cannot be negative.' };
  if (/[.,].*[.,]/.test(s)) return { error: noGrouping };
  // In a currency shown without decimals, a dot or comma before three digits is a thousands
  // separator (the screen says "$12.000"), never zeros past the cents: "12.000" is not read as 12.
  if (whole && /[.,]\d{3}$/.test(s)) return { error: noGrouping };
  const m = /^(\d*)(?:[.,](\d*))?$/.exec(s);
  if (!m || `${m[1]}${m[2] ?? ''}` === '') {
    return {
      error: whole
        ? 'Type the amount in digits, without a thousands separator: 1234567.'
        : 'Type the amount in digits, with a comma or a dot before the cents: 60,00 or 60.00.',
    };
  }
  // Zeros past the cents change nothing: the sheet shows a Kuwaiti dinar amount as Intl writes it,
  // "KWD 12.500", and a courier who types what the screen says is not refused for it.
  const typed = m[2] ?? '';
  const cents = /^0*$/.test(typed.slice(DECIMALS)) ? typed.slice(0, DECIMALS) : typed;
  if (cents.length > DECIMALS) {
    return {
      error: `At most ${DECIMALS} decimals, and no thousands separator: ${whole ? '1234567' : '1234,50 or 1234.50'}.`,
    };
  }
  const amount = Number(`${m[1] || '0'}.${cents || '0'}`);
  if (amount > MAX_AMOUNT) return { error: `The amount is too large: at most ${MAX_AMOUNT.toFixed(DECIMALS)}.` };
  return { amount };
}
