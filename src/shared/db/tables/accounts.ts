/** Created by 001_core. */
export interface AccountsTable {
  id: string;
  name: string;
  currency: string;
  /** JSON Pricing overrides (minor units); null means the configured defaults. */
  pricing: string | null;
  origin_lat: number | null;
  origin_lng: number | null;
  created_at: number;
}
