/** Created by 005_imports, keyed by row and seq since 036: one line per error of a rejected spreadsheet row. */
export interface OrderImportErrorsTable {
  import_id: string;
  row: number;
  /** A row's errors in the order they are shown (0, 1, …); its order's other rows have one, 0. */
  seq: number;
  /** Null on the row that was wrong; on the other rows of the same order, that row. */
  cause_row: number | null;
  column: string | null;
  param: string | null;
  code: string;
  message: string;
}
