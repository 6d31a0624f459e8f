import { useCallback, useEffect, useRef } from 'react';
import { createMap, L } from '../leaflet-map';
import { enableBoxSelect } from './box-select';

/**
 * The live map's Leaflet map, made once the page is mounted, with its layers and the markers drawn
 * on them by id; a Shift + drag box selects through `selectWithin`. `keepInView` widens the view to
 * show every marker until the dispatcher has moved the map.
 */
export function useMapView(selectWithin: (bounds: L.LatLngBounds) => void) {
  const el = useRef<HTMLDivElement>(null);
  const map = useRef<L.Map | null>(null);
  const layers = useRef<{
    orders: L.LayerGroup;
    couriers: L.LayerGroup;
    routes: L.LayerGroup;
    depots: L.LayerGroup;
  } | null>(null);
  const courierMarkers = useRef(new Map<string, L.CircleMarker>());
  const orderMarkers = useRef(new Map<string, L.CircleMarker>());
  const fitted = useRef(false);
  // Set by the dispatcher's own pan or zoom (any move the page did not start itself).
  const userMoved = useRef(false);
  const fitting = useRef(false);

  useEffect(() => {
    if (!el.current) return;
    const m = createMap(el.current);
    map.current = m;
    layers.current = {
      depots: L.layerGroup().addTo(m),
      routes: L.layerGroup().addTo(m),
      orders: L.layerGroup().addTo(m),
      couriers: L.layerGroup().addTo(m),
    };
    m.on('movestart', () => {
      if (!fitting.current) userMoved.current = true;
    });
    // Couriers' labels clear each other in pixels: a zoom brings them together or apart.
    m.on('zoomend', () => stackCourierLabels(m, courierMarkers.current.values()));
    const offBox = enableBoxSelect(m, selectWithin);
    // The side panel can change the map's width (a narrow window stacks them): Leaflet must know.
    const ro = new ResizeObserver(() => m.invalidateSize());
    ro.observe(el.current);
    return () => {
      ro.disconnect();
      offBox();
      m.remove();
      map.current = null;
    };
  }, [selectWithin]);

  /**
   * Until the dispatcher pans or zooms, the view grows to show what there is (a courier's first or
   * next ping, new orders); once they have moved the map, it stays where they put it. It never
   * zooms in by itself, so markers do not jump around while nothing left the view.
   */
  const keepInView = useCallback(() => {
    const m = map.current;
    if (!m || userMoved.current) return;
    const points = [...orderMarkers.current.values(), ...courierMarkers.current.values()].map((x) => x.getLatLng());
    if (points.length === 0) return;
    const all = L.latLngBounds(points);
    // In view means inside the same margins the fit leaves (a marker at the very edge is cut off).
    const size = m.getSize();
    const inner = L.latLngBounds(
      m.containerPointToLatLng([30, 50]),
      m.containerPointToLatLng([Math.max(30, size.x - 30), Math.max(50, size.y - 30)]),
    );
    if (fitted.current && inner.contains(all)) return;
    fitting.current = true;
    try {
      // More room at the top: a courier's name sits above its marker and would be cut off there.
      m.fitBounds(all, { paddingTopLeft: [30, 50], paddingBottomRight: [30, 30], maxZoom: 15, animate: false });
    } finally {
      fitting.current = false;
    }
    fitted.current = true;
  }, []);

  return { el, map, layers, courierMarkers, orderMarkers, keepInView };
}

/** The marker's position on its element too (data-lat, data-lng), for tests and assistive tools. */
export function markCourier(m: L.CircleMarker): void {
  const { lat, lng } = m.getLatLng();
  const el = m.getElement();
  el?.setAttribute('data-lat', String(lat));
  el?.setAttribute('data-lng', String(lng));
}

/** A courier's label sits this far above its marker's centre (the marker's radius). */
export const LABEL_OFFSET_Y = -10;
/** Room kept between two stacked labels: a label's arrow points down into it. */
const LABEL_GAP = 8;

/**
 * Couriers at one spot (a depot at the start of the day, two riders at one pickup) would print their
 * permanent labels over each other, and neither name reads. Each label that would cover one already
 * placed is lifted above it, so they stack over the spot, the one lowest on screen nearest its
 * marker. Pixels, not metres, decide: again at every zoom, redraw, new label text and ping.
 */
export function stackCourierLabels(map: L.Map | null, markers: Iterable<L.CircleMarker>): void {
  if (!map) return;
  const labels: { tooltip: L.Tooltip; x: number; y: number; w: number; h: number; name: string }[] = [];
  for (const m of markers) {
    const tooltip = m.getTooltip();
    const el = tooltip?.getElement();
    if (!tooltip || !el || !map.hasLayer(m)) continue;
    const p = map.latLngToContainerPoint(m.getLatLng());
    labels.push({ tooltip, x: p.x, y: p.y, w: el.offsetWidth, h: el.offsetHeight, name: el.textContent ?? '' });
  }
  // Lowest on screen first, then left to right and by name: the same couriers stack the same way.
  labels.sort((a, b) => b.y - a.y || a.x - b.x || a.name.localeCompare(b.name));
  const placed: { left: number; right: number; top: number; bottom: number }[] = [];
  for (const l of labels) {
    const left = l.x - l.w / 2;
    const right = left + l.w;
    let bottom = l.y + LABEL_OFFSET_Y;
    // Only ever up, past each placed label it would touch: once above one, it cannot touch it again.
    for (let moved = true; moved; ) {
      moved = false;
      for (const b of placed) {
        const across = left < b.right && right > b.left;
        if (across && bottom - l.h < b.bottom + LABEL_GAP && bottom + LABEL_GAP > b.top) {
          bottom = b.top - LABEL_GAP;
          moved = true;
        }
      }
    }
    placed.push({ left, right, top: bottom - l.h, bottom });
    const offset = L.point(0, bottom - l.y);
    if (!L.point(l.tooltip.options.offset ?? [0, 0]).equals(offset)) {
      l.tooltip.options.offset = offset;
      l.tooltip.update();
    }
  }
}
