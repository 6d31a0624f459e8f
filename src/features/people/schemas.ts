import { type Static, Type } from 'typebox';
import { USER_ROLES, USER_STATUSES } from '../../shared/db/tables/users.js';
import { DateTime, Nullable } from '../../shared/params.js';
import { Courier } from '../dispatch/schemas.js';

const Email = Type.String({ minLength: 3, maxLength: 254, examples: ['ana@carrier.example'] });
const Password = Type.String({ minLength: 10, maxLength: 1000, description: 'At least 10 characters' });
const Name = Type.String({ minLength: 1, maxLength: 200 });
const AccountId = Type.String({ minLength: 1, maxLength: 100, examples: ['acct_01JBX0Q8Z7G6RM3K2T1V9W8Y7X'] });
export const UserRoleSchema = Type.Enum([...USER_ROLES], { $id: 'UserRole' });
export const UserStatusSchema = Type.Enum([...USER_STATUSES], { $id: 'UserStatus' });
const _Mode = Type.Enum(['test', 'live']);

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
    timezone: Type.String({
      description:
        'IANA zone of the user\u2019s days (the console\u2019s \u201ctoday\u201d): a merchant user\u2019s account\u2019s, else the carrier\u2019s (RUTA_DEFAULT_TIMEZONE)',
    }),
  },
  { $id: 'Session' },
);
/** What sessions.ts builds; the routes add the zone (`withZone` in routes.ts). */
export type SessionView = Omit<Static<typeof SessionView>, 'timezone'>;

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
