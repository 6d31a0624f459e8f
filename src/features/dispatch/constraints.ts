import type { CouriersTable } from '../../shared/db/schema.js';
import { ApiError } from '../../shared/errors.js';
import type { Courier, CourierCreate } from './schemas.js';

// A courier's constraints (DESIGN §16) between the API's shape (a break object, a skills array) and
// its columns (021_constraints). Planning and live dispatch read the columns through `constraintsOf`.

export type ConstraintColumns = Pick<
  CouriersTable,
  | 'skills'
  | 'break_earliest'
  | 'break_latest'
  | 'break_minutes'
  | 'max_route_minutes'
  | 'max_route_km'
  | 'max_stops'
  | 'route_end'
>;
type Fields = Pick<
  CourierCreate,
  'skills' | 'break' | 'max_route_minutes' | 'max_route_km' | 'max_stops' | 'route_end'
>;
export type Constraints = Pick<
  Courier,
  'skills' | 'break' | 'max_route_minutes' | 'max_route_km' | 'max_stops' | 'route_end'
>;

const minutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3));

/** A break must be able to start: its latest start not before its earliest. */
export function checkBreak(b: Fields['break'], param = 'break'): void {
  if (b && minutes(b.latest) < minutes(b.earliest)) {
    throw new ApiError(
      'parameter_invalid',
      `Invalid ${param}.latest: the break\u2019s latest start must not be before its earliest (${b.earliest}).`,
      `${param}.latest`,
    );
  }
}

/**
 * A shift must end after it starts, on the same day: plans and dispatch cannot use an overnight
 * one. A courier's own shift is checked where it is typed; a plan checks it again with its
 * per-plan overrides (`param`: `couriers[i].shift_end`).
 */
export function checkShift(
  start: string | null | undefined,
  end: string | null | undefined,
  param = 'shift_end',
): void {
  if (start && end && minutes(end) <= minutes(start)) {
    throw new ApiError(
      'parameter_invalid',
      `Invalid ${param}: the shift must end after it starts (${start}), on the same day.`,
      param,
    );
  }
}

/** The columns of the fields sent (absent ones untouched; null clears). */
export function toConstraintColumns(body: Fields): Partial<ConstraintColumns> {
  checkBreak(body.break);
  const out: Partial<ConstraintColumns> = {};
  if (body.skills !== undefined)
    out.skills = body.skills && body.skills.length > 0 ? JSON.stringify(body.skills) : null;
  if (body.break !== undefined) {
    out.break_earliest = body.break?.earliest ?? null;
    out.break_latest = body.break?.latest ?? null;
    out.break_minutes = body.break?.duration_min ?? null;
  }
  if (body.max_route_minutes !== undefined) out.max_route_minutes = body.max_route_minutes;
  if (body.max_route_km !== undefined) out.max_route_km = body.max_route_km;
  if (body.max_stops !== undefined) out.max_stops = body.max_stops;
  if (body.route_end !== undefined) out.route_end = body.route_end;
  return out;
}

export function constraintsOf(c: ConstraintColumns): Constraints {
  return {
    skills: c.skills === null ? [] : (JSON.parse(c.skills) as string[]),
    break:
      c.break_earliest !== null && c.break_latest !== null && c.break_minutes !== null
        ? { earliest: c.break_earliest, latest: c.break_latest, duration_min: c.break_minutes }
        : null,
    max_route_minutes: c.max_route_minutes,
    max_route_km: c.max_route_km,
    max_stops: c.max_stops,
    route_end: c.route_end ?? 'depot',
  };
}

/** No constraint at all: a new courier's columns. */
export const NO_CONSTRAINTS: ConstraintColumns = {
  skills: null,
  break_earliest: null,
  break_latest: null,
  break_minutes: null,
  max_route_minutes: null,
  max_route_km: null,
  max_stops: null,
  route_end: null,
};
