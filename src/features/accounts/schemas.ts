import { type Static, Type } from 'typebox';
import { AccountFilter, Currency, DateTime, Nullable } from '../../shared/params.js';

// Accounts and API keys over the API (the console's admin and merchant pages).

const Name = Type.String({ minLength: 1, maxLength: 200 });
const Mode = Type.Enum(['test', 'live']);

const PricingSchema = Type.Object(
  {
    base_fee: Type.Optional(Type.Integer({ minimum: 0, maximum: 1e9 })),
    per_km: Type.Optional(Type.Integer({ minimum: 0, maximum: 1e9 })),
    per_kg: Type.Optional(Type.Integer({ minimum: 0, maximum: 1e9 })),
    included_kg: Type.Optional(Type.Number({ minimum: 0, maximum: 1e6 })),
    urgent_fee: Type.Optional(Type.Integer({ minimum: 0, maximum: 1e9 })),
    cod_fee_rate: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    minimum: Type.Optional(Type.Integer({ minimum: 0, maximum: 1e9 })),
  },
  {
    additionalProperties: false,
    $id: 'AccountPricing',
    description: 'Overrides of the default pricing, money in minor units; absent fields use the defaults',
  },
);
const Origin = Type.Object(
  { lat: Type.Number({ minimum: -90, maximum: 90 }), lng: Type.Number({ minimum: -180, maximum: 180 }) },
  { additionalProperties: false, $id: 'AccountOrigin' },
);

const Timezone = Type.String({
  minLength: 1,
  maxLength: 64,
  description:
    'IANA zone of the account\u2019s days, e.g. America/Lima; null: the carrier\u2019s (RUTA_DEFAULT_TIMEZONE)',
});
const AccountDepot = Type.String({
  minLength: 1,
  maxLength: 100,
  description: 'The depot (dep_\u2026) the account\u2019s parcels leave from; its time zone wins over `timezone`',
});

export const Branding = Type.Object(
  {
    display_name: Nullable(Type.String({ minLength: 1, maxLength: 80, description: 'Shown instead of `name`' })),
    color: Nullable(Type.String({ pattern: '^#[0-9a-fA-F]{6}$', description: 'Brand colour, `#rrggbb`' })),
    logo_file: Nullable(Type.String({ description: 'An uploaded file (`purpose: logo`)' })),
  },
  {
    additionalProperties: false,
    description:
      'How the customer\u2019s tracking page shows the merchant (DESIGN §15); null: its name, Ruta\u2019s colour, no logo',
  },
);
export type Branding = Static<typeof Branding>;

export const Account = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('account'),
    name: Type.String(),
    currency: Type.String(),
    origin: Nullable(Origin),
    pricing: Nullable(PricingSchema),
    timezone: Nullable(Timezone),
    depot: Nullable(AccountDepot),
    branding: Branding,
    effective_timezone: Type.String({
      description:
        'The zone its new orders\u2019 days are read in: the depot\u2019s, else `timezone`, else the carrier\u2019s (docs/api.md)',
    }),
    created_at: DateTime,
  },
  { $id: 'Account' },
);
export type Account = Static<typeof Account>;

export const AccountList = Type.Object(
  { object: Type.Literal('list'), data: Type.Array(Account), has_more: Type.Boolean() },
  { $id: 'AccountList' },
);

export const AccountUpdate = Type.Object(
  {
    name: Type.Optional(Name),
    currency: Type.Optional(Currency()),
    origin: Type.Optional(Nullable(Origin)),
    pricing: Type.Optional(Nullable(PricingSchema)),
    timezone: Type.Optional(Nullable(Timezone)),
    depot: Type.Optional(Nullable(AccountDepot)),
    branding: Type.Optional(
      Type.Partial(Branding, { additionalProperties: false, description: 'Fields left out stay as they are' }),
    ),
  },
  { additionalProperties: false, $id: 'AccountUpdateParams' },
);
export type AccountUpdate = Static<typeof AccountUpdate>;

export const AccountCreate = Type.Object(
  {
    name: Name,
    currency: Type.Optional(Currency('ISO 4217 currency code, uppercase; default RUTA_DEFAULT_CURRENCY')),
    origin: Type.Optional(Nullable(Origin)),
    pricing: Type.Optional(Nullable(PricingSchema)),
    timezone: Type.Optional(Nullable(Timezone)),
    depot: Type.Optional(Nullable(AccountDepot)),
  },
  { additionalProperties: false, $id: 'AccountCreateParams' },
);
export type AccountCreate = Static<typeof AccountCreate>;

export const CreatedAccount = Type.Object(
  {
    ...Account.properties,
    keys: Type.Object(
      {
        test: Type.String({ examples: ['sk_test_…'] }),
        live: Type.String({ examples: ['sk_live_…'] }),
      },
      { description: 'The account\u2019s first secret keys, one per environment; shown once, now' },
    ),
  },
  { $id: 'CreatedAccount' },
);
export type CreatedAccount = Static<typeof CreatedAccount>;

export const ApiKey = Type.Object(
  {
    id: Type.String({ examples: ['key_01JBX0Q8Z7G6RM3K2T1V9W8Y7X'] }),
    object: Type.Literal('api_key'),
    account: Nullable(Type.String({ description: 'null for operator keys' })),
    role: Type.Enum(['merchant', 'operator']),
    mode: Mode,
    display: Type.String({ description: 'First and last characters, to tell keys apart' }),
    created_at: DateTime,
    revoked_at: Nullable(DateTime),
    expires_at: Nullable({ ...DateTime, description: 'Set when the key was rolled: it works until then' }),
  },
  { $id: 'ApiKey' },
);
export type ApiKey = Static<typeof ApiKey>;

export const CreatedApiKey = Type.Object(
  { ...ApiKey.properties, secret: Type.String({ description: 'Shown once, now; only its hash is kept' }) },
  { $id: 'CreatedApiKey' },
);
export type CreatedApiKey = Static<typeof CreatedApiKey>;

export const ApiKeyList = Type.Object(
  { object: Type.Literal('list'), data: Type.Array(ApiKey), has_more: Type.Boolean() },
  { $id: 'ApiKeyList' },
);

export const ApiKeyCreate = Type.Object(
  {
    mode: Mode,
    account: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'Admins: the account for a secret key; omit for an operator key. Merchant users: their own.',
      }),
    ),
  },
  { additionalProperties: false, $id: 'ApiKeyCreateParams' },
);

export const ApiKeyListQuery = Type.Object(
  { account: Type.Optional(AccountFilter('Admins: one account\u2019s keys (acct_…)')) },
  { additionalProperties: false },
);
