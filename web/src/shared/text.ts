/**
 * A count and its noun, singular only for exactly one ("1 order", "0 orders", "3 rows"): one rule
 * for every message that counts things, rather than a `=== 1` test written out at each. Nouns whose
 * plural is not the singular plus "s" ("try", "tries") pass `many`.
 */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/**
 * A number as people type it: "-12,05" (a decimal comma, as Spanish keyboards give it) is -12.05;
 * anything else that is no number, "12,5 kg" or "abc", is NaN for the form to refuse. Never a
 * prefix, as `parseFloat` reads one: "-12,11" was -12, a depot placed 12 km away.
 */
export function typedNumber(raw: string): number {
  const t = raw.trim();
  return t === '' ? Number.NaN : Number(t.replace(/^([-+]?\d+),(\d+)$/, '$1.$2'));
}
