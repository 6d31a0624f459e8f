/**
 * Exact money (DESIGN §17, docs/money.md). An amount is an integer of minor units of one currency:
 * Ruta stores every amount as hundredths of its currency's major unit (DESIGN §2: amounts travel
 * as numbers with 2 decimals), so 12.50 PEN is 1250. Arithmetic stays in integers; a total is kept
 * per currency (`Totals`) and two currencies are never added together.
 *
 * Rounding rules, the only places a fraction of a minor unit can appear:
 * - a rate applied to an amount (`applyRate`: a fee of 1.5 %) rounds half away from zero, once,
 *   on the result (never on intermediate sums);
 * - an amount split into parts (`split`) never rounds: the parts are whole minor units and add up
 *   to the amount exactly (largest remainder, ties to the earlier part);
 * - a decimal from a client (`fromMajor`) with more than 2 decimals is refused, never rounded.
 */

/** Minor units in one major unit, for every currency (DESIGN §2). */
export const MINOR_PER_MAJOR = 100;

export interface Money {
  /** Integer minor units; negative for what is owed the other way. */
  amount: number;
  /** ISO 4217, upper case. */
  currency: string;
}

export class CurrencyMismatch extends Error {
  constructor(a: string, b: string) {
    super(`Cannot combine ${a} with ${b}: totals never mix currencies.`);
  }
}

function checkAmount(amount: number): number {
  if (!Number.isSafeInteger(amount)) throw new RangeError(`Not a whole number of minor units: ${amount}`);
  return amount;
}

export function money(amount: number, currency: string): Money {
  return { amount: checkAmount(amount), currency };
}

/** a + b, refused across currencies. */
export function add(a: Money, b: Money): Money {
  if (a.currency !== b.currency) throw new CurrencyMismatch(a.currency, b.currency);
  return money(a.amount + b.amount, a.currency);
}

export function subtract(a: Money, b: Money): Money {
  return add(a, { amount: -b.amount, currency: b.currency });
}

/** Half away from zero: 0.5 → 1, -0.5 → -1, 2.5 → 3 (Math.round alone sends -0.5 to -0). */
export function roundHalfAway(x: number): number {
  const r = Math.sign(x) * Math.round(Math.abs(x));
  return r === 0 ? 0 : r;
}

/** A fraction of an amount (a fee rate), rounded once, half away from zero. */
export function applyRate(m: Money, rate: number): Money {
  return money(roundHalfAway(m.amount * rate), m.currency);
}

/**
 * Splits an amount into parts proportional to `weights` (non-negative, not all zero): every part
 * is whole, and the parts add up to the amount exactly. Each part gets the floor of its share, and
 * the minor units left over go one each to the largest remainders (the earlier part on a tie).
 */
export function split(m: Money, weights: number[]): Money[] {
  const total = weights.reduce((s, w) => s + w, 0);
  if (weights.length === 0 || weights.some((w) => !(w >= 0)) || !(total > 0)) {
    throw new RangeError('split needs non-negative weights that are not all zero');
  }
  const sign = m.amount < 0 ? -1 : 1;
  const abs = Math.abs(m.amount);
  const exact = weights.map((w) => (abs * w) / total);
  const parts = exact.map(Math.floor);
  let left = abs - parts.reduce((s, p) => s + p, 0);
  const order = exact.map((x, i) => ({ i, r: x - Math.floor(x) })).sort((a, b) => b.r - a.r || a.i - b.i);
  for (let k = 0; left > 0; k = (k + 1) % order.length, left--) parts[order[k]!.i]! += 1;
  return parts.map((p) => money(sign * p === 0 ? 0 : sign * p, m.currency));
}

/** Major units from a client (12.5) to minor units (1250); undefined for more than 2 decimals. */
export function fromMajor(amount: number): number | undefined {
  const x = amount * MINOR_PER_MAJOR;
  const minor = Math.round(x);
  // Binary doubles miss most decimals by a few units in the last place (141534738.11 × 100 is
  // 14153473810.999998): the tolerance grows with the amount, far below a third decimal's 0.1.
  return Math.abs(minor - x) < Math.max(1e-6, Math.abs(x) * 8 * Number.EPSILON) ? minor : undefined;
}

/** Minor units to the number the API answers (1250 → 12.5). */
export function toMajor(minor: number): number {
  return Math.round(minor) / MINOR_PER_MAJOR;
}

/**
 * An amount as people read it on paper (a label, a receipt): the currency code, then the major
 * units with two decimals and a comma every three digits (1234550 PEN → "PEN 12,345.50").
 * Locale-free on purpose: the same label prints the same on every server.
 */
export function formatMoney(m: Money): string {
  const abs = Math.abs(checkAmount(m.amount));
  const whole = Math.floor(abs / MINOR_PER_MAJOR)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const cents = (abs % MINOR_PER_MAJOR).toString().padStart(2, '0');
  return `${m.currency} ${m.amount < 0 ? '-' : ''}${whole}.${cents}`;
}

/**
 * Sums kept per currency, so a report over orders in PEN and USD answers two totals, never one.
 * Currencies come back in alphabetical order, so the same data always reads the same way.
 */
export class Totals {
  private readonly by = new Map<string, number>();

  add(m: Money): this {
    checkAmount(m.amount);
    this.by.set(m.currency, checkAmount((this.by.get(m.currency) ?? 0) + m.amount));
    return this;
  }

  get(currency: string): Money {
    return money(this.by.get(currency) ?? 0, currency);
  }

  currencies(): string[] {
    return [...this.by.keys()].sort();
  }

  list(): Money[] {
    return this.currencies().map((c) => this.get(c));
  }
}

/** One total per currency of `items`, each item's amount read by `amountOf`. */
export function totalsOf<T>(items: Iterable<T>, amountOf: (item: T) => Money): Money[] {
  const t = new Totals();
  for (const item of items) t.add(amountOf(item));
  return t.list();
}
