/** Created by 005_imports: which order each row group of an import became. */
export interface OrderImportOrdersTable {
  import_id: string;
  /** The 1-based spreadsheet row (header = 1) of the group's first row. */
  row: number;
  order_id: string;
}
