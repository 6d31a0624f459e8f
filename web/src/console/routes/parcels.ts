import { isFinished } from '../../../../src/features/lifecycle/transitions.js';

/** What counting needs of a route's stop (`Route['stops'][number]` has it all). */
interface Stop {
  kind: string;
  on_route: boolean;
  loaded_at: string | null;
  status: Parameters<typeof isFinished>[0];
}

/**
 * A route's parcels, as the Routes page and the route page count them: its delivery stops still on
 * it. A stop moved to another route is that route's now; a pair's pickup is the same parcel as its
 * delivery, not one of its own.
 */
export const parcelsOf = <S extends Stop>(r: { stops: S[] }): S[] =>
  r.stops.filter((s) => s.on_route && s.kind === 'delivery');

/** Missing: an open stop whose label was not scanned into the vehicle. A finished one left with it. */
export const isMissing = (s: Stop): boolean => !s.loaded_at && !isFinished(s.status);
