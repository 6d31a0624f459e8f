import type { Courier } from '../../shared/api';
import { escapeHtml, L } from '../leaflet-map';
import { routeColor } from '../route-colors';
import type { Depot, RouteLine } from './map-data';

/* What the live map draws besides the orders and couriers it lets you pick: routes and depots. */

/**
 * Each route as a line in its courier's colour through its stops in order; its finished stops stay
 * as small dimmed dots (the open ones are the order markers drawn above them).
 */
export function drawRoutes(layer: L.LayerGroup, routes: RouteLine[], roster: Courier[]): void {
  for (const r of routes) {
    const color = routeColor(r.courierId, roster);
    if (r.points.length > 1) {
      const line = L.polyline(r.points, { color, weight: 3, opacity: 0.75 })
        .bindTooltip(escapeHtml(r.courier))
        .addTo(layer);
      line.getElement()?.setAttribute('data-route', r.id);
      line.getElement()?.setAttribute('data-color', color);
    }
    for (const s of r.stops) {
      if (!s.done || !s.pos) continue;
      const m = L.circleMarker(s.pos, {
        radius: 5,
        color,
        weight: 1,
        opacity: 0.4,
        fillColor: color,
        fillOpacity: 0.3,
      })
        .bindTooltip(`${escapeHtml(s.order.customer.name)} · ${escapeHtml(s.order.status.replace(/_/g, ' '))}`)
        .addTo(layer);
      const el = m.getElement();
      el?.setAttribute('data-done', s.order.id);
      el?.setAttribute('role', 'img');
      el?.setAttribute('aria-label', `Done: ${s.order.customer.name}, ${s.order.status.replace(/_/g, ' ')}`);
    }
  }
}

/** Each depot as a dark square labelled with its name: where the routes start and end. */
export function drawDepots(layer: L.LayerGroup, depots: Depot[]): void {
  for (const d of depots) {
    L.marker([d.lat, d.lng], {
      icon: L.divIcon({ className: 'depot-pin', html: '<span aria-hidden="true">D</span>', iconSize: [22, 22] }),
      title: `Depot ${d.name}`,
      alt: `Depot ${d.name}`,
      keyboard: false,
    })
      .bindTooltip(escapeHtml(d.name), { direction: 'bottom', offset: [0, 10] })
      .addTo(layer);
  }
}
