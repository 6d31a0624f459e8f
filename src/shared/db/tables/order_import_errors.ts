/** Created by 005_imports: one line per rejected spreadsheet row. */
export interface OrderImportErrorsTable {
  import_id: string;
  row: number;
  /** Null on the row that was wrong; on the other rows of the same order, that row. */
  cause_row: number | null;
  column: string | null;
  param: string | null;
  code: string;
  message: string;
}
