/**
 * Reading a tracking code (12 Crockford base-32 characters). Pure: the server (ids.ts, the public
 * page) and the courier app's scan sheet (web/src/courier/scan.ts) read codes by the same rule.
 */

/** Crockford decoding is forgiving: lower case, I/L for 1 and O for 0 all mean the same code. */
export function normalizeTrackingCode(input: string): string | undefined {
  const s = input.toUpperCase().replace(/[IL]/g, '1').replace(/O/g, '0');
  return /^[0-9A-HJKMNP-TV-Z]{12}$/.test(s) ? s : undefined;
}

/**
 * A code as a person types it off a label or a message: the spaces and hyphens they put between
 * groups ("J28T 1B45 YRAW") are not part of it, as Crockford's encoding says of hyphens.
 */
export function typedTrackingCode(input: string): string | undefined {
  return normalizeTrackingCode(input.replace(/[-\s]/g, ''));
}
