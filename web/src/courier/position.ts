/**
 * The fix each courier move carries (docs/api.md "Positions of moves"): taken when the courier taps,
 * so a move queued offline and sent an hour later still says where and when it was made. A phone
 * that refuses its position (permission denied, no signal in time) sends the move without one: the
 * position is evidence, never a condition of the move.
 */
import { COURIER_MOVES } from '../../../src/features/lifecycle/transitions.js';
import { lastPosition } from './hooks/useDutyLocation';
import type { Entry } from './queue';

/** A fix this recent is reused rather than waking the GPS again (the duty watch keeps one fresh). */
export const REUSE_MS = 2 * 60_000;
/** How long a tap waits for a new fix before the move is queued without one. */
const WAIT_MS = 2000;

export interface MovePosition {
  lat: number;
  lng: number;
  accuracy_m?: number;
  recorded_at: string;
}

function current(): Promise<GeolocationPosition | null> {
  if (!('geolocation' in navigator)) return Promise.resolve(null);
  return new Promise((resolve) => {
    // The browser's own timeout may never fire while a permission prompt is open: ours does.
    const timer = setTimeout(() => resolve(null), WAIT_MS + 500);
    navigator.geolocation.getCurrentPosition(
      (p) => {
        clearTimeout(timer);
        resolve(p);
      },
      () => {
        clearTimeout(timer);
        resolve(null);
      },
      { enableHighAccuracy: true, maximumAge: REUSE_MS, timeout: WAIT_MS },
    );
  });
}

/** The phone's position at the tap (`tapAt`, epoch ms), or undefined when it has none to give. */
export async function fixAtTap(tapAt = Date.now()): Promise<MovePosition | undefined> {
  const recorded_at = new Date(tapAt).toISOString();
  const last = lastPosition.current;
  if (last && tapAt - Date.parse(last.recorded_at) <= REUSE_MS) {
    return {
      lat: last.lat,
      lng: last.lng,
      ...(last.accuracy_m != null ? { accuracy_m: last.accuracy_m } : {}),
      recorded_at,
    };
  }
  const p = await current();
  if (!p) return undefined;
  lastPosition.current = {
    lat: p.coords.latitude,
    lng: p.coords.longitude,
    recorded_at: new Date(p.timestamp).toISOString(),
    ...(p.coords.accuracy != null ? { accuracy_m: p.coords.accuracy } : {}),
  };
  return {
    lat: p.coords.latitude,
    lng: p.coords.longitude,
    ...(p.coords.accuracy != null ? { accuracy_m: Math.round(p.coords.accuracy * 10) / 10 } : {}),
    recorded_at,
  };
}

/** The courier's moves of `entries` with the fix (others, like a label's `load`, take no position). */
export function withPosition(entries: Entry[], position: MovePosition | undefined): Entry[] {
  if (!position) return entries;
  const moves: readonly string[] = COURIER_MOVES;
  return entries.map((e) =>
    e.kind === 'move' && (e.steps ?? [e.action]).every((a) => moves.includes(a)) && !e.body.position
      ? { ...e, body: { ...e.body, position } }
      : e,
  );
}
