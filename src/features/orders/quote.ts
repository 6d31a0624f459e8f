import type { Pricing } from '../../shared/config-pricing.js';
import type { AppContext } from '../../shared/context.js';
import type { Mode } from '../../shared/db/schema.js';
import { ApiError } from '../../shared/errors.js';
import { roadKm } from '../../shared/geo.js';
import { bodyErrors, bodyValidator } from '../../shared/validation.js';
import type { AccountRow } from '../accounts/repo.js';
import { accountById } from '../accounts/service.js';
import { zoneOfAccount } from '../accounts/zone.js';
import { type Located, locateAddress } from '../geocoding/locate.js';
import { type PickupAddress, pickupOf, pointOfAddress, requireWholePoint } from './pickup.js';
import { type PriceBreakdown, price, toMajor, toMinor } from './pricing.js';
import { OrderCreate, TIME_OF_DAY_RE } from './schemas.js';

// An order body checked and priced, without writing anything: a quote stops here, a create
// (create.ts) and an import's rows go on from the same checks so the three can never disagree.

export interface Computed {
  weightKg: number;
  packages: number;
  codMinor: number;
  km: number;
  breakdown: PriceBreakdown;
  account: AccountRow;
  /** The zone the order's days are read in. */
  timezone: string;
}

const isTimeOfDay = (v: unknown): v is string => typeof v === 'string' && TIME_OF_DAY_RE.test(v);

/** The same AJV check POST /v1/orders runs on its body, for bodies that arrive another way (imports). */
export const checkOrderCreate = bodyValidator(OrderCreate);
/** Every field of a refused order body, one error each (a bulk import's row shows them all). */
export const orderCreateErrors = bodyErrors(OrderCreate);

/**
 * The rules a JSON schema cannot express, every one the body breaks, in the order `compute` checks
 * them: required text that is only spaces, amounts with more than two decimals, a window that ends
 * before it starts. It reads the body defensively: a bulk import asks it of rows the schema refused
 * too, so that a row reports all of its problems at once.
 */
export function orderRuleErrors(body: unknown): ApiError[] {
  const out: ApiError[] = [];
  const at = (v: unknown, key: string): unknown =>
    typeof v === 'object' && v !== null ? (v as Record<string, unknown>)[key] : undefined;
  const blank = (v: unknown, param: string) => {
    if (typeof v === 'string' && v.trim() === '') {
      out.push(new ApiError('parameter_invalid', `Invalid ${param}: must not be blank.`, param));
    }
  };
  const cents = (v: unknown, param: string) => {
    if (typeof v === 'number' && toMinor(v) === undefined) {
      out.push(new ApiError('parameter_invalid', `Invalid ${param}: at most 2 decimal places.`, param));
    }
  };
  blank(at(at(body, 'customer'), 'name'), 'customer.name');
  blank(at(at(body, 'delivery_address'), 'address'), 'delivery_address.address');
  const items = at(body, 'items');
  if (Array.isArray(items)) {
    items.forEach((item, i) => {
      blank(at(item, 'description'), `items[${i}].description`);
      cents(at(item, 'declared_value'), `items[${i}].declared_value`);
    });
  }
  const [start, end] = [at(at(body, 'time_window'), 'start'), at(at(body, 'time_window'), 'end')];
  // Two times of day (the schema's HH:mm): "9am" is no start an end can come before.
  if (isTimeOfDay(start) && isTimeOfDay(end) && start >= end) {
    out.push(
      new ApiError(
        'parameter_invalid',
        `Invalid time_window.end: must be after time_window.start (${start}).`,
        'time_window.end',
      ),
    );
  }
  cents(at(body, 'cash_on_delivery'), 'cash_on_delivery');
  return out;
}

/** Checks the rules a JSON schema cannot express, and derives weight, packages and price. */
export async function compute(
  ctx: AppContext,
  accountId: string,
  body: OrderCreate,
  pickup: PickupAddress | null = null,
): Promise<Computed> {
  const items = body.items ?? [];
  const [broken] = orderRuleErrors(body);
  if (broken) throw broken;
  // Two decimals at most: orderRuleErrors has just checked it.
  const codMinor = toMinor(body.cash_on_delivery ?? 0) ?? 0;
  const account = await accountById(ctx, accountId);
  if (!account) throw new ApiError('api_key_invalid', 'Invalid API key provided.');
  const weightKg = Math.round(items.reduce((s, it) => s + (it.weight_kg ?? 0) * (it.quantity ?? 1), 0) * 1000) / 1000;
  const packages = items.length === 0 ? 1 : items.reduce((s, it) => s + (it.quantity ?? 1), 0);
  // A pair is priced from where it is collected; every other order from the account's pickup origin.
  const origin =
    pickup !== null && pickup.depot === null
      ? pointOfAddress(pickup)
      : account.origin_lat !== null && account.origin_lng !== null
        ? { lat: account.origin_lat, lng: account.origin_lng }
        : null;
  const a = body.delivery_address;
  const dest = a.lat !== undefined && a.lng !== undefined ? { lat: a.lat, lng: a.lng } : null;
  const km = roadKm(origin, dest);
  const pricing: Pricing = { ...ctx.config.defaultPricing, ...account.pricing };
  const breakdown = price(pricing, { km, weightKg, isUrgent: body.is_urgent ?? false, cashOnDelivery: codMinor });
  return { weightKg, packages, codMinor, km, breakdown, account, timezone: zoneOfAccount(account, ctx.config) };
}

/**
 * An address without coordinates, located by the geocoder when one is configured (RUTA_GEOCODER_URL):
 * the body with the point filled in, and how it was found (null: it came with coordinates, or there
 * is no geocoder).
 */
export async function located(
  ctx: AppContext,
  body: OrderCreate,
): Promise<{ body: OrderCreate; geocode: Located | null }> {
  const a = body.delivery_address;
  requireWholePoint(a, 'delivery_address');
  // A blank address is refused by compute's rules, not sent to the geocoder.
  if ((a.lat !== undefined && a.lng !== undefined) || a.address.trim() === '') return { body, geocode: null };
  const found = await locateAddress(ctx, a);
  if (!found) return { body, geocode: null };
  const address = found.point ? { ...a, lat: found.point.lat, lng: found.point.lng } : a;
  return { body: { ...body, delivery_address: address }, geocode: found.located };
}

export async function quote(ctx: AppContext, accountId: string, mode: Mode, sent: OrderCreate) {
  const { body } = await located(ctx, sent);
  const pickup = body.pickup_address == null ? null : await pickupOf(ctx, mode, body.pickup_address);
  const c = await compute(ctx, accountId, body, pickup);
  const b = c.breakdown;
  return {
    object: 'quote' as const,
    livemode: mode === 'live',
    currency: c.account.currency,
    shipping_cost: toMajor(b.total),
    distance_km: Math.round(c.km * 100) / 100,
    weight_kg: c.weightKg,
    packages: c.packages,
    breakdown: {
      base_fee: toMajor(b.base_fee),
      distance: toMajor(b.distance),
      weight: toMajor(b.weight),
      urgent: toMajor(b.urgent),
      cod_fee: toMajor(b.cod_fee),
      minimum_adjustment: toMajor(b.minimum_adjustment),
    },
  };
}
