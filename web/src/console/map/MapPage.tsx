import { useCallback, useEffect, useRef, useState } from 'react';
import { allowedMoves } from '../../../../src/features/lifecycle/transitions.js';
import { browserZone, type Order, STATUS_COLOR, STATUS_LABEL } from '../../shared/api';
import { escapeHtml, L } from '../leaflet-map';
import { streamable, useLive } from '../live';
import { assignOrders } from './assign';
import { CourierList } from './CourierList';
import { MapLegend } from './MapLegend';
import { lastSeen, positionOf, useMapData } from './map-data';
import { drawDepots, drawRoutes } from './map-layers';
import { LABEL_OFFSET_Y, markCourier, stackCourierLabels, useMapView } from './map-view';
import { OrderPicker } from './OrderPicker';
import './map-page.css';
import { routeColor } from '../route-colors';
import { useSession } from '../session';
import { ErrorNote } from '../ui';

/** The transition table decides, as on the board: a move the API would refuse is never offered. */
const assignable = (o: Order) => allowedMoves(o.status).includes('assign');

/**
 * DESIGN §8 "Live map": couriers at their last position, active orders at their delivery points
 * coloured by status, routes as lines. Orders are selected by clicking their markers, by a Shift +
 * drag box, or in the list beside the map (the keyboard's way), and assigned to a courier with the
 * board's operation, POST /v1/orders/{id}/assign.
 */
export default function MapPage() {
  const session = useSession();
  const { client } = session;
  const tz = session.me?.timezone ?? browserZone();
  const { orders, couriers, routes, depots, error, load, changed, refreshCouriers } = useMapData(client, tz);
  // "last seen 12 min ago" moves on by itself: the clock is read again every 30 s.
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 30_000);
    return () => clearInterval(t);
  }, []);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [assignTo, setAssignTo] = useState('');
  const [busy, setBusy] = useState(false);
  const [note, setNote] = useState('');
  const [failures, setFailures] = useState<{ id: string; message: string }[]>([]);
  const ordersRef = useRef(orders);
  ordersRef.current = orders;

  const toggle = useCallback((id: string, on: boolean) => {
    setSelected((prev) => {
      const next = new Set(prev);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });
  }, []);

  /** Adds every assignable order inside `bounds` to the selection (box and "in view"). */
  const selectWithin = useCallback((bounds: L.LatLngBounds) => {
    const inside = ordersRef.current.filter((o) => {
      const p = positionOf(o);
      return p && assignable(o) && bounds.contains(p);
    });
    setSelected((prev) => new Set([...prev, ...inside.map((o) => o.id)]));
    setNote(inside.length ? '' : 'No assignable order there.');
  }, []);

  const { el, map, layers, courierMarkers, orderMarkers, keepInView } = useMapView(selectWithin);

  // biome-ignore lint/correctness/useExhaustiveDependencies: once per mount
  useEffect(() => {
    void load();
  }, []);

  // A selected order that moved on (assigned elsewhere, picked up, cancelled) leaves the selection.
  useEffect(() => {
    const still = new Set(orders.filter(assignable).map((o) => o.id));
    setSelected((prev) => (prev.size === 0 ? prev : new Set([...prev].filter((id) => still.has(id)))));
  }, [orders]);

  useLive(
    true,
    streamable(session),
    {
      order: (id) => void changed(id),
      courierLocation: ({ courier, lat, lng }) => {
        const marker = courierMarkers.current.get(courier);
        // A courier not on the map yet (no position when the page loaded): fetch the list again.
        if (!marker) return void refreshCouriers();
        marker.setLatLng([lat, lng]);
        markCourier(marker);
        keepInView();
        stackCourierLabels(map.current, courierMarkers.current.values());
      },
      // No stream (a tab signed in with an API key): the whole map, couriers and orders, every 5 s.
      poll: () => void load(),
      reset: () => void load(),
    },
    5000,
  );

  async function assign() {
    const ids = orders.filter((o) => selected.has(o.id)).map((o) => o.id);
    if (!assignTo || ids.length === 0) return;
    setBusy(true);
    setFailures([]);
    setNote('');
    try {
      const out = await assignOrders(client, ids, assignTo);
      const name = couriers.find((c) => c.id === assignTo)?.name ?? assignTo;
      setNote(`Assigned ${out.assigned.length} of ${ids.length} to ${name}.`);
      setFailures(out.failed);
      setSelected(new Set(out.failed.map((f) => f.id)));
      await load();
    } finally {
      setBusy(false);
    }
  }

  function selectInView() {
    if (map.current) selectWithin(map.current.getBounds());
  }

  // biome-ignore lint/correctness/useExhaustiveDependencies: the map, its layers and markers are useMapView's refs
  useEffect(() => {
    const l = layers.current;
    if (!l || !map.current) return;
    l.orders.clearLayers();
    l.routes.clearLayers();
    l.couriers.clearLayers();
    l.depots.clearLayers();
    courierMarkers.current.clear();
    orderMarkers.current.clear();
    drawRoutes(l.routes, routes, couriers);
    drawDepots(l.depots, depots);
    for (const o of orders) {
      const pos = positionOf(o);
      if (!pos) continue;
      const can = assignable(o);
      const m = L.circleMarker(pos, {
        radius: 7,
        color: '#fff',
        weight: 2,
        fillColor: STATUS_COLOR[o.status],
        fillOpacity: 1,
      })
        .bindTooltip(`${escapeHtml(o.customer.name)} · ${escapeHtml(o.tracking_code)}<br>${STATUS_LABEL[o.status]}`)
        .on('click', () => {
          if (!can)
            return setNote(`${o.tracking_code} is ${STATUS_LABEL[o.status].toLowerCase()}: it cannot be assigned.`);
          setSelected((prev) => {
            const next = new Set(prev);
            if (next.has(o.id)) next.delete(o.id);
            else next.add(o.id);
            return next;
          });
        })
        .addTo(l.orders);
      const path = m.getElement();
      path?.setAttribute('role', 'img');
      path?.setAttribute('data-order', o.id);
      path?.setAttribute('aria-label', `Order ${o.tracking_code}, ${o.customer.name}, ${STATUS_LABEL[o.status]}`);
      orderMarkers.current.set(o.id, m);
    }
    for (const c of couriers) {
      if (!c.location) continue;
      const pos: [number, number] = [c.location.lat, c.location.lng];
      // In its route's colour (greyed when stale: the effect below, as the clock moves).
      const m = L.circleMarker(pos, { radius: 10, color: '#111', weight: 3, fillOpacity: 1 })
        .bindTooltip(escapeHtml(c.name), { permanent: true, direction: 'top', offset: [0, LABEL_OFFSET_Y] })
        // Clicking a courier picks it as the one to assign to.
        .on('click', () => c.status === 'active' && setAssignTo(c.id))
        .addTo(l.couriers);
      const path = m.getElement();
      path?.setAttribute('role', 'img');
      path?.setAttribute('data-courier', c.id);
      markCourier(m);
      courierMarkers.current.set(c.id, m);
    }
    keepInView();
  }, [orders, couriers, routes, depots, keepInView]);

  // A courier's marker says how old its position is, and greys once the phone has gone quiet; again
  // after each redraw of the markers (the effect above) and as the clock moves.
  // biome-ignore lint/correctness/useExhaustiveDependencies: orders, routes and depots redraw the markers restyled here
  useEffect(() => {
    for (const c of couriers) {
      const m = courierMarkers.current.get(c.id);
      if (!m || !c.location) continue;
      const seen = lastSeen(c.location.recorded_at, now);
      m.setStyle({
        color: seen.stale ? '#9ca3af' : '#111',
        fillColor: seen.stale ? '#d1d5db' : routeColor(c.id, couriers),
        fillOpacity: seen.stale ? 0.7 : 1,
      });
      m.setTooltipContent(`${escapeHtml(c.name)} · ${seen.text}`);
      const path = m.getElement();
      path?.setAttribute('aria-label', `Courier ${c.name}, ${seen.text}`);
      path?.setAttribute('data-stale', String(seen.stale));
    }
    // After the new texts: a label's width decides whom it would cover.
    stackCourierLabels(map.current, courierMarkers.current.values());
  }, [orders, couriers, routes, depots, now]);

  // The selection is drawn on the markers: a thick dark ring, and data-selected for tests and tools.
  // Again after every redraw of the markers (the effect above: orders, and a courier's ping, a route
  // or a depot too), which makes new marker elements: the ring stayed off a selected order before.
  // biome-ignore lint/correctness/useExhaustiveDependencies: whatever redraws the markers restyles them here
  useEffect(() => {
    for (const [id, m] of orderMarkers.current) {
      const on = selected.has(id);
      m.setStyle({ color: on ? '#111' : '#fff', weight: on ? 4 : 2 });
      m.setRadius(on ? 9 : 7);
      m.getElement()?.setAttribute('data-selected', String(on));
      if (on) m.bringToFront();
    }
  }, [selected, orders, couriers, routes, depots]);

  return (
    <section className="map-page" aria-labelledby="map-title">
      <h1 id="map-title">Live map</h1>
      <ErrorNote error={error} />
      {note && (
        <p className="note" role="status">
          {note}
        </p>
      )}
      {failures.length > 0 && (
        <div className="error-note" role="alert">
          Not assigned:
          <ul className="map-failures">
            {failures.map((f) => (
              <li key={f.id}>
                {orders.find((o) => o.id === f.id)?.tracking_code ?? f.id}: {f.message}
              </li>
            ))}
          </ul>
        </div>
      )}
      <div className="map-layout">
        <div className="map" ref={el} role="application" aria-label="Map of couriers, orders and routes" />
        <div className="map-side-wrap">
          <CourierList
            couriers={couriers}
            routes={routes}
            now={now}
            onFocus={(c) => c.location && map.current?.setView([c.location.lat, c.location.lng], 15)}
          />
          <OrderPicker
            orders={orders}
            couriers={couriers}
            selected={selected}
            onToggle={toggle}
            onSelectInView={selectInView}
            onClear={() => setSelected(new Set())}
            assignable={assignable}
            assignTo={assignTo}
            onAssignTo={setAssignTo}
            onAssign={() => void assign()}
            busy={busy}
          />
        </div>
      </div>
      <MapLegend orders={orders} couriers={couriers} routes={routes} depots={depots} />
    </section>
  );
}
