import { useEffect, useMemo, useState } from 'react';
import { locationTransport } from '../client';
import { type Fix, keepPoint, sendPoints } from '../points';
import type { CourierSession } from './useCourierSession';

/** The last position seen, for the deliver move's lat/lng. */
export const lastPosition: { current: Fix | null } = { current: null };

/**
 * While on duty, watchPosition keeps every fix in IndexedDB (points.ts); while signed in, what is
 * kept is sent every 10 s in batches of up to 100, oldest first (DESIGN §9), and forgotten only once
 * the server answers 2xx, which means stored (issue 18 #11). Offline, a reload or a crash keeps them.
 */
export function useDutyLocation(session: CourierSession, onDuty: boolean, everyMs = 10_000): LocationProblem {
  const courierId = session.me?.courier.id ?? null;
  const transport = useMemo(() => locationTransport(session.client), [session.client]);
  const [problem, setProblem] = useState<LocationProblem>(null);

  useEffect(() => {
    setProblem(null);
    if (!courierId || !onDuty) return;
    // Outside a secure context (a Wi-Fi address over http) browsers refuse every position, and say
    // so as a permission refusal: the courier would look for a setting that cannot help.
    if (!window.isSecureContext) return void setProblem('insecure');
    if (!('geolocation' in navigator)) return void setProblem('unsupported');
    const id = navigator.geolocation.watchPosition(
      (p) => {
        setProblem(null);
        const fix: Fix = {
          lat: p.coords.latitude,
          lng: p.coords.longitude,
          recorded_at: new Date(p.timestamp).toISOString(),
          ...(p.coords.accuracy != null ? { accuracy_m: p.coords.accuracy } : {}),
          ...(p.coords.speed != null ? { speed_mps: p.coords.speed } : {}),
          ...(p.coords.heading != null && !Number.isNaN(p.coords.heading) ? { heading: p.coords.heading } : {}),
        };
        lastPosition.current = fix;
        void keepPoint(courierId, fix).catch(() => {});
      },
      // A refusal is said on screen (the courier believes dispatch sees it); no signal for a while is not.
      (e) => {
        if (e.code === e.PERMISSION_DENIED) setProblem('denied');
      },
      { enableHighAccuracy: true, maximumAge: 5000 },
    );
    return () => {
      navigator.geolocation.clearWatch(id);
      // Going off duty sends what is left at once.
      void sendPoints(transport, courierId);
    };
  }, [courierId, onDuty, transport]);

  // Not only on duty: points kept before a reload or a sign-in elsewhere still go.
  useEffect(() => {
    if (!courierId) return;
    const timer = setInterval(() => void sendPoints(transport, courierId), everyMs);
    return () => clearInterval(timer);
  }, [courierId, transport, everyMs]);
  return problem;
}

/** Why an on-duty phone sends no position: the courier refused it, the browser has none, or the
 * page is not at an https address. */
export type LocationProblem = 'denied' | 'unsupported' | 'insecure' | null;
