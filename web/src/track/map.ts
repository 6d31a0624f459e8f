import L from 'leaflet';
import 'leaflet/dist/leaflet.css';

const parse = (s: string | undefined): L.LatLngTuple | null => {
  const [lat, lng] = (s ?? '').split(',').map(Number);
  return lat !== undefined && lng !== undefined && Number.isFinite(lat) && Number.isFinite(lng) ? [lat, lng] : null;
};

/** The no-tiles note names the courier's pin only while there is one. */
function noteFor(courier: boolean): void {
  const note = document.getElementById('map-note');
  const text = note?.dataset[courier ? 'both' : 'dest'];
  if (note && text && note.textContent !== text) note.textContent = text;
}

/**
 * The destination and the courier as vector markers (SVG circles with labels): they draw with no
 * image at all, so when the tiles do not load the customer still sees both points and a note.
 */
export class TrackMap {
  private courier: L.CircleMarker | null = null;

  private constructor(
    private readonly map: L.Map,
    private readonly dest: L.LatLngTuple,
    private readonly courierLabel: string,
  ) {}

  static mount(): TrackMap | null {
    const el = document.getElementById('map');
    const card = document.getElementById('map-card');
    const dest = parse(el?.dataset.dest);
    if (!el || !card || !dest) return null;
    card.hidden = false;
    const map = L.map(el, { zoomControl: true, attributionControl: true, scrollWheelZoom: false }).setView(dest, 14);
    const tiles = L.tileLayer(el.dataset.tiles ?? '', {
      maxZoom: 19,
      attribution: '&copy; <a href="https://www.openstreetmap.org/copyright">OpenStreetMap</a> contributors',
    }).addTo(map);
    let failed = 0;
    tiles.on('tileerror', () => {
      failed += 1;
      const note = document.getElementById('map-note');
      if (note && failed >= 1) note.hidden = false;
    });
    L.circleMarker(dest, { radius: 10, color: '#7c2d12', fillColor: '#ea580c', fillOpacity: 0.9, weight: 3 })
      .bindTooltip(el.dataset.destLabel ?? '', { permanent: true, direction: 'top' })
      .addTo(map);
    // Leaflet's own container is a focusable region; name it for screen readers.
    el.setAttribute('aria-label', document.getElementById('map-h')?.textContent ?? '');
    const m = new TrackMap(map, dest, el.dataset.courierLabel ?? '');
    m.update(el.dataset.courier ?? '');
    return m;
  }

  update(courier: string): void {
    const p = parse(courier);
    this.moveCourier(p ? { lat: p[0], lng: p[1] } : null);
  }

  moveCourier(p: { lat: number; lng: number } | null): void {
    if (!p) {
      this.courier?.remove();
      this.courier = null;
      noteFor(false);
      return;
    }
    if (!this.courier) {
      this.courier = L.circleMarker([p.lat, p.lng], {
        radius: 9,
        color: '#134e4a',
        fillColor: '#0f766e',
        fillOpacity: 1,
        weight: 3,
      })
        .bindTooltip(this.courierLabel, { permanent: true, direction: 'bottom' })
        .addTo(this.map);
      this.map.fitBounds(L.latLngBounds([this.dest, [p.lat, p.lng]]).pad(0.3), { maxZoom: 16 });
      noteFor(true);
    } else this.courier.setLatLng([p.lat, p.lng]);
    document.getElementById('map')?.setAttribute('data-courier', `${p.lat},${p.lng}`);
  }
}
