/**
 * The mean of customers' 1–5 ratings to two decimals, half up (docs/money.md): `sum * 100 / count`
 * is rounded, not `sum / count` scaled, so 4.005 is 4.01 and not the 4 of 400.49999… in floating
 * point. One rule for the reports and a courier's own average, so the two never differ.
 */
export const averageRating = (sum: number, count: number): number | null =>
  count === 0 ? null : Math.round((sum * 100) / count) / 100;
