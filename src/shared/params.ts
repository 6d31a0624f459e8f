import { Type } from 'typebox';

/**
 * The path parameter of every `/…/{id}` route. One schema for all features, so the bounds (and
 * the OpenAPI document's `id` parameter) are the same everywhere.
 */
export const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });

/** A schema or null: optional-but-present fields answer null rather than going missing. */
export const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

/** An instant in ISO 8601 (`validation.ts` checks that `Date` can hold it). */
export const DateTime = Type.String({ format: 'date-time' });

/** The body of a POST that takes none: `{}` or no body at all (an absent body becomes `{}`). */
export const EmptyBody = Type.Object({}, { additionalProperties: false });

/**
 * `?account=`: narrowing a carrier's list (orders, webhook endpoints and deliveries, settlements,
 * reports, messages) to one merchant, or naming the merchant a request acts for (API keys, order
 * imports, per-account settings). Only an account id's shape is accepted (`acct_x'` or `12` is 422
 * `parameter_invalid` naming `account`, for every caller). For the carrier, a well-formed id of no
 * account answers a filter with an empty list (it matches nothing) and a request acting for it with
 * 404 naming `account`. A merchant may name its own account, the same as leaving it out; any other,
 * existing or not, is 403 naming `account` (shared/access.ts accountNamed; docs/api.md, "Naming an
 * account"). The description says so after the endpoint's own words, the same on every endpoint.
 */
export const AccountFilter = (description: string) =>
  Type.String({
    pattern: '^acct_[A-Za-z0-9]+$',
    maxLength: 100,
    description: `${description}. A merchant may name only its own account (the same as leaving it out); any other is 403.`,
  });

/**
 * `?account=` of the per-account settings routes (notification and proof settings): the carrier
 * names the merchant whose settings it reads or changes (shared/access.ts, settingsOwner).
 */
export const SettingsAccountQuery = Type.Object(
  {
    account: Type.Optional(
      AccountFilter(
        "The carrier (operator keys, admins, dispatchers): the merchant account whose settings to read or change; without it, the carrier's defaults",
      ),
    ),
  },
  { additionalProperties: false },
);

/**
 * A currency field of a request. The `currency` format is checked against CURRENCIES
 * (shared/currency.ts) by validation.ts, so `ZZZ` is 422 `parameter_invalid` naming the field, like a malformed `USDX`.
 */
export const Currency = (description = 'ISO 4217 currency code, uppercase (e.g. USD, PEN)') =>
  Type.String({ pattern: '^[A-Z]{3}$', format: 'currency', description });
