/** Created by 042_import_warnings: one line per warning of an imported row (it was not rejected for it). */
export interface OrderImportWarningsTable {
  import_id: string;
  /** The spreadsheet row (header = 1): a row group's first row. */
  row: number;
  /** A row's warnings in the order they are shown (0, 1, …). */
  seq: number;
  column: string | null;
  param: string | null;
  code: string;
  message: string;
}
