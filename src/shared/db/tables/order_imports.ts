import type { Mode } from './columns.js';

export const IMPORT_STATUSES = ['queued', 'processing', 'succeeded', 'failed'] as const;
export type ImportStatus = (typeof IMPORT_STATUSES)[number];
export const IMPORT_MODES = ['valid_rows', 'all_or_nothing'] as const;
export type ImportMode = (typeof IMPORT_MODES)[number];
export const DATE_FORMATS = ['DMY', 'MDY', 'ISO'] as const;
export type DateFormat = (typeof DATE_FORMATS)[number];
/** `?duplicates=`: what becomes of an order whose external_order_id the account and environment already have. */
export const IMPORT_DUPLICATES = ['create', 'skip'] as const;
export type ImportDuplicates = (typeof IMPORT_DUPLICATES)[number];
export const IMPORT_TYPES = ['text/csv', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'] as const;
export type ImportType = (typeof IMPORT_TYPES)[number];

/** Created by 005_imports. */
export interface OrderImportsTable {
  id: string;
  account_id: string;
  mode: Mode;
  status: ImportStatus;
  import_mode: ImportMode;
  /** Since 042_import_warnings. */
  duplicates: ImportDuplicates;
  date_format: DateFormat | null;
  content_type: ImportType;
  /** The uploaded file, byte for byte. */
  content: Buffer;
  size: number;
  total_rows: number;
  processed_rows: number;
  created_orders: number;
  failed_rows: number;
  /** Orders left out by `duplicates: skip` (since 042_import_warnings). */
  skipped_orders: number;
  failure_message: string | null;
  lease_owner: string | null;
  lease_expires_at: number | null;
  created_at: number;
  updated_at: number;
  completed_at: number | null;
}
