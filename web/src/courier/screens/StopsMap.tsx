import L from 'leaflet';
import 'leaflet/dist/leaflet.css';
import { useEffect, useRef } from 'react';
import type { Order } from '../../shared/api';
import { firstName } from '../format';

/** The tile template the server allows (RUTA_MAP_TILES_URL), given to the page in a meta tag. */
const tiles = () =>
  document.querySelector<HTMLMetaElement>('meta[name="ruta-tiles"]')?.content ||
  'https://tile.openstreetmap.org/{z}/{x}/{y}.png';

/**
 * A small map of the deliveries still to do, numbered as in the list and on their labels. Loaded lazily (RouteList), so the
 * first screen does not wait for Leaflet; markers are vectors and draw without tiles (offline too).
 */
export default function StopsMap({ stops, numbers }: { stops: Order[]; numbers: Map<string, number> }) {
  const el = useRef<HTMLElement>(null);
  const map = useRef<L.Map | null>(null);
  const layer = useRef<L.LayerGroup | null>(null);

  useEffect(() => {
    if (!el.current) return;
    const m = L.map(el.current, { zoomControl: false, attributionControl: true }).setView([-12.06, -77.04], 12);
    L.tileLayer(tiles(), { maxZoom: 19, attribution: '&copy; OpenStreetMap' }).addTo(m);
    map.current = m;
    layer.current = L.layerGroup().addTo(m);
    return () => {
      m.remove();
      map.current = null;
    };
  }, []);

  useEffect(() => {
    const m = map.current;
    const g = layer.current;
    if (!m || !g) return;
    g.clearLayers();
    const points: L.LatLngTuple[] = [];
    for (const o of stops) {
      const { lat, lng } = o.delivery_address;
      if (typeof lat !== 'number' || typeof lng !== 'number') continue;
      points.push([lat, lng]);
      const n = numbers.get(o.id) ?? '';
      L.marker([lat, lng], {
        icon: L.divIcon({ className: 'stop-pin', html: String(n), iconSize: [24, 24] }),
        title: `${n}. ${firstName(o.customer.name)}`,
      }).addTo(g);
    }
    if (points.length > 1) L.polyline(points, { color: '#0b5fff', weight: 2, opacity: 0.6 }).addTo(g);
    if (points.length) m.fitBounds(L.latLngBounds(points), { padding: [24, 24], maxZoom: 15 });
  }, [stops, numbers]);

  return <section ref={el} className="stops-map" aria-label="Map of today's stops" />;
}
