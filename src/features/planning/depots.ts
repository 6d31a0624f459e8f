import type { Scope } from '../../shared/auth.js';
import { isTimezone } from '../../shared/config.js';
import type { AppContext } from '../../shared/context.js';
import { ApiError, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { iso } from '../../shared/time.js';
import * as repo from './repo.js';
import type { Depot, DepotCreate, DepotListQuery } from './schemas.js';

export function presentDepot(d: repo.DepotRow): Depot {
  return {
    id: d.id,
    object: 'depot',
    livemode: d.mode === 'live',
    name: d.name,
    lat: d.lat,
    lng: d.lng,
    address: d.address,
    timezone: d.timezone,
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
  const now = ctx.clock();
  const row: repo.DepotRow = {
    id: newId('dep', now),
    mode: scope.mode,
    name: body.name,
    lat: body.lat,
    lng: body.lng,
    address: body.address ?? null,
    timezone,
    created_at: now,
    updated_at: now,
  };
  await repo.insertDepot(ctx.db, row);
  return presentDepot(row);
}

export async function depotOrThrow(ctx: AppContext, scope: Scope, id: string): Promise<repo.DepotRow> {
  const d = await repo.findDepot(ctx.db, scope.mode, id);
  if (!d) throw notFound('depot', id);
  return d;
}

export async function getDepot(ctx: AppContext, scope: Scope, id: string): Promise<Depot> {
  return presentDepot(await depotOrThrow(ctx, scope, id));
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
  return { object: 'list' as const, data: rows.slice(0, limit).map(presentDepot), has_more: rows.length > limit };
}
