import { useCallback, useState } from 'react';
import { type Courier, type Order, TERMINAL, unwrap } from '../../shared/api';
import type { useSession } from '../session';

type Client = ReturnType<typeof useSession>['client'];

export interface RouteLine {
  id: string;
  courier: string;
  points: [number, number][];
}

export function positionOf(o: Order): [number, number] | null {
  const { lat, lng } = o.delivery_address;
  return typeof lat === 'number' && typeof lng === 'number' ? [lat, lng] : null;
}

/**
 * What the live map shows: the active orders (three pages at most: the map is for what is moving
 * today), the couriers, and the routes of those orders as lines in stop order.
 */
export function useMapData(client: Client) {
  const [orders, setOrders] = useState<Order[]>([]);
  const [couriers, setCouriers] = useState<Courier[]>([]);
  const [routes, setRoutes] = useState<RouteLine[]>([]);
  const [error, setError] = useState<unknown>(null);

  const load = useCallback(async () => {
    try {
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
      const cs = await unwrap(client.GET('/v1/couriers', { params: { query: { limit: 100 } } }));
      // Orders and couriers in one render: the first drawing fits the view to both.
      setOrders(active);
      setCouriers(cs.data);
      const byId = new Map(active.map((o) => [o.id, o]));
      const routeIds = [...new Set(active.map((o) => o.route).filter((r): r is string => !!r))].slice(0, 50);
      const lines: RouteLine[] = [];
      for (const id of routeIds) {
        const { data } = await client.GET('/v1/routes/{id}', { params: { path: { id } } });
        if (!data) continue;
        const points = data.stops
          .map((s) => byId.get(s.order))
          .map((o) => (o ? positionOf(o) : null))
          .filter((p): p is [number, number] => p !== null);
        lines.push({ id, courier: data.courier.name, points });
      }
      setRoutes(lines);
      setError(null);
    } catch (e) {
      setError(e);
    }
  }, [client]);

  const refreshCouriers = useCallback(async () => {
    const { data } = await client.GET('/v1/couriers', { params: { query: { limit: 100 } } });
    if (data) setCouriers(data.data);
  }, [client]);

  return { orders, couriers, routes, error, load, refreshCouriers };
}
