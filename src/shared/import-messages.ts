/**
 * The parts of the import API's messages that the console (web/src/console/imports/) says in its
 * own words. Pure: the server writes its messages with these (features/imports/dates.ts,
 * warnings.ts, convert.ts) and the console finds them with these, so a change of wording on one
 * side is a change on the other, not a console that silently stops rewriting.
 *
 * The console picks the messages by their machine-readable `code` and `param` first. Text is still
 * needed because it keeps the rest of each message (the cell, the id, the order it names) and
 * replaces only the part that names a query parameter, and because the header and formats of a
 * refused date_format are in the message alone: the error body has no field for them (spec §7,
 * DESIGN §6), and a more specific code would change codes docs/imports.md documents
 * (`parameter_invalid` for a row's date, as `POST /v1/orders` answers; `duplicate_external_order_id`
 * for every repeated id).
 */

/** The end of a row's `parameter_invalid` on `requested_date` for a date that could be day/month or month/day. */
export const DATE_FORMAT_HINT = 'upload again with ?date_format=DMY or ?date_format=MDY.';

/** In a `duplicate_external_order_id` warning on an order made although an earlier order has its id. */
export const SKIP_DUPLICATES_HINT = '(upload with duplicates=skip to leave such orders out)';

/** An upload's `date_format` parameter (`asked`) that a date column's header contradicts (`says`). */
export interface DateFormatClash {
  asked: string;
  header: string;
  says: string;
}

/** The upload's `parameter_invalid` message, `param: "date_format"`. */
export function dateFormatClashMessage(c: DateFormatClash): string {
  return `Invalid date_format: ${c.asked} contradicts the column "${c.header}", which says ${c.says}. Drop the parameter or change the header.`;
}

/**
 * `dateFormatClashMessage` read back. Greedy on the header and anchored at both ends, so a header
 * holding quotes or "which says" reads whole.
 */
export function readDateFormatClash(message: string): DateFormatClash | undefined {
  const m =
    /^Invalid date_format: (\w+) contradicts the column "([\s\S]*)", which says (\w+)\. Drop the parameter or change the header\.$/.exec(
      message,
    );
  if (!m) return undefined;
  const [, asked, header, says] = m as unknown as [string, string, string, string];
  return { asked, header, says };
}
