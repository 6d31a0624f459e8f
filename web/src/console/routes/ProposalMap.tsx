import { useEffect, useRef } from 'react';
import { isFinished } from '../../../../src/features/lifecycle/transitions.js';
import type { Schemas } from '../../shared/api';
import { createMap, L } from '../leaflet-map';

type Route = Schemas['Route'];
type Proposal = Schemas['RouteProposal'];
type LatLng = [number, number];

const CURRENT = '#6b7280';
const PROPOSED = '#0b5fff';

/**
 * The proposal beside the current order on one map: both paths from where the courier starts,
 * through the stops kept next (the one under way), the current one grey and dashed, the proposed
 * one blue and numbered as the stops would be. A stop without coordinates is left off the line.
 */
export function ProposalMap({ proposal, route }: { proposal: Proposal; route: Route }) {
  const el = useRef<HTMLElement>(null);
  const key = `${proposal.route_version}:${proposal.proposed.order_ids.join()}`;
  // biome-ignore lint/correctness/useExhaustiveDependencies: key stands for the proposal drawn
  useEffect(() => {
    if (!el.current) return;
    const at = (order: string, kind: string | undefined): LatLng | null => {
      const a = route.stops.find((s) => s.order === order && s.kind === (kind ?? 'delivery'))?.address;
      return a && typeof a.lat === 'number' && typeof a.lng === 'number' ? [a.lat, a.lng] : null;
    };
    const start: LatLng = [proposal.start.lat, proposal.start.lng];
    // Kept next, before either order: unfinished stops the API keeps where they are.
    const kept = route.stops
      .filter((s) => s.on_route && !isFinished(s.status) && proposal.kept.includes(s.order))
      .map((s) => at(s.order, s.kind));
    const path = (leg: Proposal['current']) =>
      [start, ...kept, ...leg.stops.map((s) => at(s.order_id, s.kind))].filter((p): p is LatLng => p !== null);
    const current = path(proposal.current);
    const proposed = path(proposal.proposed);
    const m = createMap(el.current);
    L.polyline(current, { color: CURRENT, weight: 3, dashArray: '6 6', className: 'current-path' })
      .bindTooltip('Current order')
      .addTo(m);
    L.polyline(proposed, { color: PROPOSED, weight: 4, className: 'proposed-path' })
      .bindTooltip('Proposed order')
      .addTo(m);
    L.circleMarker(start, { radius: 8, color: '#111827', weight: 2, fillColor: '#fff', fillOpacity: 1 })
      .bindTooltip(proposal.starts_from === 'position' ? 'The courier’s last position' : 'Start depot')
      .addTo(m);
    for (const s of proposal.proposed.stops) {
      const p = at(s.order_id, s.kind);
      if (!p) continue;
      L.circleMarker(p, { radius: 9, color: '#fff', weight: 2, fillColor: PROPOSED, fillOpacity: 1 })
        .bindTooltip(String(s.position), { permanent: true, direction: 'center', className: 'stop-number' })
        .addTo(m);
    }
    m.fitBounds([...current, ...proposed], { padding: [24, 24], maxZoom: 16 });
    return () => void m.remove();
  }, [key]);
  return (
    <section
      className="map small-map proposal-map"
      ref={el}
      aria-label="Map of the current order (grey, dashed) and the proposed order (blue, numbered)"
    />
  );
}
