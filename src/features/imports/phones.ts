import { type CountryCode, getCountryCallingCode, isSupportedCountry } from 'libphonenumber-js';
import { e164 } from '../messages/addresses.js';

const E164 = /^\+\d{8,15}$/;

/**
 * A phone cell as the API's E.164, when it reads as a valid number (libphonenumber-js checks the
 * length and ranges per country): "+51 987 654 321" and "+51-987-654-321" lose their spacing; with the
 * account's `default_country` (its customer-message settings, docs/notifications.md), a number
 * written without its country code ("987 654 321", "0051 987 654 321" through the country's
 * international prefix) gets it, and so do the digits of a number cell whose "+" Excel dropped
 * ("51987654321"), when they start with that country's code. Anything else is left as written, for
 * the order schema to refuse with the API's own message: a number is never guessed into another
 * country's.
 */
export function phoneCell(text: string, country: string | null): string {
  if (text === '' || E164.test(text)) return text;
  // A country stored before the settings checked it may be none libphonenumber knows: then none.
  const known = country && isSupportedCountry(country) ? (country as CountryCode) : null;
  const read = e164(text, known);
  if (read) return read;
  if (known && /^\d+$/.test(text) && text.startsWith(getCountryCallingCode(known))) {
    return e164(`+${text}`, null) ?? text;
  }
  return text;
}
