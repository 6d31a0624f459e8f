import { useEffect, useRef } from 'react';
import type { CourierMe } from './net';

interface Point {
  lat: number;
  lng: number;
  recorded_at: string;
  accuracy_m?: number;
  speed_mps?: number;
  heading?: number;
}

/** The last position seen, for the deliver move's lat/lng. */
export const lastPosition: { current: Point | null } = { current: null };

/**
 * While on duty: watchPosition fills a buffer that is sent every 10 s as one batch (DESIGN §9),
 * oldest first, at most 100 points. A server without the batch route gets the newest point on the
 * single-point route. Offline, points wait in the buffer (the oldest are dropped past 100).
 */
export function useDutyLocation(me: CourierMe | null, onDuty: boolean, everyMs = 10_000): void {
  const buffer = useRef<Point[]>([]);
  const batch = useRef(true);
  useEffect(() => {
    if (!me || !onDuty || !('geolocation' in navigator)) return;
    const id = navigator.geolocation.watchPosition(
      (p) => {
        const point: Point = {
          lat: p.coords.latitude,
          lng: p.coords.longitude,
          recorded_at: new Date(p.timestamp).toISOString(),
          ...(p.coords.accuracy != null ? { accuracy_m: p.coords.accuracy } : {}),
          ...(p.coords.speed != null ? { speed_mps: p.coords.speed } : {}),
          ...(p.coords.heading != null && !Number.isNaN(p.coords.heading) ? { heading: p.coords.heading } : {}),
        };
        lastPosition.current = point;
        buffer.current.push(point);
        if (buffer.current.length > 100) buffer.current.splice(0, buffer.current.length - 100);
      },
      () => {},
      { enableHighAccuracy: true, maximumAge: 5000 },
    );
    const send = async () => {
      const points = buffer.current.splice(0);
      if (points.length === 0) return;
      const headers: Record<string, string> = { 'Content-Type': 'application/json' };
      if (me.csrf_token) headers['X-CSRF-Token'] = me.csrf_token;
      if (me.courier.livemode !== undefined) headers['Ruta-Mode'] = me.courier.livemode ? 'live' : 'test';
      const base = `/v1/couriers/${encodeURIComponent(me.courier.id)}`;
      try {
        let res: Response | null = null;
        if (batch.current) {
          res = await fetch(`${base}/locations`, {
            method: 'POST',
            credentials: 'include',
            headers,
            body: JSON.stringify({ points }),
          });
          if (res.status === 404 || res.status === 405) batch.current = false;
        }
        if (!batch.current) {
          const last = points[points.length - 1]!;
          res = await fetch(`${base}/location`, {
            method: 'POST',
            credentials: 'include',
            headers,
            body: JSON.stringify({ lat: last.lat, lng: last.lng, recorded_at: last.recorded_at }),
          });
        }
        if (!res || res.status >= 500 || res.status === 429) throw new Error('retry');
      } catch {
        buffer.current.unshift(...points.slice(-100 + buffer.current.length));
      }
    };
    const timer = setInterval(() => void send(), everyMs);
    return () => {
      navigator.geolocation.clearWatch(id);
      clearInterval(timer);
      void send();
    };
  }, [me, onDuty, everyMs]);
}
