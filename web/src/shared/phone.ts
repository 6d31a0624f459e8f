import { type CountryCode, parsePhoneNumberFromString } from 'libphonenumber-js/min';

/**
 * A typed phone as E.164 when it reads as a valid number, as imports read a phone cell: spacing
 * dropped ("+51 987 654 321"), and a number without its country code read in the account's
 * `default_country` (its message settings). Anything else is sent as typed, for the API's message.
 */
export function phoneE164(raw: string, country: string | null): string {
  const t = raw.trim();
  if (t === '' || /^\+\d{8,15}$/.test(t)) return t;
  const parsed = parsePhoneNumberFromString(t, country ? { defaultCountry: country as CountryCode } : undefined);
  return parsed?.isValid() ? parsed.number : t;
}
