/**
 * A count and its noun, singular only for exactly one ("1 order", "0 orders", "3 rows"): one rule
 * for every message that counts things, rather than a `=== 1` test written out at each. Nouns whose
 * plural is not the singular plus "s" ("try", "tries") pass `many`.
 */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
