/** Created by 006_people. */
export const USER_ROLES = ['admin', 'dispatcher', 'merchant'] as const;
export type UserRole = (typeof USER_ROLES)[number];
export const USER_STATUSES = ['active', 'disabled'] as const;
export type UserStatus = (typeof USER_STATUSES)[number];

export interface UsersTable {
  id: string;
  /** Lower-cased: emails are unique case-insensitively. */
  email: string;
  name: string;
  role: UserRole;
  /** The merchant's account; null for admins and dispatchers. */
  account_id: string | null;
  status: UserStatus;
  /** `scrypt$N$r$p$salt$hash` (base64url); never returned, never logged. */
  password_hash: string;
  created_at: number;
  updated_at: number;
}
