import { useEffect, useRef, useState } from 'react';
import { type Courier, type Order, STATUS_COLOR, STATUS_LABEL, TERMINAL, unwrap } from '../shared/api';
import { createMap, L } from './leaflet-map';
import { streamable, useLive } from './live';
import { useSession } from './session';
import { ErrorNote } from './ui';

interface RouteLine {
  id: string;
  courier: string;
  points: [number, number][];
}

export default function MapPage() {
  const session = useSession();
  const { client } = session;
  const el = useRef<HTMLDivElement>(null);
  const map = useRef<L.Map | null>(null);
  const layers = useRef<{ orders: L.LayerGroup; couriers: L.LayerGroup; routes: L.LayerGroup } | null>(null);
  const courierMarkers = useRef(new Map<string, L.CircleMarker>());
  const [orders, setOrders] = useState<Order[]>([]);
  const [couriers, setCouriers] = useState<Courier[]>([]);
  const [routes, setRoutes] = useState<RouteLine[]>([]);
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    if (!el.current) return;
    const m = createMap(el.current);
    map.current = m;
    layers.current = {
      routes: L.layerGroup().addTo(m),
      orders: L.layerGroup().addTo(m),
      couriers: L.layerGroup().addTo(m),
    };
    return () => {
      m.remove();
      map.current = null;
    };
  }, []);

  async function load() {
    try {
      // The active orders (three pages at most: the map is for what is moving today).
      const active: Order[] = [];
      let after: string | undefined;
      for (let i = 0; i < 3; i++) {
        const page = await unwrap(
          client.GET('/v1/orders', { params: { query: { limit: 100, ...(after ? { starting_after: after } : {}) } } }),
        );
        active.push(...page.data.filter((o) => !TERMINAL.includes(o.status)));
        if (!page.has_more) break;
        after = page.data[page.data.length - 1]?.id;
      }
      setOrders(active);
      const cs = await unwrap(client.GET('/v1/couriers', { params: { query: { limit: 100 } } }));
      setCouriers(cs.data);
      const byId = new Map(active.map((o) => [o.id, o]));
      const routeIds = [...new Set(active.map((o) => o.route).filter((r): r is string => !!r))].slice(0, 50);
      const lines: RouteLine[] = [];
      for (const id of routeIds) {
        const { data } = await client.GET('/v1/routes/{id}', { params: { path: { id } } });
        if (!data) continue;
        const points = data.stops
          .map((s) => byId.get(s.order)?.delivery_address)
          .filter((a) => a && typeof a.lat === 'number' && typeof a.lng === 'number')
          .map((a) => [a!.lat!, a!.lng!] as [number, number]);
        lines.push({ id, courier: data.courier.name, points });
      }
      setRoutes(lines);
      setError(null);
    } catch (e) {
      setError(e);
    }
  }

  async function refreshCouriers() {
    const { data } = await client.GET('/v1/couriers', { params: { query: { limit: 100 } } });
    if (data) setCouriers(data.data);
  }

  // biome-ignore lint/correctness/useExhaustiveDependencies: once per mount
  useEffect(() => {
    void load();
  }, []);

  useLive(
    true,
    streamable(session),
    {
      order: () => void load(),
      courierLocation: ({ courier, lat, lng }) => {
        const marker = courierMarkers.current.get(courier);
        // A courier not on the map yet (no position when the page loaded): fetch the list again.
        if (!marker) return void refreshCouriers();
        marker.setLatLng([lat, lng]);
        markCourier(marker);
      },
      poll: () => void refreshCouriers(),
    },
    5000,
  );

  useEffect(() => {
    const l = layers.current;
    if (!l || !map.current) return;
    l.orders.clearLayers();
    l.routes.clearLayers();
    l.couriers.clearLayers();
    courierMarkers.current.clear();
    const bounds: [number, number][] = [];
    for (const r of routes) {
      if (r.points.length > 1)
        L.polyline(r.points, { color: '#0b5fff', weight: 3, opacity: 0.7 }).bindTooltip(r.courier).addTo(l.routes);
    }
    for (const o of orders) {
      const { lat, lng } = o.delivery_address;
      if (typeof lat !== 'number' || typeof lng !== 'number') continue;
      bounds.push([lat, lng]);
      L.circleMarker([lat, lng], {
        radius: 7,
        color: '#fff',
        weight: 2,
        fillColor: STATUS_COLOR[o.status],
        fillOpacity: 1,
      })
        .bindPopup(
          `<strong>${escapeHtml(o.customer.name)}</strong><br>${STATUS_LABEL[o.status]}<br><a href="#/orders/${o.id}">Open ${o.tracking_code}</a>`,
        )
        .addTo(l.orders);
    }
    for (const c of couriers) {
      if (!c.location) continue;
      const pos: [number, number] = [c.location.lat, c.location.lng];
      bounds.push(pos);
      const m = L.circleMarker(pos, { radius: 10, color: '#111', weight: 3, fillColor: '#facc15', fillOpacity: 1 })
        .bindTooltip(c.name, { permanent: true, direction: 'top', offset: [0, -10] })
        .addTo(l.couriers);
      const path = m.getElement();
      path?.setAttribute('role', 'img');
      path?.setAttribute('aria-label', `Courier ${c.name}`);
      path?.setAttribute('data-courier', c.id);
      markCourier(m);
      courierMarkers.current.set(c.id, m);
    }
    if (bounds.length) map.current.fitBounds(bounds, { padding: [30, 30], maxZoom: 15 });
  }, [orders, couriers, routes]);

  return (
    <section className="map-page" aria-labelledby="map-title">
      <h1 id="map-title">Live map</h1>
      <ErrorNote error={error} />
      <div className="map" ref={el} role="application" aria-label="Map of couriers, orders and routes" />
      <ul className="legend" aria-label="Legend">
        <li>
          <span className="dot courier-dot" /> Courier ({couriers.filter((c) => c.location).length})
        </li>
        {[...new Set(orders.map((o) => o.status))].map((s) => (
          <li key={s}>
            <span className="dot" style={{ background: STATUS_COLOR[s] }} /> {STATUS_LABEL[s]} (
            {orders.filter((o) => o.status === s).length})
          </li>
        ))}
        <li>
          <span className="line" /> Route ({routes.length})
        </li>
      </ul>
    </section>
  );
}

/** The marker's position on its element too (data-lat, data-lng), for tests and assistive tools. */
function markCourier(m: L.CircleMarker): void {
  const { lat, lng } = m.getLatLng();
  const el = m.getElement();
  el?.setAttribute('data-lat', String(lat));
  el?.setAttribute('data-lng', String(lng));
}

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
