import { isFinished } from '../../../../src/features/lifecycle/transitions.js';
import type { Schemas } from '../../shared/api';

type Route = Schemas['Route'];
type Stop = Route['stops'][number];

/**
 * A route's parcels, as the Routes page and the route page count them: its delivery stops still on
 * it. A stop moved to another route is that route's now; a pair's pickup is the same parcel as its
 * delivery, not one of its own.
 */
export const parcelsOf = (r: Route): Stop[] => r.stops.filter((s) => s.on_route && s.kind === 'delivery');

/** Missing: an open stop whose label was not scanned into the vehicle. A finished one left with it. */
export const isMissing = (s: Stop): boolean => !s.loaded_at && !isFinished(s.status);
