import { useEffect, useRef } from 'react';
import type { Courier, Order } from '../../shared/api';
import { createMap, escapeHtml, L } from '../leaflet-map';
import { clock, colorOf, type Depot, hasPoint, type PlanRoute, REASON, type RoutePlan, waitsUntil } from './common';
import { pickStop } from './pick';

/**
 * The planning map: once a plan is in, its routes (depot, numbered stops, back to a depot) and the
 * orders it left out; before that, the orders due on the chosen date. Returns the map's element.
 */
export function usePlanMap({
  routes,
  unassigned,
  known,
  depots,
  couriers,
  dueOrders,
  depotId,
  planDepot,
  planCouriers,
  roster,
  tz,
}: {
  routes: PlanRoute[];
  unassigned: NonNullable<RoutePlan['unassigned']>;
  known: Map<string, Order>;
  depots: Depot[] | null;
  couriers: Courier[] | null;
  dueOrders: Order[];
  depotId: string;
  planDepot: string | undefined;
  planCouriers: RoutePlan['couriers'] | undefined;
  roster: readonly { id: string }[];
  tz: string;
}) {
  const mapEl = useRef<HTMLDivElement>(null);
  const map = useRef<L.Map | null>(null);
  const layer = useRef<L.LayerGroup | null>(null);
  useEffect(() => {
    if (!mapEl.current) return;
    const m = createMap(mapEl.current);
    map.current = m;
    layer.current = L.layerGroup().addTo(m);
    return () => {
      m.remove();
      map.current = null;
    };
  }, []);

  useEffect(() => {
    const m = map.current;
    const l = layer.current;
    const nameOf = (cid: string) => couriers?.find((c) => c.id === cid)?.name ?? cid;
    if (!m || !l) return;
    l.clearLayers();
    const bounds: [number, number][] = [];
    const depotById = new Map((depots ?? []).map((d) => [d.id, d]));
    const point = (oid: string): [number, number] | null => {
      const o = known.get(oid);
      return o && hasPoint(o) ? [o.delivery_address.lat!, o.delivery_address.lng!] : null;
    };
    if (routes.length) {
      const overrides = new Map((planCouriers ?? []).map((c) => [c.courier_id, c]));
      const permanent = routes.reduce((n, r) => n + r.stops.length, 0) <= 60;
      routes.forEach((r) => {
        const color = colorOf(r.courier_id, roster);
        const c = couriers?.find((x) => x.id === r.courier_id);
        const o = overrides.get(r.courier_id);
        const start = depotById.get(o?.start_depot ?? c?.start_depot ?? planDepot ?? '');
        const end = depotById.get(o?.end_depot ?? c?.end_depot ?? start?.id ?? '') ?? start;
        const stops = r.stops.map((s) => point(s.order_id));
        const line: [number, number][] = [];
        if (start) line.push([start.lat, start.lng]);
        for (const p of stops) if (p) line.push(p);
        if (end) line.push([end.lat, end.lng]);
        const name = nameOf(r.courier_id);
        if (line.length > 1)
          L.polyline(line, { color, weight: 4, opacity: 0.8 }).bindTooltip(escapeHtml(name)).addTo(l);
        r.stops.forEach((s, k) => {
          const p = stops[k];
          if (!p) return;
          bounds.push(p);
          const ord = known.get(s.order_id);
          const wait = waitsUntil(s, tz);
          const marker = L.circleMarker(p, { radius: 9, color: '#fff', weight: 2, fillColor: color, fillOpacity: 1 })
            .bindTooltip(String(k + 1), {
              permanent,
              direction: 'center',
              className: 'stop-number',
            })
            .bindPopup(
              `<strong>${escapeHtml(name)} · stop ${k + 1}</strong><br>${escapeHtml(ord?.customer.name ?? s.order_id)}<br>Arrives ${clock(s.arrival_at, tz)}${wait ? ` · waits until ${wait}` : ''}<br><small>Picked: press 1–9 to move it to a courier, 0 to leave it out</small>`,
            )
            // Picking a stop on the map picks its row: focused, in view, ready for a shortcut.
            .on('click', () => pickStop(s.order_id))
            .addTo(l);
          marker.getElement()?.setAttribute('data-stop', s.order_id);
        });
      });
      for (const u of unassigned) {
        const p = point(u.order_id);
        if (!p) continue;
        bounds.push(p);
        L.circleMarker(p, { radius: 8, color: '#dc2626', weight: 3, fillColor: '#fff', fillOpacity: 1 })
          .bindTooltip(`Not planned: ${REASON[u.reason]}`)
          .addTo(l);
      }
    } else {
      for (const o of dueOrders) {
        if (!hasPoint(o)) continue;
        const p: [number, number] = [o.delivery_address.lat!, o.delivery_address.lng!];
        bounds.push(p);
        L.circleMarker(p, { radius: 7, color: '#fff', weight: 2, fillColor: '#6b7280', fillOpacity: 1 })
          .bindTooltip(escapeHtml(o.customer.name))
          .addTo(l);
      }
    }
    for (const d of depots ?? []) {
      if (d.id !== (planDepot ?? depotId) && !routes.length) continue;
      bounds.push([d.lat, d.lng]);
      L.circleMarker([d.lat, d.lng], { radius: 11, color: '#111', weight: 3, fillColor: '#facc15', fillOpacity: 1 })
        .bindTooltip(`Depot: ${escapeHtml(d.name)}`)
        .addTo(l);
    }
    if (bounds.length) m.fitBounds(bounds, { padding: [30, 30], maxZoom: 15 });
  }, [routes, unassigned, known, depots, couriers, dueOrders, depotId, planDepot, planCouriers, roster, tz]);

  return mapEl;
}
