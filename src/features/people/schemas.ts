import { type Static, Type } from 'typebox';
import { USER_ROLES, USER_STATUSES } from '../../shared/db/tables/users.js';
import { Courier } from '../dispatch/schemas.js';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);
const DateTime = Type.String({ format: 'date-time' });
const Email = Type.String({ minLength: 3, maxLength: 254, examples: ['ana@carrier.example'] });
const Password = Type.String({ minLength: 10, maxLength: 1000, description: 'At least 10 characters' });
const Name = Type.String({ minLength: 1, maxLength: 200 });
const AccountId = Type.String({ minLength: 1, maxLength: 100, examples: ['acct_01JBX0Q8Z7G6RM3K2T1V9W8Y7X'] });
export const UserRoleSchema = Type.Enum([...USER_ROLES], { $id: 'UserRole' });
export const UserStatusSchema = Type.Enum([...USER_STATUSES], { $id: 'UserStatus' });
const Mode = Type.Enum(['test', 'live']);

export const User = Type.Object(
  {
    id: Type.String({ examples: ['usr_01JBX0Q8Z7G6RM3K2T1V9W8Y7X'] }),
    object: Type.Literal('user'),
    email: Type.String(),
    name: Type.String(),
    role: UserRoleSchema,
    account: Nullable(Type.String({ description: 'The merchant\u2019s account; null for admins and dispatchers' })),
    status: UserStatusSchema,
    created_at: DateTime,
    updated_at: DateTime,
  },
  { $id: 'User' },
);
export type User = Static<typeof User>;

export const UserList = Type.Object(
  { object: Type.Literal('list'), data: Type.Array(User), has_more: Type.Boolean() },
  { $id: 'UserList' },
);

export const SessionCreate = Type.Object(
  { email: Type.String({ minLength: 1, maxLength: 254 }), password: Type.String({ minLength: 1, maxLength: 1000 }) },
  { additionalProperties: false, $id: 'SessionCreateParams' },
);

export const SessionView = Type.Object(
  {
    object: Type.Literal('session'),
    user: User,
    csrf_token: Type.String({ description: 'Send as X-CSRF-Token on every request that changes state' }),
    expires_at: { ...DateTime, description: 'Absolute end: 7 days after sign-in' },
    idle_expires_at: { ...DateTime, description: 'Ends earlier if no request comes for 12 hours' },
  },
  { $id: 'Session' },
);
export type SessionView = Static<typeof SessionView>;

export const Deleted = Type.Object({ object: Type.String(), deleted: Type.Literal(true) }, { $id: 'SessionEnded' });

export const UserCreate = Type.Object(
  {
    email: Email,
    name: Name,
    role: UserRoleSchema,
    account: Type.Optional(AccountId),
    password: Password,
  },
  { additionalProperties: false, $id: 'UserCreateParams' },
);

export const UserUpdate = Type.Object(
  {
    name: Type.Optional(Name),
    role: Type.Optional(UserRoleSchema),
    account: Type.Optional(Nullable(AccountId)),
    status: Type.Optional(UserStatusSchema),
  },
  { additionalProperties: false, $id: 'UserUpdateParams' },
);

export const InvitationCreate = Type.Object(
  { email: Email, role: UserRoleSchema, account: Type.Optional(AccountId) },
  { additionalProperties: false, $id: 'InvitationCreateParams' },
);

export const CreatedInvitation = Type.Object(
  {
    id: Type.String({ examples: ['inv_01JBX0Q8Z7G6RM3K2T1V9W8Y7X'] }),
    object: Type.Literal('invitation'),
    email: Type.String(),
    role: UserRoleSchema,
    account: Nullable(Type.String()),
    url: Type.String({ description: 'The single-use link; shown once' }),
    expires_at: DateTime,
  },
  { $id: 'CreatedInvitation' },
);
export type CreatedInvitation = Static<typeof CreatedInvitation>;

export const InvitationView = Type.Object(
  { object: Type.Literal('invitation'), email: Type.String(), role: UserRoleSchema, expires_at: DateTime },
  { $id: 'Invitation' },
);
export type InvitationView = Static<typeof InvitationView>;

export const PendingInvitation = Type.Object(
  {
    id: Type.String({ examples: ['inv_01JBX0Q8Z7G6RM3K2T1V9W8Y7X'] }),
    object: Type.Literal('invitation'),
    email: Type.String(),
    role: UserRoleSchema,
    account: Nullable(Type.String()),
    created_at: DateTime,
    expires_at: DateTime,
  },
  {
    $id: 'PendingInvitation',
    description: 'An invitation not yet accepted and not expired; its link is never shown again',
  },
);
export type PendingInvitation = Static<typeof PendingInvitation>;

export const RevokedInvitation = Type.Object(PendingInvitation.properties, {
  $id: 'RevokedInvitation',
  description: 'The invitation as revoked: its link stopped working at `expires_at`, the time of the revocation',
});

export const PendingInvitationList = Type.Object(
  { object: Type.Literal('list'), data: Type.Array(PendingInvitation), has_more: Type.Boolean() },
  { $id: 'PendingInvitationList' },
);

/** Operations that take no parameters: an absent body, or `{}`. */
export const EmptyBody = Type.Object({}, { additionalProperties: false });

export const TokenParams = Type.Object({ token: Type.String({ minLength: 1, maxLength: 100 }) });

export const InvitationAccept = Type.Object(
  { name: Name, password: Password },
  { additionalProperties: false, $id: 'InvitationAcceptParams' },
);

export const SignInCode = Type.Object(
  {
    object: Type.Literal('courier_sign_in_code'),
    courier: Type.String(),
    code: Type.String({ description: '8 characters, single use; shown once', examples: ['K7QX2M9P'] }),
    url: Type.String({ description: 'Opens the courier app with the code filled in (show it as a QR code)' }),
    expires_at: DateTime,
  },
  { $id: 'CourierSignInCode' },
);
export type SignInCode = Static<typeof SignInCode>;

export const CourierSessionCreate = Type.Object(
  { code: Type.String({ minLength: 1, maxLength: 20 }) },
  { additionalProperties: false, $id: 'CourierSessionCreateParams' },
);

export const CourierSessionView = Type.Object(
  {
    object: Type.Literal('courier_session'),
    courier: Courier,
    csrf_token: Type.String(),
    expires_at: DateTime,
  },
  { $id: 'CourierSession' },
);
export type CourierSessionView = Static<typeof CourierSessionView>;

export const CourierSignOut = Type.Object(
  { object: Type.Literal('courier_sign_out'), courier: Type.String(), sessions_ended: Type.Integer() },
  { $id: 'CourierSignOut' },
);

// Accounts and API keys (the console's admin and merchant pages).

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

export const Account = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('account'),
    name: Type.String(),
    currency: Type.String(),
    origin: Nullable(Origin),
    pricing: Nullable(PricingSchema),
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
    currency: Type.Optional(Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217' })),
    origin: Type.Optional(Nullable(Origin)),
    pricing: Type.Optional(Nullable(PricingSchema)),
  },
  { additionalProperties: false, $id: 'AccountUpdateParams' },
);
export type AccountUpdate = Static<typeof AccountUpdate>;

export const AccountCreate = Type.Object(
  {
    name: Name,
    currency: Type.Optional(
      Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217; default RUTA_DEFAULT_CURRENCY' }),
    ),
    origin: Type.Optional(Nullable(Origin)),
    pricing: Type.Optional(Nullable(PricingSchema)),
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
  { account: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })) },
  { additionalProperties: false },
);
