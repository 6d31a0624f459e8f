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
  /** Added by 014_local_days: IANA zone of the account's days; null: the carrier's (RUTA_DEFAULT_TIMEZONE). */
  timezone: string | null;
  /** Added by 014_local_days: the depot its parcels leave from (any environment); its zone wins over `timezone`. */
  depot_id: string | null;
  /** 016: the merchant's brand on the tracking page (null: its name, Ruta's colour, no logo). */
  brand_name: string | null;
  brand_color: string | null;
  brand_logo_file: string | null;
}
