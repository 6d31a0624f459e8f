/** Created by 001_core. */
export interface SettingsTable {
  key: string;
  value: string;
}
