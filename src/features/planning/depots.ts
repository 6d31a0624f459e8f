import type { Scope } from '../../shared/auth.js';
import type { Config } from '../../shared/config.js';
import type { AppContext } from '../../shared/context.js';
import { ApiError, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { isTimezone } from '../../shared/local-time.js';
import { iso } from '../../shared/time.js';
import * as repo from './repo.js';
import type { Depot, DepotCreate, DepotListQuery } from './schemas.js';
import { endsAfterStart, workingDay } from './shift.js';

/** The working day shown is the one couriers without a shift get: the depot's, else the carrier's. */
export function presentDepot(d: repo.DepotRow, config: Config): Depot {
  const day = workingDay(d, config);
  return {
    id: d.id,
    object: 'depot',
    livemode: d.mode === 'live',
    name: d.name,
    lat: d.lat,
    lng: d.lng,
    address: d.address,
    timezone: d.timezone,
    shift_start: day.start,
    shift_end: day.end,
    created_at: iso(d.created_at),
    updated_at: iso(d.updated_at),
  };
}

export async function createDepot(ctx: AppContext, scope: Scope, body: DepotCreate): Promise<Depot> {
  const timezone = body.timezone ?? ctx.config.defaultTimezone;
  if (!isTimezone(timezone)) {
    throw new ApiError(
      'parameter_invalid',
      `Invalid timezone: '${timezone}' is not an IANA time zone (e.g. America/Lima).`,
      'timezone',
    );
  }
  const own = { shift_start: body.shift_start ?? null, shift_end: body.shift_end ?? null };
  const day = workingDay(own, ctx.config);
  if (!endsAfterStart(day)) {
    const side = own.shift_end === null ? 'shift_start' : 'shift_end';
    throw new ApiError(
      'parameter_invalid',
      `Invalid ${side}: the working day ${day.start}\u2013${day.end} must end after it starts (a missing end is the carrier\u2019s, RUTA_DEFAULT_SHIFT).`,
      side,
    );
  }
  const now = ctx.clock();
  const row: repo.DepotRow = {
    id: newId('dep', now),
    mode: scope.mode,
    name: body.name,
    lat: body.lat,
    lng: body.lng,
    address: body.address ?? null,
    timezone,
    ...own,
    created_at: now,
    updated_at: now,
  };
  await repo.insertDepot(ctx.db, row);
  return presentDepot(row, ctx.config);
}

export async function depotOrThrow(ctx: AppContext, scope: Scope, id: string): Promise<repo.DepotRow> {
  const d = await repo.findDepot(ctx.db, scope.mode, id);
  if (!d) throw notFound('depot', id);
  return d;
}

export async function getDepot(ctx: AppContext, scope: Scope, id: string): Promise<Depot> {
  return presentDepot(await depotOrThrow(ctx, scope, id), ctx.config);
}

export async function listDepots(ctx: AppContext, scope: Scope, q: DepotListQuery) {
  const limit = q.limit ?? 20;
  if (q.starting_after !== undefined && !(await repo.findDepot(ctx.db, scope.mode, q.starting_after))) {
    throw new ApiError(
      'parameter_invalid',
      `Invalid starting_after: no such depot '${q.starting_after}'.`,
      'starting_after',
    );
  }
  const rows = await repo.listDepots(ctx.db, scope.mode, { limit, after: q.starting_after });
  return {
    object: 'list' as const,
    data: rows.slice(0, limit).map((d) => presentDepot(d, ctx.config)),
    has_more: rows.length > limit,
  };
}
