import type { Mode } from './columns.js';

export const AUTO_DISPATCH_MODES = ['off', 'suggest', 'assign'] as const;
export type AutoDispatchMode = (typeof AUTO_DISPATCH_MODES)[number];

/** Created by 018_dispatch: the auto-dispatch mode of the carrier ('' account) or of one account. */
export interface DispatchSettingsTable {
  mode: Mode;
  account_id: string;
  auto_dispatch: AutoDispatchMode;
  updated_at: number;
}
