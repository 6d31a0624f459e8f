import { L } from '../leaflet-map';

/**
 * Shift + drag on the map draws a rectangle and hands its bounds to `onSelect` (Leaflet's own
 * shift-drag, box zoom, is turned off). The mousedown is caught in the capture phase on the
 * container, before Leaflet's drag handler sees it, so the map does not pan while the box is drawn.
 * Returns the function that removes it.
 */
export function enableBoxSelect(map: L.Map, onSelect: (bounds: L.LatLngBounds) => void): () => void {
  const container = map.getContainer();
  map.boxZoom.disable();
  let start: L.LatLng | null = null;
  let rect: L.Rectangle | null = null;

  const move = (e: MouseEvent) => {
    if (start && rect) rect.setBounds(L.latLngBounds(start, map.mouseEventToLatLng(e)));
  };
  const up = (e: MouseEvent) => {
    document.removeEventListener('mousemove', move);
    document.removeEventListener('mouseup', up);
    if (!start) return;
    const bounds = L.latLngBounds(start, map.mouseEventToLatLng(e));
    rect?.remove();
    rect = null;
    start = null;
    onSelect(bounds);
  };
  const down = (e: MouseEvent) => {
    if (!e.shiftKey || e.button !== 0) return;
    e.stopImmediatePropagation();
    e.preventDefault();
    start = map.mouseEventToLatLng(e);
    rect = L.rectangle(L.latLngBounds(start, start), {
      color: '#0b5fff',
      weight: 1,
      dashArray: '4 4',
      fillOpacity: 0.1,
      interactive: false,
    }).addTo(map);
    document.addEventListener('mousemove', move);
    document.addEventListener('mouseup', up);
  };
  container.addEventListener('mousedown', down, true);
  return () => {
    container.removeEventListener('mousedown', down, true);
    document.removeEventListener('mousemove', move);
    document.removeEventListener('mouseup', up);
    rect?.remove();
  };
}
