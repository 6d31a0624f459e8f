/** A cell as the file gives it: CSV cells are text; XLSX cells keep their type (formulas: their cached value). */
export type Cell = string | number | boolean | Date | null;

/** A data row and its spreadsheet row number (1-based, the header is row 1). */
export interface SheetRow {
  row: number;
  cells: Cell[];
}
