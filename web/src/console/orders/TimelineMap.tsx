import { useEffect, useRef } from 'react';
import { STATUS_COLOR } from '../../shared/api';
import { createMap, L } from '../leaflet-map';

export function TimelineMap({
  points,
  dest,
  attempt,
}: {
  points: [number, number][];
  dest: [number, number] | null;
  /** Where the phone was at the last attempt, and whether that was far from the address. */
  attempt: { at: [number, number]; far: boolean } | null;
}) {
  const el = useRef<HTMLElement>(null);
  // Redrawn only when the positions change, not on every render of the page.
  const key = JSON.stringify([points, dest, attempt]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: key stands for points and dest
  useEffect(() => {
    if (!el.current || (points.length === 0 && !dest)) return;
    const m = createMap(el.current);
    const all = [...points, ...(dest ? [dest] : [])];
    if (points.length > 1) L.polyline(points, { color: '#0b5fff', weight: 3 }).addTo(m);
    for (const p of points) L.circleMarker(p, { radius: 5, color: '#0b5fff', fillOpacity: 1 }).addTo(m);
    if (dest)
      L.circleMarker(dest, { radius: 9, color: '#fff', weight: 2, fillColor: STATUS_COLOR.delivered, fillOpacity: 1 })
        .bindTooltip('Delivery point')
        .addTo(m);
    if (attempt) {
      all.push(attempt.at);
      L.circleMarker(attempt.at, {
        radius: 7,
        color: attempt.far ? '#b00020' : '#0b5fff',
        weight: 3,
        fillOpacity: 0.2,
        className: 'attempt-marker',
      })
        .bindTooltip(attempt.far ? 'Last attempt: far from the address' : 'Last attempt')
        .addTo(m);
    }
    m.fitBounds(all, { padding: [20, 20], maxZoom: 16 });
    return () => void m.remove();
  }, [key]);
  if (points.length === 0 && !dest) return null;
  // A labelled region, not an image: it holds Leaflet's zoom buttons and links, which an image's role would hide.
  return <section className="map small-map" ref={el} aria-label="Map of the timeline positions and delivery point" />;
}
