import type { Scope } from '../../shared/auth.js';
import type { AppContext } from '../../shared/context.js';
import { ApiError, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { averageRating } from '../../shared/rating.js';
import { iso, parseInstant } from '../../shared/time.js';
import { checkShift, constraintsOf, NO_CONSTRAINTS, toConstraintColumns } from './constraints.js';
import { LOCATIONS, type Point } from './location-writer.js';
import * as repo from './repo.js';
import type {
  Courier,
  CourierCreate,
  CourierListQuery,
  CourierUpdate,
  LocationBody,
  LocationsBody,
} from './schemas.js';

/** A ping may be late (offline devices upload a backlog) but not from the future beyond clock skew. */
const MAX_CLOCK_SKEW_MS = 5 * 60 * 1000;
/**
 * How old a ping may be: a week. A phone keeps what it could not send for as long as it is off the
 * network, so a few days of backlog is normal; a fix older than that is no position anyone acts on,
 * and it usually means a clock reset (a drained battery: 1970, 2000), whose points would push the
 * real ones out of the courier's 100-ping history.
 */
const MAX_POINT_AGE_MS = 7 * 24 * 60 * 60 * 1000;

export function presentCourier(c: repo.CourierRow): Courier {
  return {
    id: c.id,
    object: 'courier',
    livemode: c.mode === 'live',
    account: c.account_id,
    name: c.name,
    phone: c.phone,
    vehicle: c.vehicle,
    status: c.status,
    location:
      c.last_lat === null || c.last_lng === null || c.last_recorded_at === null
        ? null
        : { lat: c.last_lat, lng: c.last_lng, recorded_at: iso(c.last_recorded_at) },
    capacity_kg: c.capacity_kg,
    capacity_packages: c.capacity_packages,
    shift_start: c.shift_start,
    shift_end: c.shift_end,
    start_depot: c.start_depot,
    end_depot: c.end_depot,
    rating: {
      average: averageRating(c.rating_total, c.rating_count),
      count: c.rating_count,
    },
    ...constraintsOf(c),
    created_at: iso(c.created_at),
    updated_at: iso(c.updated_at),
  };
}

async function courierOrThrow(ctx: AppContext, scope: Scope, id: string): Promise<repo.CourierRow> {
  const c = await repo.findCourier(ctx.db, scope, id);
  if (!c) throw notFound('courier', id);
  return c;
}

/** A courier's depots must exist in its environment (depots are the carrier's, one per mode). */
async function checkDepots(ctx: AppContext, scope: Scope, body: Pick<CourierCreate, 'start_depot' | 'end_depot'>) {
  for (const param of ['start_depot', 'end_depot'] as const) {
    const id = body[param];
    if (id != null && !(await repo.depotExists(ctx.db, scope.mode, id))) {
      throw new ApiError('parameter_invalid', `Invalid ${param}: no such depot '${id}'.`, param);
    }
  }
}

export async function createCourier(ctx: AppContext, scope: Scope, body: CourierCreate): Promise<Courier> {
  checkShift(body.shift_start, body.shift_end);
  await checkDepots(ctx, scope, body);
  const now = ctx.clock();
  const row: repo.CourierRow = {
    id: newId('cou', now),
    account_id: scope.accountId,
    mode: scope.mode,
    name: body.name,
    phone: body.phone ?? null,
    vehicle: body.vehicle ?? null,
    last_lat: null,
    last_lng: null,
    last_recorded_at: null,
    ping_count: 0,
    status: 'active',
    capacity_kg: body.capacity_kg ?? null,
    capacity_packages: body.capacity_packages ?? null,
    shift_start: body.shift_start ?? null,
    shift_end: body.shift_end ?? null,
    start_depot: body.start_depot ?? null,
    end_depot: body.end_depot ?? null,
    ...NO_CONSTRAINTS,
    ...toConstraintColumns(body),
    created_at: now,
    updated_at: now,
    rating_count: 0,
    rating_total: 0,
  };
  await repo.insertCourier(ctx.db, row);
  return presentCourier(row);
}

export async function getCourier(ctx: AppContext, scope: Scope, id: string): Promise<Courier> {
  return presentCourier(await courierOrThrow(ctx, scope, id));
}

export async function listCouriers(ctx: AppContext, scope: Scope, q: CourierListQuery) {
  const limit = q.limit ?? 20;
  if (q.starting_after !== undefined && !(await repo.findCourier(ctx.db, scope, q.starting_after))) {
    throw new ApiError(
      'parameter_invalid',
      `Invalid starting_after: no such courier '${q.starting_after}'.`,
      'starting_after',
    );
  }
  const rows = await repo.listCouriers(ctx.db, scope, { limit, after: q.starting_after });
  return {
    object: 'list' as const,
    data: rows.slice(0, limit).map(presentCourier),
    has_more: rows.length > limit,
  };
}

export async function updateCourier(ctx: AppContext, scope: Scope, id: string, body: CourierUpdate) {
  const c = await courierOrThrow(ctx, scope, id);
  // Only a change of the shift is checked: an older reversed one does not block a rename.
  if (body.shift_start !== undefined || body.shift_end !== undefined) {
    checkShift(
      body.shift_start === undefined ? c.shift_start : body.shift_start,
      body.shift_end === undefined ? c.shift_end : body.shift_end,
    );
  }
  await checkDepots(ctx, scope, body);
  const row = await ctx.db.transaction().execute(async (trx) => {
    const {
      skills: _s,
      break: _b,
      max_route_minutes: _m,
      max_route_km: _k,
      max_stops: _n,
      route_end: _e,
      ...plain
    } = body;
    const updated = await repo.updateCourier(trx, c.id, {
      ...plain,
      ...toConstraintColumns(body),
      updated_at: ctx.clock(),
    });
    if (body.name !== undefined && body.name !== c.name) await repo.renameOnOrders(trx, c.id, body.name);
    if (body.status === 'disabled') await repo.endCourierSessions(trx, c.id);
    return updated;
  });
  ctx.instance.peek(LOCATIONS)?.forget(c.id);
  return presentCourier(row);
}

/**
 * One ping, answered once it is committed (LocationWriter): a stale ping is accepted (the device
 * may drop it from its queue) and kept in the history, but does not move the courier.
 */
export async function recordLocation(ctx: AppContext, scope: Scope, id: string, body: LocationBody) {
  const now = ctx.clock();
  const recordedAt = body.recorded_at === undefined ? now : parseInstant(body.recorded_at);
  checkNotAhead(recordedAt, now, 'recorded_at');
  const writer = ctx.instance.get(LOCATIONS);
  const courier = await writer.courier(scope, id);
  checkNotBefore(recordedAt, earliest(courier, now), courier, 'recorded_at');
  return presentCourier(await writer.add(courier, [{ lat: body.lat, lng: body.lng, recordedAt }]));
}

/** A phone's buffered points, oldest first (DESIGN §9): all go to the history, the newer ones move the courier. */
export async function recordLocations(ctx: AppContext, scope: Scope, id: string, body: LocationsBody) {
  const now = ctx.clock();
  const points: Point[] = [];
  for (const [i, p] of body.points.entries()) {
    const recordedAt = parseInstant(p.recorded_at);
    checkNotAhead(recordedAt, now, `points[${i}].recorded_at`);
    const before = points[i - 1];
    if (before !== undefined && recordedAt < before.recordedAt) {
      throw new ApiError(
        'parameter_invalid',
        `Invalid points[${i}].recorded_at: points must be sent oldest first, and this one is older than points[${i - 1}].`,
        `points[${i}].recorded_at`,
      );
    }
    points.push({ lat: p.lat, lng: p.lng, recordedAt });
  }
  const writer = ctx.instance.get(LOCATIONS);
  const courier = await writer.courier(scope, id);
  // Oldest first: if any point is too old, the first one is.
  checkNotBefore(points[0]!.recordedAt, earliest(courier, now), courier, 'points[0].recorded_at');
  return presentCourier(await writer.add(courier, points));
}

function checkNotAhead(recordedAt: number, now: number, param: string): void {
  if (recordedAt > now + MAX_CLOCK_SKEW_MS) {
    throw new ApiError(
      'parameter_invalid',
      `Invalid ${param}: it is more than 5 minutes ahead of the server's clock.`,
      param,
    );
  }
}

/**
 * The oldest fix a courier may report: not before it existed (less the clock skew a phone may
 * have), and not older than MAX_POINT_AGE_MS.
 */
function earliest(courier: repo.CourierRow, now: number): number {
  return Math.max(courier.created_at - MAX_CLOCK_SKEW_MS, now - MAX_POINT_AGE_MS);
}

function checkNotBefore(recordedAt: number, from: number, courier: repo.CourierRow, param: string): void {
  if (recordedAt >= from) return;
  const why =
    from === courier.created_at - MAX_CLOCK_SKEW_MS
      ? `it is before the courier was created (${iso(courier.created_at)})`
      : `it is more than ${MAX_POINT_AGE_MS / 86_400_000} days old`;
  throw new ApiError('parameter_invalid', `Invalid ${param}: ${why}.`, param);
}

export async function locationsOf(ctx: AppContext, scope: Scope, id: string) {
  const c = await courierOrThrow(ctx, scope, id);
  const rows = await repo.recentLocations(ctx.db, c.id);
  return {
    object: 'list' as const,
    data: rows.map((r) => ({ lat: r.lat, lng: r.lng, recorded_at: iso(r.recorded_at) })),
    has_more: false,
  };
}
