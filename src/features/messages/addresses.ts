import { type CountryCode, parsePhoneNumberFromString } from 'libphonenumber-js';

/**
 * A customer's phone as E.164, or null when it is not a valid number. `country` reads numbers
 * written without their country code (a Lima customer's `987 654 321`); without it such a number
 * is refused rather than guessed. libphonenumber-js checks the number's length and ranges per
 * country, which a regular expression cannot.
 */
export function e164(raw: string | undefined | null, country: string | null): string | null {
  if (!raw) return null;
  const parsed = parsePhoneNumberFromString(raw, country ? { defaultCountry: country as CountryCode } : undefined);
  return parsed?.isValid() ? parsed.number : null;
}

/** An email address as stored for opt-outs: trimmed and lower-cased. */
export function emailKey(raw: string | undefined | null): string | null {
  const v = raw?.trim().toLowerCase();
  // The order schema already checked the format; this only refuses blanks.
  return v?.includes('@') ? v : null;
}
