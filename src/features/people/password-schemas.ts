import { type Static, Type } from 'typebox';
import { DateTime } from '../../shared/params.js';
import { User } from './schemas.js';

/** Changing one's password and admins' reset links (issue #18, defect 6). */

const NewPassword = Type.String({ minLength: 10, maxLength: 1000, description: 'At least 10 characters' });

export const PasswordChange = Type.Object(
  {
    current_password: Type.String({ minLength: 1, maxLength: 1000 }),
    new_password: NewPassword,
  },
  { additionalProperties: false, $id: 'PasswordChangeParams' },
);

export const PasswordChanged = Type.Object(
  {
    object: Type.Literal('password_change'),
    user: User,
    sessions_ended: Type.Integer({ description: 'The user\u2019s other sessions, ended by the change' }),
  },
  { $id: 'PasswordChange' },
);
export type PasswordChanged = Static<typeof PasswordChanged>;

export const CreatedPasswordReset = Type.Object(
  {
    id: Type.String({ examples: ['pwr_01JBX0Q8Z7G6RM3K2T1V9W8Y7X'] }),
    object: Type.Literal('password_reset'),
    user: Type.String({ examples: ['usr_01JBX0Q8Z7G6RM3K2T1V9W8Y7X'] }),
    email: Type.String(),
    url: Type.String({ description: 'The single-use link on which the user sets a new password; shown once' }),
    expires_at: DateTime,
    sessions_ended: Type.Integer({ description: 'The user\u2019s sessions, all ended by the reset' }),
  },
  { $id: 'CreatedPasswordReset' },
);
export type CreatedPasswordReset = Static<typeof CreatedPasswordReset>;

export const PasswordResetView = Type.Object(
  { object: Type.Literal('password_reset'), email: Type.String(), expires_at: DateTime },
  { $id: 'PasswordReset' },
);
export type PasswordResetView = Static<typeof PasswordResetView>;

export const PasswordResetComplete = Type.Object(
  { password: NewPassword },
  { additionalProperties: false, $id: 'PasswordResetCompleteParams' },
);
