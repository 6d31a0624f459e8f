import L from 'leaflet';
import 'leaflet/dist/leaflet.css';

/** The tile template the server allows (RUTA_MAP_TILES_URL), given to the page in a meta tag. */
function tilesUrl(): string {
  return (
    document.querySelector<HTMLMetaElement>('meta[name="ruta-tiles"]')?.content ||
    'https://tile.openstreetmap.org/{z}/{x}/{y}.png'
  );
}

/**
 * A map whose markers and lines are vectors (SVG): they draw with no image at all, so when the
 * tiles cannot load the dispatcher still sees every courier, order and route on a blank ground.
 */
export function createMap(el: HTMLElement): L.Map {
  const map = L.map(el, { preferCanvas: false, zoomControl: true }).setView([-12.06, -77.04], 12);
  L.tileLayer(tilesUrl(), {
    maxZoom: 19,
    attribution: '&copy; OpenStreetMap contributors',
  }).addTo(map);
  return map;
}

export { L };

/** Leaflet's tooltips and popups take HTML: names from the API go in as text. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
